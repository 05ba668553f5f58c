/**
 * Apple Core Audio Format (CAF) writer and reader — just what Opus voice notes
 * need. No maintained npm package exists, and the format is small: a 8-byte
 * file header then chunks of (type fourcc, int64 size, body), all big-endian.
 *
 * Layout we write (the shape of iMessage voice notes):
 *   'caff' v1 flags 0
 *   'desc'  sampleRate f64, formatID 'opus', flags 0, bytesPerPacket 0 (VBR),
 *           framesPerPacket 480, channelsPerFrame 1, bitsPerChannel 0
 *   'chan'  kAudioChannelLayoutTag_Mono, bitmap 0, 0 descriptions
 *   'pakt'  numberPackets i64, numberValidFrames i64, primingFrames i32,
 *           remainderFrames i32, then one BER varint byte size per packet
 *   'data'  editCount u32, then the packets back to back
 *
 * Reading is stricter about structure (bounds, truncation) than about chunk
 * order; semantic checks (codec, channels, duration) live in validate.ts.
 */
import { AudioRejected } from './errors.js';

export const kAudioChannelLayoutTag_Mono = (100 << 16) | 1;
const kAudioChannelLayoutTag_UseChannelDescriptions = 0;
const kAudioChannelLayoutTag_UseChannelBitmap = 1 << 16;

export interface CafDescription {
  sampleRate: number;
  /** Four-character code, e.g. 'opus', 'aac ', 'lpcm'. */
  formatId: string;
  formatFlags: number;
  bytesPerPacket: number;
  framesPerPacket: number;
  channelsPerFrame: number;
  bitsPerChannel: number;
}

export interface CafPacketTable {
  numberPackets: number;
  numberValidFrames: number;
  primingFrames: number;
  remainderFrames: number;
  /** Byte size of each packet (from the table, or bytesPerPacket when constant). */
  packetSizes: Uint32Array;
  /** Frames of each packet when framesPerPacket is 0 (variable), else null. */
  packetFrames: Uint32Array | null;
}

export interface CafFile {
  desc: CafDescription;
  /** mChannelLayoutTag of the 'chan' chunk, or null when there is none. */
  channelLayoutTag: number | null;
  /** Channel count the 'chan' chunk implies, or null when unknown/absent. */
  channelLayoutChannels: number | null;
  pakt: CafPacketTable | null;
  editCount: number;
  /** Absolute offset of the first packet byte (after editCount). */
  audioOffset: number;
  /** Bytes of packet data (data chunk size minus the 4-byte editCount). */
  audioBytes: number;
  /** Chunk types in file order, for diagnostics. */
  chunkTypes: string[];
}

// ---------- BER variable-length integers (7 bits per byte, high bit = more follows) ----------

