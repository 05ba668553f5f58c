/**
 * A message its line did not deliver after all: `failed` with 4001 (retryable), its staged voice
 * notes given back while they can still be sent, and a person's chat none of whose messages went
 * out unpinned from its line (as when the line refuses a first touch at once), all in one
 * transaction: a crash cannot leave a failed message's note used up. Two ways get here:
 * reconciliation finds that a send it lost track of never left, or that the line failed it
 * (reconcile.ts); the line reports that Messages failed a message it had accepted (a BlueBubbles
 * `message-send-error`; the simulator's +15005550008).
 */
import type { Message, Repos, Store } from '../../store/index.js';
import type { MediaSource } from './deps.js';
import type { StatusEvents } from './status-events.js';

/** Why a message its line did not deliver failed: delivery failed downstream (retryable). */
export const NOT_SENT_CODE = 4001;

export interface UndeliveredDeps {
  store: Store;
  media?: Pick<MediaSource, 'canGiveBackVoiceNote'>;
  /** Records `message.failed` for the projects that subscribe to it. */
  statusEvents?: Pick<StatusEvents, 'record' | 'recorded'>;
  log?: { warn(obj: object, msg: string): void };
}

/**
 * Fails `m` through `settle` (the conditional update that says whether this call failed it) and
 * gives its voice notes back; false when `settle` found it settled otherwise.
 */
export async function failUndelivered(deps: UndeliveredDeps, m: Message, settle: (tx: Repos) => Promise<boolean>): Promise<boolean> {
  const giveBack: string[] = [];
  for (const p of m.parts) {
    if (p.type !== 'voice_note' || !deps.media) continue;
    try {
      if (await deps.media.canGiveBackVoiceNote(m.tenant_id, p.voice_note_id)) giveBack.push(p.voice_note_id);
    } catch (err) {
      deps.log?.warn({ message_id: m.id, voice_note_id: p.voice_note_id, reason: (err as Error).message }, 'could not tell whether the voice note of an undelivered message can be given back');
    }
  }
  let announced = false;
  const failed = await deps.store.transaction(async (tx) => {
    // Two bubbles of one chat failing at once would each see the other still live and neither
    // unpin the chat: the chat's row makes them take turns (the second sees the first failed).
    await tx.chats.hold(m.chat_id);
    if (!(await settle(tx))) return false;
    for (const id of giveBack) await tx.media.releaseVoiceNote(id);
    // A person's chat whose every message failed pins nothing (as when the line refuses a first
    // touch at once): otherwise the next send would go out as no first touch, and count nowhere.
    // Whichever of its messages fails last releases it, on whichever line it went out: a voice
    // note leaves from its staging line without moving the chat, and may fail after the chat's
    // own line's messages. A line the chat has no message on was not pinned by these messages
    // (a first touch pins its line in one write with its message): left alone. A group stays
    // on its line: it exists only there.
    if (m.line_id && !(await tx.messages.chatHasOtherLive(m.chat_id, m.id))) {
      const chat = await tx.chats.getChat(m.tenant_id, m.chat_id);
      const pinned = chat && !chat.is_group ? chat.line_id : null;
      if (pinned && (pinned === m.line_id || (await tx.messages.chatHasAnyOnLine(m.chat_id, pinned)))) await tx.chats.releaseLine(m.chat_id, pinned);
    }
    announced = (await deps.statusEvents?.record(tx, 'message.failed', { ...m, status: 'failed', error_code: NOT_SENT_CODE })) ?? false;
    return true;
  });
  if (announced) deps.statusEvents!.recorded(m.tenant_id);
  return failed;
}
