/**
 * The one path every outbound message takes: choose the line (a conversation
 * sticks to its line; a first touch gets a free line under the limits),
 * record the message as `sending`, hand it to the driver under the message id
 * (its ref), record the outcome: `sent` with the line's guid, or `failed`. The
 * row exists before the driver is called, so a crash never leaves a sent
 * message unrecorded, and never one called sent that did not go out: what a
 * crash leaves `sending` is settled at the next start (reconcile.ts).
 */
import { DomainError } from '../../errors/registry.js';
import type { Chat, Message, MessagePart, PhoneLine, Repos, Tenant } from '../../store/index.js';
import { DriverFailure, NO_FILES, type DriverCapability, type LineDriver, type OutboundFile, type SendLoad, type Target } from '../../drivers/types.js';
import { timeSortableId } from '../ids.js';
import type { MessagingDeps } from './deps.js';
import { changeAnnounced } from './status-events.js';
import type { FirstTouchReservation, Limits } from './limits.js';
import { fromDriverFailure } from './driver-errors.js';
import { DeliveryFailed, DeliveryUnsettled } from './failures.js';
import { sendsFrom } from '../lines/service.js';
import { appleEffectId } from '../effects.js';
import { loadOfFiles, sendWindowEnd } from './send-window.js';
import type { RecordMessage } from './idempotency.js';

export type OutboundContent =
  | { kind: 'text'; text: string; effect?: string; richLinkUrl?: string }
  | { kind: 'rich_link'; url: string }
  | { kind: 'media'; files: OutboundFile[]; grouped: boolean }
  | { kind: 'voice_note'; file: OutboundFile; voiceNoteId: string };

const NEEDS: Record<OutboundContent['kind'], DriverCapability> = {
  text: 'text',
  rich_link: 'text',
  media: 'media',
  voice_note: 'voice_notes',
};

export const newMessageId = (nowMs: number) => `msg_${timeSortableId(nowMs)}`;

/** What the send carries, for its line's window: the files as they are sent (send-window.ts). */
function loadOf(c: OutboundContent): SendLoad {
  if (c.kind === 'media') return loadOfFiles(c.files);
  if (c.kind === 'voice_note') return loadOfFiles([c.file]);
  return NO_FILES;
}

function partsOf(c: OutboundContent): MessagePart[] {
  switch (c.kind) {
    case 'text':
      return [{ type: 'text', value: c.text }, ...(c.richLinkUrl ? [{ type: 'rich_link' as const, url: c.richLinkUrl }] : [])];
    case 'rich_link':
      return [{ type: 'rich_link', url: c.url }];
    case 'media':
      return c.files.map((f) => ({ type: 'media' as const, attachment_id: f.attachmentId, filename: f.filename, mime_type: f.mimeType, size_bytes: f.sizeBytes }));
    case 'voice_note':
      return [{ type: 'voice_note', voice_note_id: c.voiceNoteId }];
  }
}

async function deliver(driver: LineDriver, target: Target, c: OutboundContent, ref: string): Promise<string> {
  switch (c.kind) {
    case 'text':
      return (await driver.sendText(target, c.text, { effect: c.effect && appleEffectId(c.effect), richLinkUrl: c.richLinkUrl, ref })).guid;
    case 'rich_link':
      return (await driver.sendText(target, c.url, { richLinkUrl: c.url, ref })).guid;
    case 'media':
      return (await driver.sendMedia(target, c.files, { grouped: c.grouped, ref })).guids[0]!;
    case 'voice_note':
      return (await driver.sendVoiceNote(target, c.file, { ref })).guid;
  }
}

interface SendOptions {
  /** The line to send from (a voice note's staging line, a requested line for a first touch). */
  pinnedLine?: PhoneLine;
  recipient?: string;
  /** The chat's line as read with the chat, saving a read when the chat is still on it. */
  chatLine?: PhoneLine;
  /** Inserts the message recorded under the request's idempotency claim (idempotency.ts); else it is inserted alone. */
  record?: RecordMessage;
}

