import { describe, expect, it } from 'vitest';
import { kAudioChannelLayoutTag_Mono, readCaf, varintLength, writeOpusCaf, writeVarint } from '../../src/audio/caf.js';
import { rejection, VOICE_NOTE_DESC } from './fixtures.js';

const packets = [new Uint8Array([1, 2, 3]), new Uint8Array(200).fill(7), new Uint8Array(20000).fill(9)];


describe('CAF writer/reader', () => {
  it('BER varints: 7 bits per byte, high bit on all but the last', () => {
    const cases: [number, number[]][] = [
      [0, [0x00]],
      [127, [0x7f]],
      [128, [0x81, 0x00]],
      [200, [0x81, 0x48]],
      [16384, [0x81, 0x80, 0x00]],
    ];
    for (const [v, bytes] of cases) {
      const out = new Uint8Array(4);
      expect(writeVarint(out, 0, v)).toBe(bytes.length);
      expect(varintLength(v)).toBe(bytes.length);
      expect(Array.from(out.subarray(0, bytes.length))).toEqual(bytes);
    }
  });

  it('writes the voice-note layout and reads it back', () => {
    const caf = writeOpusCaf({ sampleRate: 24000, framesPerPacket: 480, packets, primingFrames: 156, remainderFrames: 100 });
    expect(caf.subarray(0, 8)).toEqual(Buffer.from([0x63, 0x61, 0x66, 0x66, 0, 1, 0, 0]));
    const r = readCaf(caf);
    expect(r.chunkTypes).toEqual(['desc', 'chan', 'pakt', 'data']);
    expect(r.desc).toEqual(VOICE_NOTE_DESC);
    expect(r.channelLayoutTag).toBe(kAudioChannelLayoutTag_Mono);
    expect(r.channelLayoutTag).toBe(6553601);
    expect(r.pakt).toMatchObject({ numberPackets: 3, numberValidFrames: 3 * 480 - 156 - 100, primingFrames: 156, remainderFrames: 100 });
    expect(Array.from(r.pakt!.packetSizes)).toEqual([3, 200, 20000]);
    expect(r.editCount).toBe(0);
    expect(r.audioBytes).toBe(20203);
    expect(caf.subarray(r.audioOffset + 3, r.audioOffset + 203)).toEqual(Buffer.from(packets[1]));
  });

  it('accepts a data chunk of size -1 that runs to the end of the file', () => {
    const caf = writeOpusCaf({ sampleRate: 24000, framesPerPacket: 480, packets, primingFrames: 0, remainderFrames: 0 });
    const dataHeader = caf.lastIndexOf(Buffer.from('data'));
    caf.writeBigInt64BE(-1n, dataHeader + 4);
    expect(readCaf(caf).audioBytes).toBe(20203);
  });

  it('rejects truncation and malformed structure with the reason', () => {
    const caf = writeOpusCaf({ sampleRate: 24000, framesPerPacket: 480, packets, primingFrames: 0, remainderFrames: 0 });
    const cut = rejection(() => readCaf(caf.subarray(0, caf.length - 500)));
    expect(cut.check).toBe('caf_structure');
    expect(cut.message).toMatch(/'data' chunk declares 20207 bytes but only 19707 remain/);
    expect(rejection(() => readCaf(caf.subarray(0, 30))).message).toMatch(/truncated/);
    expect(rejection(() => readCaf(Buffer.from('RIFF0000WAVE'))).message).toMatch(/not a CAF file/);
    const v2 = Buffer.from(caf);
    v2.writeUInt16BE(2, 4);
    expect(rejection(() => readCaf(v2)).message).toMatch(/version is 2/);
  });
});
