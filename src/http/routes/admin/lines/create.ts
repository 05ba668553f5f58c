import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminPhoneLine } from '../../../present/lines.js';
import { adminCreateLine } from '../../../../contract/admin-lines-create.js';
import type { LinesService } from '../../../../domain/lines/service.js';

export function adminCreateLineRoute(app: TypedApp, deps: { lines: LinesService }) {
  route(app, adminCreateLine, async (req, reply) => {
    const { line, tenant } = await deps.lines.create(req.body);
    return reply.status(201).send({ phone_line: adminPhoneLine(line, tenant.slug) });
  });
}
