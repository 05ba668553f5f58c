import { Decoder, Encoder } from '@evan/opus';
import { describe, expect, it } from 'vitest';
import { encodeOpus, encoderPreSkip, OPUS_FRAME, OPUS_RATE } from '../../src/audio/opus.js';

/** Encode then decode with no trimming; returns the raw decoder output. */
function roundTrip(pcm: Int16Array, application: 'voip' | 'audio'): Int16Array {
  const enc = new Encoder({ channels: 1, sample_rate: OPUS_RATE, application });
  enc.bitrate = 32000;
  const dec = new Decoder({ channels: 1, sample_rate: OPUS_RATE });
  const out = new Int16Array(pcm.length);
  for (let at = 0; at + OPUS_FRAME <= pcm.length; at += OPUS_FRAME) {
    const d = dec.decode(enc.encode(pcm.subarray(at, at + OPUS_FRAME)));
    out.set(new Int16Array(d.buffer, d.byteOffset, d.byteLength / 2), at);
  }
  return out;
}

function bestLag(a: Int16Array, b: Int16Array, maxLag: number): number {
  let best = -Infinity;
  let lag = 0;
  for (let l = 0; l <= maxLag; l++) {
    let s = 0;
    for (let i = 2000; i < a.length - maxLag - 2000; i++) s += a[i] * b[i + l];
    if (s > best) [best, lag] = [s, l];
  }
  return lag;
}

describe('Opus pre-skip', () => {
  it('is what the encoder reports (156 at 24 kHz = 312 at 48 kHz, scaled)', () => {
    const enc = new Encoder({ channels: 1, sample_rate: OPUS_RATE, application: 'voip' });
    expect(encoderPreSkip(enc)).toBe(156);
  });

  it.each(['voip', 'audio'] as const)('matches the measured encode→decode delay (%s): clicks and noise line up at that lag', (app) => {
    const n = OPUS_RATE; // 1 s
    const clicks = new Int16Array(n);
    for (let i = 1200; i < n; i += 2400) clicks[i] = 20000;
    let s = 99;
    const noise = Int16Array.from({ length: n }, () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0), ((s >>> 16) & 0x3fff) - 0x2000));
    const expected = encoderPreSkip(new Encoder({ channels: 1, sample_rate: OPUS_RATE, application: app }));
    expect(bestLag(clicks, roundTrip(clicks, app), 400)).toBe(expected);
    expect(bestLag(noise, roundTrip(noise, app), 400)).toBe(expected);
  });

  it('encodeOpus pads so that priming + signal + remainder fill whole packets', async () => {
    for (const n of [1, 479, 480, 12000, 12345]) {
      const r = await encodeOpus(new Int16Array(n));
      expect(r.packets.length * OPUS_FRAME).toBe(r.preSkip + n + r.remainder);
      expect(r.remainder).toBeGreaterThanOrEqual(0);
      expect(r.remainder).toBeLessThan(OPUS_FRAME);
    }
  });
});
