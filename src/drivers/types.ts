/**
 * The line driver contract: what a phone line can do and how it reports back.
 * Drivers never touch the store; the domain hands them a context with the
 * callbacks and persistence ports they may use.
 */
import type { Readable } from 'node:stream';

export const DRIVER_CAPABILITIES = ['text', 'media', 'grouped_media', 'voice_notes', 'edit', 'react', 'participants', 'create_group'] as const;
export type DriverCapability = (typeof DRIVER_CAPABILITIES)[number];

/** Where a message goes: a person's handle, or a group chat by the provider's chat key. */
export type Target = { kind: 'direct'; handle: string } | { kind: 'group'; chatKey: string };

export interface OutboundFile {
  attachmentId: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
  open(): Readable;
}

/**
 * `ambiguous`: the line got the request but its answer never came (a timeout, a connection cut
 * mid-answer): the message may or may not have gone out, and only the line can tell later.
 */
export type DriverFailureKind = 'unreachable' | 'line_down' | 'unsupported' | 'rejected' | 'not_found' | 'ambiguous';

/** A typed failure the domain maps onto the spec's codes. */
export class DriverFailure extends Error {
  constructor(
    readonly kind: DriverFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'DriverFailure';
  }
}

export const TAPBACKS = ['love', 'like', 'dislike', 'laugh', 'emphasize', 'question'] as const;
export type Tapback = (typeof TAPBACKS)[number];

/** A tapback put on (or taken off) a message of the line. */
export interface LineReaction {
  /** the provider guid of the message it is on (without BlueBubbles' `p:0/` part prefix) */
  targetGuid: string;
  reaction: Tapback;
  remove: boolean;
  /** the sender's handle, normalized; null: the line itself (made on its Mac) */
  from: string | null;
  atMs: number;
}

/** An inbound file's bytes, opened, and what the answer carrying them says of the file. */
export interface InboundFileBody {
  /**
   * The bytes as they arrive, never held whole. It errors when they stop coming (the provider cut
   * or stalled mid-file: the driver's own failure, e.g. a DriverFailure); read it to its end or
   * destroy it (that lets go of the download).
   */
  body: Readable;
  /** The type and name the provider served it with, for a part that names none. */
  mimeType?: string;
  filename?: string;
}

/** A media part of an inbound message: its bytes are fetched only when it is opened. */
export interface InboundMedia {
  type: 'media';
  filename?: string;
  mimeType?: string;
  /**
   * Starts fetching the bytes (a download begins here, not before). The domain calls it at most
   * once, and only for a message it is about to record (never for one it has already). Rejects
   * when the file cannot be had now (the driver's failure, as a send's would be).
   */
  open(): Promise<InboundFileBody>;
}

export interface InboundMessage {
  guid: string;
  /** the sender's handle, normalized */
  from: string;
  /** set for group messages: the provider's chat key and the members */
  group?: { chatKey: string; handles: string[]; displayName?: string };
  parts: ({ type: 'text'; value: string } | InboundMedia)[];
  sentAt: number;
}

export interface DriverEvents {
  /** Records a message; false when it was not recorded again (the line reported it before). */
  inbound(lineId: string, message: InboundMessage): Promise<boolean | void>;
  /** Resolves once stored; one whose guid names no message yet (a send not answered yet) is tried again for a while. */
  receipt(lineId: string, guid: string, kind: 'delivered' | 'read', atMs: number): Promise<void>;
  /** Someone put a tapback on a message of this line or took one back (never a message of its own). */
  reaction(lineId: string, reaction: LineReaction): Promise<void>;
  /** The sender edited an inbound message: its text is now `text`. */
  edited(lineId: string, guid: string, text: string, atMs: number): Promise<void>;
  /**
   * The provider named its real guid for a send the driver reported under a provisional one
   * (BlueBubbles' tempGuid): the message is known by `realGuid` from now on, in every process.
   * False when this line sent no message by either guid.
   */
  sendMatched(lineId: string, provisionalGuid: string, realGuid: string): Promise<boolean>;
  /**
   * A message the line had accepted (known by `guid`) failed after all: Messages could not deliver
   * it. False when this line has no such message that no receipt reached (unknown, already
   * delivered or read, or failed); an edited one fails too. An unknown guid may be a send not
   * answered yet: the failure is tried again for a while, and may still fail it after this resolves.
   */
  sendFailed(lineId: string, guid: string): Promise<boolean>;
}

/** Persistence a driver may keep in the database through the domain (the simulator's device log, epochs). */
export interface DriverStatePort {
  serviceEpoch(lineId: string): Promise<string | undefined>;
  setServiceEpoch(lineId: string, epoch: string, nowMs: number): Promise<void>;
  appendDeviceLog(id: string, lineId: string, entry: unknown, nowMs: number): Promise<void>;
  /** The simulator's device log entry made under `ref` since `sinceMs`, if any. */
  findDeviceLog(lineId: string, ref: string, sinceMs: number): Promise<Record<string, unknown> | undefined>;
  /** The provider's own name for the line's one-to-one chat with `handle` (BlueBubbles' chat guid), once the driver learnt it. */
  directChatKey(lineId: string, handle: string): Promise<string | undefined>;
  setDirectChatKey(lineId: string, handle: string, chatKey: string, nowMs: number): Promise<void>;
}

