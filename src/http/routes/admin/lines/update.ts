import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminPhoneLine } from '../../../present/lines.js';
import { adminUpdateLine } from '../../../../contract/admin-lines-update.js';
import type { LinesService } from '../../../../domain/lines/service.js';

export function adminUpdateLineRoute(app: TypedApp, deps: { lines: LinesService }) {
  route(app, adminUpdateLine, async (req) => {
    const { line, tenant } = await deps.lines.update(req.params.id, req.body);
    return { phone_line: adminPhoneLine(line, tenant.slug) };
  });
}
