/**
 * Finding a send the service lost track of (it stopped between recording the message and
 * BlueBubbles' answer). BlueBubbles keeps a send's tempGuid only in memory (its HTTP
 * service's sendCache) and hands it back once, in the send's answer or in the `new-message`
 * webhook of its emitMessageMatch; nothing stored on the Mac can be looked up by it. What the
 * Mac does keep is the message itself, so the send is found by its content: our own messages
 * (isFromMe) in the chat since the send was recorded (POST /api/v1/message/query with chatGuid,
 * after, sort ASC, with attachments), the first whose text or attachment name is what we sent
 * and whose guid no other message of ours already holds.
 */
import type { BBMessage } from './api-types.js';
import type { BlueBubblesClient } from './client.js';
import type { SendLookup, SendProbe } from '../types.js';
import { chatGuidFor } from './mapping.js';

/** Messages are searched from a little before the send was recorded (the Mac's clock may differ from ours). */
export const LOOKUP_SLACK_MS = 60_000;
const PAGE = 1000;

/** A voice note goes out renamed to .caf: names are compared without their extension. */
const stem = (name: string) => name.replace(/\.[^./]*$/, '').toLowerCase();

function matches(m: BBMessage, probe: SendProbe): boolean {
  if (probe.texts.length > 0 && typeof m.text === 'string' && probe.texts.includes(m.text)) return true;
  const names = new Set(probe.filenames.map(stem));
  return names.size > 0 && (m.attachments ?? []).some((a) => typeof a.transferName === 'string' && names.has(stem(a.transferName)));
}

/** Throws BlueBubbles' own errors (the caller says `unknown` then). */
export async function lookupSentMessage(client: BlueBubblesClient, probe: SendProbe): Promise<SendLookup> {
  const after = Math.max(0, probe.recordedAt - LOOKUP_SLACK_MS);
  for (let offset = 0; ; offset += PAGE) {
    const env = await client.request<BBMessage[]>('POST', '/api/v1/message/query', {
      json: { chatGuid: chatGuidFor(probe.target), with: ['attachment'], after, sort: 'ASC', offset, limit: PAGE },
    });
    const page = Array.isArray(env.data) ? env.data : [];
    for (const m of page) {
      if (m.isFromMe !== true || typeof m.guid !== 'string' || m.guid === '') continue;
      if (!matches(m, probe) || (await probe.isClaimed(m.guid))) continue;
      return { state: 'sent', guid: m.guid };
    }
    if (page.length < PAGE) return { state: 'not_sent' };
  }
}
