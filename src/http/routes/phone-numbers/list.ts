import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { publicPhoneLine, type LinesService } from '../../../domain/lines/service.js';
import type { PhoneLine } from '../../../store/index.js';
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
  // The JSON of each cached list, serialized once (by the route's response schema): every
  // poll of an unchanged list sends the same bytes. A refreshed list is a new array.
  const serialized = new WeakMap<readonly PhoneLine[], string>();

  app.get(
    '/api/v1/phone-numbers',
    {
      schema: {
        tags: ['phone lines'],
        summary: 'Lines assigned to the authenticated project',
        // No query parameters: an unknown one is 1002, as on every route.
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Object({ phone_numbers: Type.Array(PhoneLineSchema) }) },
      },
    },
    // Not async: answered synchronously while the tenant's lines are cached.
    (req, reply) =>
      andThen(deps.lines.listForTenant(principalOf(req).tenant.id), (lines) => {
        let body = serialized.get(lines);
        if (body === undefined) serialized.set(lines, (body = String(reply.serialize({ phone_numbers: lines.map(publicPhoneLine) }))));
        // A string with a JSON content type is sent as it is (the schema's type does not know that).
        void reply.type('application/json; charset=utf-8').send(body as never);
      }),
  );
}
