import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { publicPhoneLine, type LinesService } from '../../../domain/lines/service.js';
import { andThen } from '../../../domain/maybe-promise.js';

export const PhoneLineSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  phone_line_id: Type.String({ format: 'uuid' }),
  phone_number: Type.String({ description: 'E.164' }),
  service: Type.Literal('imessage'),
  is_active: Type.Boolean(),
  capabilities: Type.Array(Type.String()),
});

export function listPhoneNumbers(app: TypedApp, deps: { lines: LinesService }) {
  app.get(
    '/api/v1/phone-numbers',
    {
      schema: {
        tags: ['phone lines'],
        summary: 'Lines assigned to the authenticated project',
        response: { 200: Type.Object({ phone_numbers: Type.Array(PhoneLineSchema) }) },
      },
    },
    // Not async: answered synchronously while the tenant's lines are cached.
    (req) => andThen(deps.lines.listForTenant(principalOf(req).tenant.id), (lines) => ({ phone_numbers: lines.map(publicPhoneLine) })),
  );
}
