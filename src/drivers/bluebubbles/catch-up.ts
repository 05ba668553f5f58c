/**
 * Catch-up reads: what the line's BlueBubbles Server holds, through its message query route
 * (MessageRouter.query, validated by MessageValidator.queryBodyRules):
 *
 *   POST /api/v1/message/query  { after, sort: 'ASC', limit, offset, with: [...] }
 *   → { status: 200, message, data: Message[], metadata: { offset, limit, total, count } }
 *
 * `after` is Unix ms and inclusive (`message.date >= after`), rows are ordered by
 * dateCreated, `limit` is at most 1000. Messages are serialized in full (not "for
 * notification"), so a new one is reported without fetching it again.
 */
import { DriverFailure } from '../types.js';
import type { BBMessage } from './api-types.js';
import { BlueBubblesClient } from './client.js';
import { parseConfig } from './config.js';
import { toDriverFailure } from './errors.js';
import { handleBlueBubblesWebhook, type BlueBubblesWebhookDeps, type WebhookOutcome } from './inbound.js';

/** What each message comes with: its chat (and members, for groups: MessageRouter.query loads them with chat.participants), attachments, and the attributedBody that says where each attachment sits. */
export const CATCH_UP_WITH = ['chat', 'chat.participants', 'attachment', 'attributedBody'] as const;
/** BlueBubbles' own maximum page. */
export const MAX_PAGE = 1000;

/** The webhook handler's: a found message is handled as its webhook would be, the person's chat kept too. */
type Deps = BlueBubblesWebhookDeps;

function clientFor(deps: Deps): BlueBubblesClient {
  const parsed = parseConfig(deps.config);
  if (!parsed.ok) throw new DriverFailure('line_down', `the line's BlueBubbles driver_config is invalid: ${parsed.problems.join('; ')}`);
  return new BlueBubblesClient(parsed.config, deps.fetch);
}

async function query(client: BlueBubblesClient, body: Record<string, unknown>): Promise<BBMessage[]> {
  try {
    const env = await client.request<BBMessage[]>('POST', '/api/v1/message/query', { json: body });
    if (!Array.isArray(env.data)) throw new DriverFailure('line_down', 'BlueBubbles answered the message query without a list');
    return env.data;
  } catch (err) {
    throw toDriverFailure(err, 'query');
  }
}

/** The newest message's dateCreated on the server (0 when it has none): where a new line's catch-up starts. */
export async function newestMessageDate(deps: Deps): Promise<number> {
  const [m] = await query(clientFor(deps), { limit: 1, offset: 0, sort: 'DESC' });
  return typeof m?.dateCreated === 'number' && m.dateCreated > 0 ? m.dateCreated : 0;
}

/**
 * Every message created at or after `afterMs`, oldest first, page by page. Paging by offset
 * is stable here: `after` is fixed and the order ascending, so new messages only add pages.
 */
export async function* messagesSince(deps: Deps, afterMs: number, pageSize: number): AsyncGenerator<BBMessage[]> {
  const client = clientFor(deps);
  const limit = Math.max(1, Math.min(MAX_PAGE, pageSize));
  for (let offset = 0; ; ) {
    const page = await query(client, { after: afterMs, sort: 'ASC', limit, offset, with: [...CATCH_UP_WITH] });
    if (page.length > 0) yield page;
    if (page.length < limit) return;
    offset += page.length;
  }
}

/** Reports one message found by catch-up exactly as a `new-message` webhook with it would be. */
export function ingestFound(deps: Deps, lineId: string, m: BBMessage): Promise<WebhookOutcome> {
  return handleBlueBubblesWebhook(deps, lineId, { type: 'new-message', data: m });
}
