/**
 * The simulated device's log in words: each kind the simulator driver writes (drivers/simulator)
 * as a line a person reads ("❤️ Loved ‘Is the blue one…’"), an unknown kind as its plain fields.
 * No JSX here: test/console/device-log.test.ts reads the service's real log with it.
 */
import type { Res } from '@blueline/sdk';
import { TAPBACK_EMOJI, TAPBACK_VERB, tapbackOf } from '../../tapbacks.js';

export type DeviceLogEntry = Res<'/admin/v1/lines/{id}/simulate/sent', 'get'>['sent'][number];

/** A message the device sent, as its log entries tell it: found by guid (tapbacks, edits) or by message id (ref). */
export interface SentMessage {
  messageId?: string;
  /** a direct message's recipient */
  to?: string;
  /** a group message's chat */
  chatKey?: string;
  text?: string;
  files: string[];
  voiceNote: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const field = (o: unknown, key: string): unknown => (o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined);
const filesOf = (parts: unknown): string[] =>
  Array.isArray(parts) ? parts.map((p: unknown) => str(field(p, 'filename')) ?? str(field(p, 'attachment_id'))).filter((x): x is string => !!x) : [];

export const clip = (s: string, max = 48) => (s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s);

/** A sent message in a few words: its text, else its files, else what it was. */
export function gist(m: Pick<SentMessage, 'text' | 'files' | 'voiceNote'>): string | undefined {
  if (m.text) return m.text;
  if (m.files.length > 0) return `📎 ${m.files.join(', ')}`;
  return m.voiceNote ? '🎙 Voice note' : undefined;
}

const SENDS = new Set(['text', 'media', 'media_group', 'voice_note', 'create_group']);

/** The messages the log shows the device sending, by guid and by message id (a media send is one entry per file). */
export function sentMessages(entries: readonly DeviceLogEntry[]): { byGuid: Map<string, SentMessage>; byId: Map<string, SentMessage> } {
  const byGuid = new Map<string, SentMessage>();
  const byId = new Map<string, SentMessage>();
  // Oldest first, so a message's files come in the order they went.
  for (const e of [...entries].reverse()) {
    if (!SENDS.has(e.kind)) continue;
    const messageId = str(e.ref);
    const m = (messageId && byId.get(messageId)) || { messageId, to: str(e.to), chatKey: str(e.chat_key), text: str(e.text), files: [], voiceNote: e.kind === 'voice_note' };
    m.files.push(...(e.kind === 'voice_note' ? [] : filesOf(e.parts)));
    if (messageId) byId.set(messageId, m);
    const guid = str(e.guid);
    if (guid) byGuid.set(guid, m);
  }
  return { byGuid, byId };
}

/** The message an entry points at (by guid), quoted: its text as sent, else its text now, else its id. */
function quoted(e: DeviceLogEntry, byGuid: Map<string, SentMessage>, prefer: 'sent' | 'now'): string {
  const logged = byGuid.get(str(e.guid) ?? '');
  const sent = logged && gist(logged);
  const now = str(e.message_text);
  const words = (prefer === 'sent' ? sent ?? now : now ?? sent) ?? str(e.message_id) ?? str(e.guid) ?? 'a message';
  return `‘${clip(words)}’`;
}

/** Whom a tapback or edit concerns: the recipient of our message it is on, or the sender of theirs. */
function recipientOf(e: DeviceLogEntry, byGuid: Map<string, SentMessage>): string | undefined {
  const m = byGuid.get(str(e.guid) ?? '');
  return m?.to ?? m?.chatKey ?? str(e.message_from);
}

/** Who the entry went to (a handle or a group's chat key), and what it did, in words. */
export function describeEntry(e: DeviceLogEntry, byGuid: Map<string, SentMessage>): { to?: string; words: string } {
  const to = str(e.to) ?? str(e.chat_key);
  switch (e.kind) {
    case 'text': {
      const extras = [str(e.effect) && `effect ${str(e.effect)}`, str(e.rich_link) && str(e.rich_link) !== str(e.text) && `🔗 ${str(e.rich_link)}`].filter(Boolean);
      return { to, words: [`“${str(e.text) ?? ''}”`, ...extras].join(' · ') };
    }
    case 'media':
    case 'media_group':
      return { to, words: `📎 ${filesOf(e.parts).join(', ') || 'a file'}${e.kind === 'media_group' ? ' (one group)' : ''}` };
    case 'voice_note':
      return { to, words: '🎙 Voice note' };
    case 'edit': {
      const part = typeof e.part_index === 'number' && e.part_index > 0 ? `part ${e.part_index + 1} of ` : '';
      return { to: recipientOf(e, byGuid), words: `Edited ${part}${quoted(e, byGuid, 'sent')} to “${str(e.text) ?? ''}”` };
    }
    case 'reaction': {
      const t = tapbackOf(e.tapback);
      const mark = t ? TAPBACK_EMOJI[t] : str(e.tapback) ?? 'a tapback';
      const on = quoted(e, byGuid, 'now');
      return { to: recipientOf(e, byGuid), words: e.remove === true ? `Removed ${mark} from ${on}` : `${mark} ${t ? TAPBACK_VERB[t] : 'Reacted to'} ${on}` };
    }
    case 'add_participant':
      return { to, words: `Added ${str(e.handle) ?? 'someone'} to the group` };
    case 'remove_participant':
      return { to, words: `Removed ${str(e.handle) ?? 'someone'} from the group` };
    case 'rename_group':
      return { to, words: str(e.display_name) ? `Named the group “${str(e.display_name)}”` : 'Took the group’s name off' };
    case 'leave_group':
      return { to, words: 'Left the group' };
    case 'create_group':
      return { to: strings(e.handles).join(', ') || undefined, words: `Started a group${str(e.text) ? ` with “${str(e.text)}”` : ''}` };
    default:
      return { to, words: clip(plainFields(e).join(' · ') || e.kind, 120) };
  }
}

/** An entry's fields as "name: value" (nested ones by their path), for a kind this screen does not know and for the hover text. */
export function plainFields(e: Record<string, unknown>, skip: readonly string[] = ['id', 'kind', 'at', 'to', 'chat_key']): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (v === null || v === undefined || v === '') return;
    if (Array.isArray(v)) {
      if (v.every((x) => typeof x !== 'object' || x === null)) out.push(`${path}: ${v.join(', ')}`);
      else v.forEach((x, i) => walk(x, `${path} ${i + 1}`));
    } else if (typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, path ? `${path} ${k}` : k);
    } else {
      out.push(`${path}: ${String(v)}`);
    }
  };
  for (const [k, v] of Object.entries(e)) if (!skip.includes(k)) walk(v, k);
  return out;
}
