/** The messaging area assembled: limits, idempotency, the outbound path and the operations on it. */
import type { MessagingDeps } from './deps.js';
import { limits } from './limits.js';
import { idempotency } from './idempotency.js';
import { outbound } from './outbound.js';
import { sendService } from './send.js';
import { chatsService } from './chats.js';
import { messageOps } from './message-ops.js';
import { groupChanges } from './group-changes.js';
import { messageReactions } from './reactions.js';

export function messaging(deps: MessagingDeps) {
  const lim = limits(deps);
  const idem = idempotency(deps);
  const out = outbound(deps, lim);
  return {
    limits: lim,
    send: sendService(deps, out, idem),
    chats: chatsService(deps, lim, out, idem),
    ops: messageOps(deps),
    groups: groupChanges(deps),
    reactions: messageReactions(deps),
  };
}

export type Messaging = ReturnType<typeof messaging>;
export type { MediaSource } from './deps.js';
