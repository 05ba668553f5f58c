/**
 * Ogg Opus from a CAF's Opus packets, without re-encoding (RFC 7845 in RFC 3533 pages), so a
 * browser can play a voice note (none plays Opus in CAF).
 *
 *   page 0  BOS, granule 0: OpusHead (version 1, channels, pre-skip, input rate, gain 0, family 0)
 *   page 1  granule 0: OpusTags (vendor, no comments)
 *   then    the audio packets, up to 50 per page; each page's granule position is the 48 kHz
 *           sample count at the end of its last packet (pre-skip included), and the last
 *           page (EOS) ends at pre-skip + valid samples, which trims the encoder's padding.
 *
 * Granules count 48 kHz samples whatever the CAF's rate (RFC 7845 §4); a packet's duration
 * comes from its TOC byte (RFC 6716 §3.1), so variable frame sizes are timed right.
 */
import { readCaf, packetSizesOf } from './caf.js';
import { AudioRejected } from './errors.js';

const PACKETS_PER_PAGE = 50;
const VENDOR = 'blueline';

// CRC-32 of Ogg: polynomial 0x04c11db7, initial 0, no reflection, no final xor.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

export function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]!) & 0xff]!) >>> 0;
  return crc >>> 0;
}

/** Samples at 48 kHz of one Opus packet, from its TOC byte and frame count code. */
export function opusPacketSamples(packet: Uint8Array): number {
  if (packet.length === 0) return 0;
  const toc = packet[0]!;
  const config = toc >> 3;
  let frame: number;
  if (config < 12) frame = [480, 960, 1920, 2880][config & 3]!; // SILK: 10/20/40/60 ms
  else if (config < 16) frame = [480, 960][config & 1]!; // hybrid: 10/20 ms
  else frame = [120, 240, 480, 960][config & 3]!; // CELT: 2.5/5/10/20 ms
  const code = toc & 3;
  const frames = code === 0 ? 1 : code === 3 ? (packet[1] ?? 0) & 0x3f : 2;
  return frame * frames;
}

export interface OggPacket {
  data: Uint8Array;
  /** granule position once this packet ends, or -1 when no packet ends on its page */
  granule: bigint;
}

/** One Ogg page holding whole packets. */
export function oggPage(packets: readonly Uint8Array[], o: { serial: number; sequence: number; granule: bigint; bos?: boolean; eos?: boolean }): Buffer {
  const lacing: number[] = [];
  for (const p of packets) {
    let n = p.length;
    while (n >= 255) {
      lacing.push(255);
      n -= 255;
    }
    lacing.push(n);
  }
  if (lacing.length > 255) throw new RangeError('too many segments for one Ogg page');
  const bodyLength = packets.reduce((s, p) => s + p.length, 0);
  const page = Buffer.alloc(27 + lacing.length + bodyLength);
  page.write('OggS', 0, 'latin1');
  page[4] = 0; // version
  page[5] = (o.bos ? 0x02 : 0) | (o.eos ? 0x04 : 0);
  page.writeBigInt64LE(o.granule, 6);
  page.writeUInt32LE(o.serial >>> 0, 14);
  page.writeUInt32LE(o.sequence >>> 0, 18);
  page.writeUInt32LE(0, 22); // CRC, computed over the page with this field zero
  page[26] = lacing.length;
  for (let i = 0; i < lacing.length; i++) page[27 + i] = lacing[i]!;
  let at = 27 + lacing.length;
  for (const p of packets) {
    page.set(p, at);
    at += p.length;
  }
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}

export function opusHead(o: { channels: number; preSkip: number; inputRate: number }): Buffer {
  const b = Buffer.alloc(19);
  b.write('OpusHead', 0, 'latin1');
  b[8] = 1;
  b[9] = o.channels;
  b.writeUInt16LE(o.preSkip, 10);
  b.writeUInt32LE(o.inputRate, 12);
  b.writeInt16LE(0, 16);
  b[18] = 0;
  return b;
}

function opusTags(): Buffer {
  const vendor = Buffer.from(VENDOR);
  const b = Buffer.alloc(8 + 4 + vendor.length + 4);
  b.write('OpusTags', 0, 'latin1');
  b.writeUInt32LE(vendor.length, 8);
  vendor.copy(b, 12);
  b.writeUInt32LE(0, 12 + vendor.length);
  return b;
}

/** An Opus CAF as an Ogg Opus file: same packets, same timing. */
export function cafToOggOpus(caf: Uint8Array, serial = 0x426c756e): Buffer {
  const file = readCaf(caf);
  if (file.desc.formatId !== 'opus') throw new AudioRejected('codec', `CAF holds ${file.desc.formatId.trim()}, not Opus`);
  const sizes = packetSizesOf(file);
  const scale = 48000 / file.desc.sampleRate;
  const preSkip = Math.round((file.pakt?.primingFrames ?? 0) * scale);
  const validSamples = file.pakt && file.pakt.numberValidFrames > 0 ? Math.round(file.pakt.numberValidFrames * scale) : undefined;

  const pages: Buffer[] = [];
  let sequence = 0;
  pages.push(oggPage([opusHead({ channels: file.desc.channelsPerFrame || 1, preSkip, inputRate: file.desc.sampleRate })], { serial, sequence: sequence++, granule: 0n, bos: true }));
  pages.push(oggPage([opusTags()], { serial, sequence: sequence++, granule: 0n }));

  let offset = file.audioOffset;
  let granule = preSkip;
  let pending: Uint8Array[] = [];
  const flush = (eos: boolean) => {
    // The last page's granule trims the padding after the real end (RFC 7845 §4.4).
    const end = eos && validSamples !== undefined ? Math.min(granule, preSkip + validSamples) : granule;
    pages.push(oggPage(pending, { serial, sequence: sequence++, granule: BigInt(end), eos }));
    pending = [];
  };
  for (let i = 0; i < sizes.length; i++) {
    const packet = caf.subarray(offset, offset + sizes[i]!);
    if (packet.length !== sizes[i]) throw new AudioRejected('packet_table', 'CAF packet data is shorter than its packet table says');
    offset += sizes[i]!;
    granule += opusPacketSamples(packet);
    pending.push(packet);
    if (pending.length === PACKETS_PER_PAGE && i < sizes.length - 1) flush(false);
  }
  flush(true);
  return Buffer.concat(pages);
}