export function varintLength(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

export function writeVarint(out: Uint8Array, at: number, v: number): number {
  const n = varintLength(v);
  for (let i = n - 1; i >= 0; i--) {
    out[at + i] = (v & 0x7f) | (i === n - 1 ? 0 : 0x80);
    v = Math.floor(v / 128);
  }
  return at + n;
}

// ---------- writer ----------

export interface OpusCafInput {
  sampleRate: number;
  framesPerPacket: number;
  packets: readonly Uint8Array[];
  primingFrames: number;
  remainderFrames: number;
}

/** Serialise an Opus packet stream as a mono CAF. numberValidFrames is derived, so it is always consistent. */
export function writeOpusCaf(input: OpusCafInput): Buffer {
  const { packets, framesPerPacket, primingFrames, remainderFrames } = input;
  const validFrames = packets.length * framesPerPacket - primingFrames - remainderFrames;
  if (validFrames < 0) throw new RangeError('priming + remainder exceed the packet frames');

  let tableBytes = 0;
  let audioBytes = 0;
  for (const p of packets) {
    tableBytes += varintLength(p.length);
    audioBytes += p.length;
  }
  const descSize = 32;
  const chanSize = 12;
  const paktSize = 24 + tableBytes;
  const dataSize = 4 + audioBytes;
  const total = 8 + (12 + descSize) + (12 + chanSize) + (12 + paktSize) + (12 + dataSize);
  const buf = Buffer.alloc(total);
  let o = 0;

  const chunk = (type: string, size: number) => {
    buf.write(type, o, 'latin1');
    buf.writeBigInt64BE(BigInt(size), o + 4);
    o += 12;
  };

  buf.write('caff', 0, 'latin1');
  buf.writeUInt16BE(1, 4); // mFileVersion
  buf.writeUInt16BE(0, 6); // mFileFlags
  o = 8;

  chunk('desc', descSize);
  buf.writeDoubleBE(input.sampleRate, o);
  buf.write('opus', o + 8, 'latin1');
  buf.writeUInt32BE(0, o + 12); // mFormatFlags
  buf.writeUInt32BE(0, o + 16); // mBytesPerPacket: 0 = variable, sizes in pakt
  buf.writeUInt32BE(framesPerPacket, o + 20);
  buf.writeUInt32BE(1, o + 24); // mChannelsPerFrame
  buf.writeUInt32BE(0, o + 28); // mBitsPerChannel: 0 for compressed formats
  o += descSize;

  chunk('chan', chanSize);
  buf.writeUInt32BE(kAudioChannelLayoutTag_Mono, o);
  buf.writeUInt32BE(0, o + 4); // mChannelBitmap
  buf.writeUInt32BE(0, o + 8); // mNumberChannelDescriptions
  o += chanSize;

  chunk('pakt', paktSize);
  buf.writeBigInt64BE(BigInt(packets.length), o);
  buf.writeBigInt64BE(BigInt(validFrames), o + 8);
  buf.writeInt32BE(primingFrames, o + 16);
  buf.writeInt32BE(remainderFrames, o + 20);
  o += 24;
  for (const p of packets) o = writeVarint(buf, o, p.length);

  chunk('data', dataSize);
  buf.writeUInt32BE(0, o); // mEditCount
  o += 4;
  for (const p of packets) {
    buf.set(p, o);
    o += p.length;
  }
  return buf;
}

// ---------- reader ----------

function structural(msg: string): never {
  throw new AudioRejected('caf_structure', msg);
}

function fourcc(b: Uint8Array, at: number): string {
  return String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);
}

/** int64 → number, refusing values a JS number cannot hold exactly. */
function i64(dv: DataView, at: number, what: string): number {
  const v = dv.getBigInt64(at);
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) structural(`CAF ${what} is out of range`);
  return Number(v);
}

function layoutChannels(tag: number, bitmap: number, descriptions: number): number | null {
  if (tag === kAudioChannelLayoutTag_UseChannelDescriptions) return descriptions;
  if (tag === kAudioChannelLayoutTag_UseChannelBitmap) {
    let n = 0;
    for (let b = bitmap >>> 0; b; b >>>= 1) n += b & 1;
    return n;
  }
  // Every other layout tag carries its channel count in the low 16 bits.
  return tag & 0xffff;
}

export function readCaf(bytes: Uint8Array): CafFile {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = bytes.length;
  if (len < 8 || fourcc(bytes, 0) !== 'caff') structural("not a CAF file (no 'caff' header)");
  const version = dv.getUint16(4);
  if (version !== 1) structural(`CAF file version is ${version}; only version 1 exists`);

  let desc: CafDescription | null = null;
  let chan: { tag: number; channels: number | null } | null = null;
  let paktBody: { at: number; size: number } | null = null;
  let data: { at: number; size: number } | null = null;
  const chunkTypes: string[] = [];

  let pos = 8;
  while (pos < len) {
    if (pos + 12 > len) structural(`CAF is truncated: ${len - pos} stray bytes where a chunk header should be`);
    const type = fourcc(bytes, pos);
    let size = i64(dv, pos + 4, `'${type}' chunk size`);
    const body = pos + 12;
    chunkTypes.push(type);
    if (chunkTypes.length === 1 && type !== 'desc') structural(`CAF must start with a 'desc' chunk, found '${type}'`);
    if (size === -1) {
      // Only the audio data chunk may leave its size open (writer did not seek back); it then runs to EOF.
      if (type !== 'data') structural(`CAF '${type}' chunk has size -1; only the last 'data' chunk may`);
      size = len - body;
    } else if (size < 0) structural(`CAF '${type}' chunk has a negative size`);
    else if (body + size > len) {
      structural(`CAF '${type}' chunk declares ${size} bytes but only ${len - body} remain (file truncated?)`);
    }

    switch (type) {
      case 'desc':
        if (desc) structural("CAF has more than one 'desc' chunk");
        if (size < 32) structural("CAF 'desc' chunk is too short");
        desc = {
          sampleRate: dv.getFloat64(body),
          formatId: fourcc(bytes, body + 8),
          formatFlags: dv.getUint32(body + 12),
          bytesPerPacket: dv.getUint32(body + 16),
          framesPerPacket: dv.getUint32(body + 20),
          channelsPerFrame: dv.getUint32(body + 24),
          bitsPerChannel: dv.getUint32(body + 28),
        };
        break;
      case 'chan':
        if (size < 12) structural("CAF 'chan' chunk is too short");
        chan = {
          tag: dv.getUint32(body),
          channels: layoutChannels(dv.getUint32(body), dv.getUint32(body + 4), dv.getUint32(body + 8)),
        };
        break;
      case 'pakt':
        if (paktBody) structural("CAF has more than one 'pakt' chunk");
        if (size < 24) structural("CAF 'pakt' chunk is too short");
        paktBody = { at: body, size };
        break;
      case 'data':
        if (data) structural("CAF has more than one 'data' chunk");
        if (size < 4) structural("CAF 'data' chunk is too short to hold its edit count");
        data = { at: body, size };
        break;
      default:
        break; // 'info', 'kuki', 'free', 'uuid', … are allowed and ignored
    }
    pos = body + size;
  }

  if (!desc) structural("CAF has no 'desc' chunk");
  if (!data) structural("CAF has no 'data' chunk");
  const d: CafDescription = desc;
  const audioBytes = data.size - 4;

  let pakt: CafPacketTable | null = null;
  if (paktBody) pakt = readPacketTable(bytes, dv, paktBody.at, paktBody.size, d);

  return {
    desc: d,
    channelLayoutTag: chan ? chan.tag : null,
    channelLayoutChannels: chan ? chan.channels : null,
    pakt,
    editCount: dv.getUint32(data.at),
    audioOffset: data.at + 4,
    audioBytes,
    chunkTypes,
  };
}