export function outbound(deps: MessagingDeps, lim: Limits) {
  const { store, clock, drivers } = deps;

  /**
   * The line for this message; for a first touch, the line's reservation; and whether the
   * conversation moves to that line once the message is out.
   */
  async function lineFor(
    tenant: Tenant,
    chat: Chat,
    need: DriverCapability,
    pinned?: PhoneLine,
    known?: PhoneLine,
  ): Promise<{ line: PhoneLine; firstTouch?: FirstTouchReservation; pin: boolean }> {
    if (pinned) {
      if (!sendsFrom(pinned)) throw new DomainError(3002, 'the phone line is not active or does not send');
      if (!drivers.forLine(pinned).capabilities().has(need)) {
        throw new DomainError(4099, `this line does not support ${need.replace('_', ' ')}`);
      }
      // A voice note goes out on its staging line without moving the conversation.
      if (chat.line_id) return { line: pinned, pin: false };
      return firstTouchOn(await lim.reserveFirstTouchLine(tenant, need, pinned));
    }
    if (chat.line_id) {
      const current = known?.id === chat.line_id ? known : await store.lines.get(chat.line_id);
      const ours = current !== undefined && current.tenant_id === tenant.id;
      if (ours && sendsFrom(current)) {
        if (!drivers.forLine(current).capabilities().has(need)) {
          throw new DomainError(4099, `this conversation's line does not support ${need.replace('_', ' ')}`);
        }
        return { line: current, pin: false };
      }
      // A group exists on its line's Mac only: it cannot move to another line.
      if (chat.is_group) {
        if (ours) throw new DomainError(3002, "this group's line is not active; the group can only be reached through it");
        throw new DomainError(4099, "this group's line is no longer assigned to this project", { variant: 'context' });
      }
      // The direct conversation's line went away: move it to another active line.
      const [next] = await lim.candidateLines(tenant, need);
      return { line: next!, pin: true };
    }
    return firstTouchOn(await lim.reserveFirstTouchLine(tenant, need));
  }

  const firstTouchOn = (reservation: FirstTouchReservation) => ({ line: reservation.line, firstTouch: reservation, pin: true });

  /**
   * First touches into one chat run one at a time in this process, so the second follows the
   * first onto its line in order, without reserving a line of its own. Between processes the
   * chat's claim in sendNow decides.
   */
  const firstTouches = new Map<string, Promise<unknown>>();
  async function oneFirstTouchAtATime<T>(chat: Chat, work: () => Promise<T>): Promise<T> {
    if (chat.line_id) return work();
    const before = firstTouches.get(chat.id);
    const mine = (async () => {
      if (before) {
        await before.catch(() => undefined);
        // The send before this one may have pinned the chat to its line.
        const fresh = await store.chats.getChat(chat.tenant_id, chat.id);
        if (fresh?.line_id) chat.line_id = fresh.line_id;
      }
      return work();
    })();
    firstTouches.set(chat.id, mine);
    try {
      return await mine;
    } finally {
      if (firstTouches.get(chat.id) === mine) firstTouches.delete(chat.id);
    }
  }

  return {
    /** Sends `content` into `chat`; returns the recorded message. */
    send(tenant: Tenant, chat: Chat, content: OutboundContent, opts: SendOptions = {}): Promise<{ message: Message; line: PhoneLine }> {
      return oneFirstTouchAtATime(chat, () => sendNow(tenant, chat, content, opts));
    },
  };

  async function sendNow(tenant: Tenant, chat: Chat, content: OutboundContent, opts: SendOptions): Promise<{ message: Message; line: PhoneLine }> {
    const { line, firstTouch, pin } = await lineFor(tenant, chat, NEEDS[content.kind], opts.pinnedLine, opts.chatLine);
    const now = clock.now();
    const message: Message = {
      id: newMessageId(now),
      tenant_id: tenant.id,
      chat_id: chat.id,
      line_id: line.id,
      direction: 'outbound',
      sender_handle: line.phone_number,
      parts: partsOf(content),
      effect: content.kind === 'text' ? content.effect ?? null : null,
      status: 'sending',
      provider_guid: null,
      first_touch: firstTouch !== undefined,
      error_code: null,
      sent_at: now,
      delivered_at: null,
      read_at: null,
      edited_at: null,
    };
    const record = (tx?: Repos) => (opts.record ? opts.record(message, tx) : (tx ?? store).messages.insert(message));
    if (firstTouch) {
      // The chat is pinned to the line before anything goes out, in one write with the message
      // that pins it: a chat is never left pinned with nothing sent (a crash, a failed insert).
      // Of two first touches racing in two processes one wins; the other gives its line back
      // and follows onto the winner's.
      let claimed: boolean;
      try {
        claimed = await store.transaction(async (tx) => {
          if (!(await tx.chats.claimLine(chat.id, line.id))) return false;
          await record(tx);
          return true;
        });
      } catch (err) {
        await firstTouch.release().catch(() => undefined);
        throw err;
      }
      if (!claimed) {
        await firstTouch.release();
        chat.line_id = (await store.chats.getChat(chat.tenant_id, chat.id))?.line_id ?? null;
        return sendNow(tenant, chat, content, opts);
      }
      chat.line_id = line.id;
    } else {
      await record();
    }
    const target: Target = chat.is_group
      ? { kind: 'group', chatKey: chat.chat_key ?? '' }
      : { kind: 'direct', handle: opts.recipient ?? (await store.chats.participants(chat.id))[0] ?? '' };
    try {
      const guid = await deliver(drivers.forLine(line), target, content, message.id);
      const markSent = async (repos: Repos) => {
        await repos.messages.markSent(message.id, guid);
        return true;
      };
      await changeAnnounced(deps.statusEvents, store, 'message.sent', message, markSent);
      message.provider_guid = guid;
      message.status = 'sent';
    } catch (err) {
      if (err instanceof DriverFailure && err.kind === 'ambiguous') {
        // The line may have sent it: the message stays `sending` (and a first touch keeps its
        // line) until reconciliation asks the line (reconcile.ts), as soon as its window ends.
        deps.settling?.settleAt(sendWindowEnd(message, drivers.forLine(line), loadOf(content)));
        const failure = fromDriverFailure(err) as DomainError;
        throw new DeliveryUnsettled(
          new DomainError(3002, `${failure.message}. It stays \`sending\` until the line tells whether it went out: look at GET /api/v1/messages/${message.id} before sending it again`),
          message.id,
          line.id,
        );
      }
      const failure = fromDriverFailure(err, content.kind === 'voice_note' ? 'voice notes' : undefined);
      const code = failure instanceof DomainError && typeof failure.code === 'number' ? failure.code : 3001;
      await store.messages.update(message.id, { status: 'failed', error_code: code });
      message.status = 'failed';
      // A failed first touch pins nothing: the next attempt chooses a line afresh.
      if (firstTouch) {
        await store.chats.releaseLine(chat.id, line.id);
        chat.line_id = null;
      }
      // The failure names the recorded message and its line (the send's answer reports them).
      throw failure instanceof DomainError ? new DeliveryFailed(failure, message.id, line.id) : failure;
    }
    if (pin && chat.line_id !== line.id) {
      await store.chats.pinLine(chat.id, line.id);
      chat.line_id = line.id;
    }
    return { message, line };
  }
}

export type Outbound = ReturnType<typeof outbound>;
