import { describe, expect, it } from 'vitest';
import { parseWav, readWavMono } from '../../src/audio/wav.js';
import { makeWav, rejection, sine, type WavEncoding } from './fixtures.js';

function mono(wav: Buffer): { info: ReturnType<typeof parseWav>; x: Float32Array } {
  const info = parseWav(wav);
  const x = new Float32Array(info.frames);
  readWavMono(wav, info, 0, info.frames, x);
  return { info, x };
}


describe('WAV reader', () => {
  const ramp = (i: number, c: number) => (c === 0 ? 0.5 : -0.25) * Math.sin(i / 7);

  it.each<[WavEncoding, boolean, number]>([
    ['pcm8', false, 1 / 64],
    ['pcm16', false, 1e-4],
    ['pcm24', false, 1e-6],
    ['pcm32', false, 1e-6],
    ['float32', false, 1e-6],
    ['float64', false, 1e-6],
    ['pcm16', true, 1e-4],
    ['pcm24', true, 1e-6],
    ['float32', true, 1e-6],
  ])('reads %s (extensible=%s) stereo and averages the channels', (encoding, extensible, tol) => {
    const wav = makeWav(500, ramp, { sampleRate: 16000, channels: 2, encoding, extensible });
    const { info, x } = mono(wav);
    expect(info).toMatchObject({ sampleRate: 16000, channels: 2, frames: 500, encoding: encoding.startsWith('float') ? 'float' : 'pcm' });
    for (let i = 0; i < 500; i++) expect(Math.abs(x[i] - (ramp(i, 0) + ramp(i, 1)) / 2)).toBeLessThan(tol);
  });

  it('downmixes more than two channels', () => {
    const sig = (_i: number, c: number) => [0.6, 0.3, -0.3, 0.0, 0.2, 0.4][c];
    const { info, x } = mono(makeWav(10, sig, { sampleRate: 48000, channels: 6 }));
    expect(info.channels).toBe(6);
    expect(x[3]).toBeCloseTo(1.2 / 6, 3);
  });

  it('skips unknown and odd-sized chunks (with their pad byte)', () => {
    const wav = makeWav(100, sine(1000, 8000), {
      sampleRate: 8000,
      extraChunks: [
        { id: 'LIST', body: new Uint8Array(13).fill(0x41) },
        { id: 'junk', body: new Uint8Array(3) },
      ],
    });
    const { info, x } = mono(wav);
    expect(info.frames).toBe(100);
    expect(x[2]).toBeCloseTo(sine(1000, 8000)(2, 0), 3);
  });

  it('clamps a data size of 0xFFFFFFFF or past the end to the bytes present', () => {
    for (const declared of [0xffffffff, 1_000_000]) {
      const { info } = mono(makeWav(1000, sine(440, 8000), { sampleRate: 8000, channels: 2, declaredDataSize: declared }));
      expect(info.frames).toBe(1000);
      expect(info.clamped).toBe(true);
    }
    // A cut-off file keeps its whole frames only.
    const cut = makeWav(1000, sine(440, 8000), { sampleRate: 8000, channels: 2 }).subarray(0, 44 + 4 * 600 + 3);
    expect(parseWav(cut).frames).toBe(600);
  });

  it('reads RF64 (streaming/large-file variant) with its sizes left at 0xFFFFFFFF', () => {
    const wav = makeWav(300, sine(440, 8000), { sampleRate: 8000, declaredDataSize: 0xffffffff });
    wav.write('RF64', 0, 'latin1');
    wav.writeUInt32LE(0xffffffff, 4);
    expect(parseWav(wav).frames).toBe(300);
  });

  it('reads frames outside the file as silence (resampler margins)', () => {
    const wav = makeWav(10, () => 0.5, { sampleRate: 8000 });
    const info = parseWav(wav);
    const out = new Float32Array(20);
    readWavMono(wav, info, -5, 15, out);
    expect(Array.from(out.subarray(0, 5))).toEqual([0, 0, 0, 0, 0]);
    expect(out[5]).toBeCloseTo(0.5, 3);
    expect(out[14]).toBeCloseTo(0.5, 3);
    expect(Array.from(out.subarray(15))).toEqual([0, 0, 0, 0, 0]);
  });

  it.each([
    [7, 8, 'µ-law'],
    [6, 8, 'A-law'],
    [2, 4, 'Microsoft ADPCM'],
    [0x11, 4, 'IMA ADPCM'],
    [0x55, 16, 'MP3'],
  ])('rejects compressed WAV format 0x%s with its name', (tag, bits, name) => {
    const wav = makeWav(100, sine(440, 8000), { sampleRate: 8000, formatTag: tag, bitsPerSample: bits, encoding: 'pcm8' });
    const err = rejection(() => parseWav(wav));
    expect(err.check).toBe('wav_format');
    expect(err.message).toContain(name);
    expect(err.message).toMatch(/compressed/);
  });

  it('rejects structural problems in plain words', () => {
    expect(rejection(() => parseWav(Buffer.from('RIFF'))).message).toMatch(/too short/);
    const noData = makeWav(10, sine(440, 8000), { sampleRate: 8000 }).subarray(0, 36);
    expect(rejection(() => parseWav(noData)).message).toBe("WAV has no 'data' chunk");
    const weirdRate = makeWav(10, sine(440, 8000), { sampleRate: 4000 });
    expect(rejection(() => parseWav(weirdRate)).message).toMatch(/4000 Hz/);
  });
});