function readPacketTable(bytes: Uint8Array, dv: DataView, at: number, size: number, desc: CafDescription): CafPacketTable {
  const fail = (msg: string): never => {
    throw new AudioRejected('packet_table', msg);
  };
  const numberPackets = i64(dv, at, 'packet count');
  const numberValidFrames = i64(dv, at + 8, 'valid frame count');
  const primingFrames = dv.getInt32(at + 16);
  const remainderFrames = dv.getInt32(at + 20);
  if (numberPackets < 0) fail(`packet table has a negative packet count (${numberPackets})`);
  const end = at + size;
  const varSizes = desc.bytesPerPacket === 0;
  const varFrames = desc.framesPerPacket === 0;
  // Each entry takes at least one byte per variable field; refuse absurd counts before allocating.
  const perEntry = (varSizes ? 1 : 0) + (varFrames ? 1 : 0);
  if (perEntry > 0 && numberPackets * perEntry > size - 24) {
    fail(`packet table says ${numberPackets} packets but its chunk has room for at most ${Math.floor((size - 24) / perEntry)}`);
  }
  const packetSizes = new Uint32Array(perEntry > 0 ? numberPackets : 0);
  const packetFrames = varFrames ? new Uint32Array(numberPackets) : null;
  let p = at + 24;
  const readVar = (i: number): number => {
    let v = 0;
    for (let n = 0; n < 5; n++) {
      if (p >= end) fail(`packet table is truncated at entry ${i + 1} of ${numberPackets}`);
      const b = bytes[p++];
      v = v * 128 + (b & 0x7f);
      if (!(b & 0x80)) return v;
    }
    return fail(`packet table entry ${i + 1} is not a valid variable-length integer`);
  };
  if (perEntry > 0) {
    for (let i = 0; i < numberPackets; i++) {
      packetSizes[i] = varSizes ? readVar(i) : desc.bytesPerPacket;
      if (packetFrames) packetFrames[i] = readVar(i);
    }
  }
  return { numberPackets, numberValidFrames, primingFrames, remainderFrames, packetSizes, packetFrames };
}

/**
 * Byte ranges of each packet inside `bytes`. With constant bytesPerPacket and
 * no table entries, packets are cut from the data chunk at that stride.
 */
export function packetSizesOf(caf: CafFile): Uint32Array {
  const { pakt, desc } = caf;
  if (pakt && pakt.packetSizes.length === pakt.numberPackets && (desc.bytesPerPacket === 0 || desc.framesPerPacket === 0)) {
    return pakt.packetSizes;
  }
  if (desc.bytesPerPacket > 0) {
    const n = Math.floor(caf.audioBytes / desc.bytesPerPacket);
    return new Uint32Array(n).fill(desc.bytesPerPacket);
  }
  throw new AudioRejected('packet_table', "CAF has variable-size packets but no packet table ('pakt' chunk)");
}
