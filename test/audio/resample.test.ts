import { describe, expect, it } from 'vitest';
import { Resampler } from '../../src/audio/resample.js';
import { goertzel, rms } from './fixtures.js';

/** Resample a whole float signal in one call. */
function run(x: Float32Array, inRate: number, outRate = 24000): Int16Array {
  const rs = new Resampler(inRate, outRate);
  const n = rs.outputLength(x.length);
  const out = new Int16Array(n);
  const span = rs.inputSpan(0, n);
  const src = new Float32Array(span.end - span.start);
  for (let i = 0; i < src.length; i++) {
    const j = i + span.start;
    src[i] = j >= 0 && j < x.length ? x[j] : 0;
  }
  rs.process(src, span.start, out, 0, n);
  return out;
}

const tone = (freq: number, rate: number, n: number, amp = 0.5) =>
  Float32Array.from({ length: n }, (_, i) => amp * Math.sin((2 * Math.PI * freq * i) / rate));

describe('resampler', () => {
  it.each([8000, 11025, 16000, 22050, 32000, 44100, 48000, 96000, 44101])('keeps a 1 kHz tone at 1 kHz and its level (%i Hz → 24 kHz)', (rate) => {
    const x = tone(1000, rate, rate); // 1 s
    const y = run(x, rate);
    expect(y.length).toBe(24000);
    const mid = [2400, 21600] as const;
    expect(rms(y, ...mid) / 32768).toBeCloseTo(0.5 / Math.SQRT2, 2);
    expect(goertzel(y, 24000, 1000, ...mid)).toBeGreaterThan(1000 * goertzel(y, 24000, 1500, ...mid));
  });

  it('removes content above the new Nyquist instead of aliasing it (44.1 kHz, 15 kHz tone)', () => {
    const y = run(tone(15000, 44100, 44100), 44100);
    // Unfiltered, 15 kHz would fold to 9 kHz at full level (0.35 rms).
    expect(rms(y, 2400, 21600) / 32768).toBeLessThan(0.001);
  });

  it('keeps silence exactly silent and a DC level exact', () => {
    expect(run(new Float32Array(4410), 44100).every((v) => v === 0)).toBe(true);
    const dc = run(new Float32Array(4410).fill(0.25), 44100);
    expect(dc[1200]).toBe(8192);
  });
});
