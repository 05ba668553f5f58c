import type { TypedApp } from '../../typed.js';
import { principalOf } from '../../auth.js';
import { route } from '../../route.js';
import { listPhoneNumbers } from '../../../contract/phone-numbers-list.js';
import type { LinesService } from '../../../domain/lines/service.js';
import { publicPhoneLine } from '../../present/lines.js';
import type { PhoneLine } from '../../../store/index.js';
import { andThen } from '../../../domain/maybe-promise.js';

export function listPhoneNumbersRoute(app: TypedApp, deps: { lines: LinesService }) {
  // The JSON of each cached list, serialized once (by the route's response schema): every
  // poll of an unchanged list sends the same bytes. A refreshed list is a new array.
  const serialized = new WeakMap<readonly PhoneLine[], string>();

  // Not async: answered synchronously while the tenant's lines are cached.
  route(app, listPhoneNumbers, (req, reply) =>
    andThen(deps.lines.listForTenant(principalOf(req).tenant.id), (lines) => {
      let body = serialized.get(lines);
      if (body === undefined) serialized.set(lines, (body = String(reply.serialize({ phone_numbers: lines.map(publicPhoneLine) }))));
      // A string with a JSON content type is sent as it is.
      void reply.type('application/json; charset=utf-8').send(body);
    }),
  );
}
