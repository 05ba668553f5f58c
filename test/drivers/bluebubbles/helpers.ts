/** Fakes for the driver context: an in-memory state port and an events collector. */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect } from 'vitest';
import { DriverFailure, type DriverContext, type DriverEvents, type DriverState, type InboundMessage, type LineReaction, type OutboundFile } from '../../../src/drivers/types.js';

export function memoryState(): DriverState & { epochs: Map<string, string>; chats: Map<string, string> } {
  const epochs = new Map<string, string>();
  /** `${lineId} ${handle}` → chat key */
  const chats = new Map<string, string>();
  return {
    epochs,
    chats,
    async directChatKey(lineId, handle) {
      return chats.get(`${lineId} ${handle}`);
    },
    async setDirectChatKey(lineId, handle, chatKey) {
      chats.set(`${lineId} ${handle}`, chatKey);
    },
    async serviceEpoch(lineId) {
      return epochs.get(lineId);
    },
    async setServiceEpoch(lineId, epoch) {
      epochs.set(lineId, epoch);
    },
    async replaceServiceEpoch(lineId, expected, epoch) {
      const wrote = epochs.get(lineId) === expected;
      if (wrote) epochs.set(lineId, epoch);
      return { epoch: epochs.get(lineId)!, wrote };
    },
    async appendDeviceLog() {},
    async findDeviceLog() {
      return undefined;
    },
  };
}

/** An inbound message as the collector read it: each media part opened and read whole (as the domain would store it). */
export type ReadMessage = Omit<InboundMessage, 'parts'> & {
  parts: ({ type: 'text'; value: string } | { type: 'media'; filename?: string; mimeType?: string; bytes: Buffer })[];
};

/** Reads each media part of `message` (opening it, so a driver's download happens here, as in the domain). */
export async function readMessage(message: InboundMessage): Promise<ReadMessage> {
  const parts: ReadMessage['parts'] = [];
  for (const p of message.parts) {
    if (p.type === 'text') {
      parts.push(p);
      continue;
    }
    const file = await p.open();
    const chunks: Buffer[] = [];
    for await (const c of file.body) chunks.push(c as Buffer);
    parts.push({ type: 'media', filename: p.filename || file.filename, mimeType: p.mimeType || file.mimeType, bytes: Buffer.concat(chunks) });
  }
  return { ...message, parts };
}

export interface Collector extends DriverEvents {
  inbound_: { lineId: string; message: ReadMessage }[];
  receipts: { lineId: string; guid: string; kind: 'delivered' | 'read'; atMs: number }[];
  edits: { lineId: string; guid: string; text: string; atMs: number }[];
  matches: { lineId: string; provisionalGuid: string; realGuid: string }[];
  reactions: { lineId: string; reaction: LineReaction }[];
  failures: { lineId: string; guid: string }[];
  /** The guids `sendFailed` answers true for (the service's messages still `sent`). */
  failable: Set<string>;
}

export function collector(): Collector {
  const c: Collector = {
    inbound_: [],
    receipts: [],
    edits: [],
    matches: [],
    reactions: [],
    failures: [],
    failable: new Set(),
    async reaction(lineId, reaction) {
      c.reactions.push({ lineId, reaction });
    },
    async inbound(lineId, message) {
      c.inbound_.push({ lineId, message: await readMessage(message) });
    },
    async receipt(lineId, guid, kind, atMs) {
      c.receipts.push({ lineId, guid, kind, atMs });
    },
    async edited(lineId, guid, text, atMs) {
      c.edits.push({ lineId, guid, text, atMs });
    },
    async sendMatched(lineId, provisionalGuid, realGuid) {
      c.matches.push({ lineId, provisionalGuid, realGuid });
      return true;
    },
    async sendFailed(lineId, guid) {
      c.failures.push({ lineId, guid });
      return c.failable.has(guid);
    },
  };
  return c;
}

export function context(config: Record<string, unknown>, over: Partial<DriverContext> = {}): DriverContext & { state: ReturnType<typeof memoryState>; events: Collector } {
  return {
    lineId: randomUUID(),
    phoneNumber: '+14155550000',
    config,
    events: collector(),
    state: memoryState(),
    now: () => Date.now(),
    ...over,
  } as DriverContext & { state: ReturnType<typeof memoryState>; events: Collector };
}

export function file(filename: string, mimeType: string, bytes: Buffer, attachmentId = `att_${randomUUID().slice(0, 8)}`): OutboundFile {
  return { attachmentId, filename, mimeType, sizeBytes: bytes.length, open: () => Readable.from([bytes]) };
}

/** A few bytes that look like a PNG / a CAF with an Opus description. */
export const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('png-body-1234')]);
export const PNG2 = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('second-image')]);
export const CAF = Buffer.concat([Buffer.from('caff'), Buffer.from([0, 1, 0, 0]), Buffer.from('desc'), Buffer.from('opus-frames-0123456789')]);

/** Polls until `get` gives a value; throws after `timeoutMs` (a deadline for a loaded machine: it returns as soon as the value is there). */
export async function waitFor<T>(get: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The DriverFailure a driver call fails with (the test fails if it succeeds or throws anything else). */
export async function failure(p: Promise<unknown>): Promise<DriverFailure> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(DriverFailure);
    return err as DriverFailure;
  }
  throw new Error('expected a DriverFailure');
}
