/**
 * Tapbacks as BlueBubbles reports them: a message whose `associatedMessageGuid` names the
 * message it is on (with Apple's part prefix, `p:0/…`, or `bp:…` for a balloon) and whose
 * `associatedMessageType` says which. BlueBubbles Server serializes the type as a name ("love",
 * "-love" for a removal: its ReactionIdToString transformer); the chat.db codes underneath are
 * 2000–2005 to add love, like, dislike, laugh, emphasize, question and 3000–3005 to remove them,
 * and are accepted too (as numbers or numeric strings). Anything else (stickers: 1000) is not
 * a tapback.
 */
import { TAPBACKS, type Tapback } from '../types.js';
import type { BBMessage } from './api-types.js';

export function parseTapbackType(type: unknown): { reaction: Tapback; remove: boolean } | undefined {
  if (typeof type === 'string' && /^\d+$/.test(type)) type = Number(type);
  if (typeof type === 'number') {
    const add = type >= 2000 && type <= 2005;
    const remove = type >= 3000 && type <= 3005;
    if (!add && !remove) return undefined;
    return { reaction: TAPBACKS[type % 1000]!, remove };
  }
  if (typeof type !== 'string') return undefined;
  const remove = type.startsWith('-');
  const name = (remove ? type.slice(1) : type).toLowerCase();
  return (TAPBACKS as readonly string[]).includes(name) ? { reaction: name as Tapback, remove } : undefined;
}

/** `p:0/GUID` or `bp:GUID` → `GUID`. */
export const targetGuid = (associated: string) => associated.replace(/^(?:p:\d+\/|bp:)/, '');

/** The tapback a message carries, if it is one. */
export function tapbackOf(m: BBMessage): { targetGuid: string; reaction: Tapback; remove: boolean } | undefined {
  if (typeof m.associatedMessageGuid !== 'string' || m.associatedMessageGuid === '') return undefined;
  const t = parseTapbackType(m.associatedMessageType);
  return t && { targetGuid: targetGuid(m.associatedMessageGuid), ...t };
}