/**
 * What a driver's context gets: the state port, and a line's next epoch named atomically, so
 * several processes on one database that name it at once agree on one (a voice note staged under
 * the loser's would be void).
 */
export interface DriverState extends DriverStatePort {
  /**
   * Writes `epoch` only if the line's stored epoch is still `expected` (undefined: none yet);
   * answers the epoch stored afterwards (`epoch`, or the one another process wrote first) and
   * whether this call wrote it.
   */
  replaceServiceEpoch(lineId: string, expected: string | undefined, epoch: string, nowMs: number): Promise<{ epoch: string; wrote: boolean }>;
}

export interface DriverContext {
  lineId: string;
  phoneNumber: string;
  config: Record<string, unknown>;
  events: DriverEvents;
  state: DriverState;
  now(): number;
}

export interface SendOptions {
  /** Apple's effect id (`com.apple.MobileSMS.expressivesend.impact`, `com.apple.messages.effect.CKEchoEffect`…: domain/effects.ts). */
  effect?: string;
  richLinkUrl?: string;
  /** Our id for this send (the message id): a driver that can be asked later (lookupSend) keeps it with the send. */
  ref?: string;
}

/** What a send carried, for a driver that finds a send by its content (BlueBubbles). */
export interface SendProbe {
  target: Target;
  /** When the message was recorded, just before the driver was called (epoch ms). */
  recordedAt: number;
  texts: string[];
  filenames: string[];
  /** The line's guids already known to belong to other messages: never the answer. */
  isClaimed(guid: string): Promise<boolean>;
}

/**
 * What a send carries, for how long it may take (LineDriver.sendWindowMs): its files (media and
 * voice notes) and their bytes together; a file takes longer the larger it is.
 */
export interface SendLoad {
  files: number;
  bytes: number;
}

/** A text's (or a group creation's) load. */
export const NO_FILES: SendLoad = Object.freeze({ files: 0, bytes: 0 });

/**
 * Whether a send the service lost track of (it stopped between recording the message and the
 * driver's answer) reached the line: `sent` with its guid, `not_sent`, or `unknown` (the line
 * cannot tell now, e.g. it is unreachable: ask again later).
 */
export type SendLookup =
  | { state: 'sent'; guid: string }
  /** The line has the message, and failed it (it did not reach the person): `guid` is the line's message. */
  | { state: 'failed'; guid: string }
  | { state: 'not_sent' }
  | { state: 'unknown'; reason: string };

/** What a group creation carried, for a driver that finds the group by its members and first message (BlueBubbles). */
export interface GroupProbe {
  /** The members asked for (normalized handles), the line itself not among them. */
  handles: string[];
  /** The first message's text. */
  text: string;
  /** When the creation was recorded, just before the driver was called (epoch ms). */
  recordedAt: number;
  /** The line's message guids already known to belong to other messages: never the answer. */
  isClaimed(guid: string): Promise<boolean>;
}

/**
 * Whether a group creation the service lost track of happened on the line: `created` with the
 * group's chat key and its first message's guid, `not_created`, or `unknown` (ask again later).
 */
export type GroupLookup = { state: 'created'; chatKey: string; guid: string; firstMessageFailed?: boolean } | { state: 'not_created' } | { state: 'unknown'; reason: string };

export interface LineDriver {
  capabilities(): ReadonlySet<DriverCapability>;
  /**
   * False when the line's service is known to be down right now (first touches then go to
   * other lines). Drivers without a health signal leave it out: always available.
   */
  available?(): Promise<boolean>;
  /** Changes whenever the line's messaging service restarts. */
  serviceEpoch(): Promise<string>;
  sendText(target: Target, text: string, opts?: SendOptions): Promise<{ guid: string }>;
  sendMedia(target: Target, files: OutboundFile[], opts: { grouped: boolean; ref?: string }): Promise<{ guids: string[] }>;
  sendVoiceNote(target: Target, file: OutboundFile, opts?: { ref?: string }): Promise<{ guid: string }>;
  /** Finds the send made under `ref` (see SendLookup). */
  lookupSend(ref: string, probe: SendProbe): Promise<SendLookup>;
  /**
   * The longest a send carrying `load` can take before its answer (every timeout involved): a
   * send recorded longer ago than this and not found on the line did not go out.
   */
  sendWindowMs(load: SendLoad): number;
  edit(guid: string, partIndex: number, newText: string): Promise<void>;
  react(guid: string, tapback: Tapback, remove: boolean): Promise<void>;
  addParticipant(chatKey: string, handle: string): Promise<void>;
  /** Group changes need the `participants` capability, as adding does. */
  removeParticipant(chatKey: string, handle: string): Promise<void>;
  renameGroup(chatKey: string, displayName: string): Promise<void>;
  /** The line leaves the group. */
  leaveGroup(chatKey: string): Promise<void>;
  /** `ref`: our id for this creation; a driver that can be asked later (lookupGroup) keeps it with it. */
  /** `firstMessageFailed`: the group exists, but Messages failed its first message. */
  createGroup(handles: string[], text: string, opts?: { ref?: string }): Promise<{ chatKey: string; guid: string; firstMessageFailed?: boolean }>;
  /** Finds the group created under `ref` (see GroupLookup); sendWindowMs(NO_FILES) bounds how long a creation takes. */
  lookupGroup(ref: string, probe: GroupProbe): Promise<GroupLookup>;
}
