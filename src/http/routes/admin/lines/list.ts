import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminPhoneLine } from '../../../present/lines.js';
import { adminListLines } from '../../../../contract/admin-lines-list.js';
import type { LinesService } from '../../../../domain/lines/service.js';

export function adminListLinesRoute(app: TypedApp, deps: { lines: LinesService }) {
  route(app, adminListLines, async () => ({
    phone_lines: (await deps.lines.listWithTenants()).map(({ line, tenantSlug }) => adminPhoneLine(line, tenantSlug)),
  }));
}
