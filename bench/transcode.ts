/**
 * Voice-note transcoding throughput: PCM WAV → validated Opus CAF via
 * prepareVoiceNote, in seconds of audio per second of CPU (process.cpuUsage,
 * so waiting and other processes do not count). Target: ≥ 50× realtime for a
 * 60 s stereo 44.1 kHz 16-bit WAV.
 * Baseline measured in the same run: just reading the WAV samples into a mono
 * Float32Array (the cheapest thing any pipeline must do).
 *   npx tsx bench/transcode.ts [runs]
 */
import os from 'node:os';
import { parseWav, prepareVoiceNote, readWavMono, validateVoiceNoteCaf, wavToOpusCaf, wavToPcm24k } from '../src/audio/index.js';
import { encodeOpus } from '../src/audio/opus.js';

const TARGET = 50;
const RATE = 44100;
const SECONDS = 60;
const runs = Number(process.argv[2] ?? 5);

/** Speech-like stereo: harmonics of a gliding ~140 Hz pitch, 4 Hz syllable envelope, pauses, a little noise. */
function speechLikeWav(seconds: number): Buffer {
  const frames = RATE * seconds;
  const b = Buffer.alloc(44 + frames * 4);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + frames * 4, 4);
  b.write('WAVEfmt ', 8, 'latin1');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(2, 22);
  b.writeUInt32LE(RATE, 24);
  b.writeUInt32LE(RATE * 4, 28);
  b.writeUInt16LE(4, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(frames * 4, 40);
  const pcm = new Int16Array(b.buffer, b.byteOffset + 44, frames * 2);
  let seed = 1;
  for (let i = 0; i < frames; i++) {
    const t = i / RATE;
    const phase = 2 * Math.PI * (140 * t - (30 / (2 * Math.PI * 0.7)) * Math.cos(2 * Math.PI * 0.7 * t));
    const talking = Math.sin(2 * Math.PI * 0.15 * t) > -0.6 ? 1 : 0; // pauses between "sentences"
    const env = talking * (0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t));
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    const n = (seed / 0x100000000 - 0.5) * 0.04;
    const v = env * (0.3 * Math.sin(phase) + 0.15 * Math.sin(2 * phase) + 0.08 * Math.sin(3 * phase) + 0.04 * Math.sin(7 * phase)) + n;
    pcm[2 * i] = Math.round(v * 32767);
    pcm[2 * i + 1] = Math.round(v * 0.8 * 32767);
  }
  return b;
}

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function measure(fn: () => unknown): Promise<number> {
  const t = cpuSeconds();
  await fn();
  return cpuSeconds() - t;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const wav = speechLikeWav(SECONDS);
console.log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), node ${process.version}`);
console.log(`input: ${SECONDS} s stereo ${RATE} Hz 16-bit WAV, ${(wav.length / 1e6).toFixed(1)} MB, speech-like; ${runs} runs after 1 warm-up`);

const readToFloat = () => {
  const info = parseWav(wav);
  const x = new Float32Array(info.frames);
  readWavMono(wav, info, 0, info.frames, x);
  return x;
};

// warm-up (JIT, filter tables, native addon load)
readToFloat();
const first = await prepareVoiceNote(wav, 'audio/wav');

const base: number[] = [];
const full: number[] = [];
for (let i = 0; i < runs; i++) {
  base.push(await measure(readToFloat));
  full.push(await measure(() => prepareVoiceNote(wav, 'audio/wav')));
}

// Stage breakdown, one pass each.
const pcm = await wavToPcm24k(wav);
const caf = await wavToOpusCaf(wav);
const tResample = await measure(() => wavToPcm24k(wav));
const tEncode = await measure(() => encodeOpus(pcm));
const tValidate = await measure(() => validateVoiceNoteCaf(caf));

const baseX = SECONDS / median(base);
const fullX = SECONDS / median(full);
console.log(`output: ${first.caf.length} bytes CAF, ${((first.caf.length * 8) / SECONDS / 1000).toFixed(1)} kbit/s, duration ${first.durationSeconds} s`);
console.log(`baseline (read WAV → mono Float32): ${baseX.toFixed(0)}x realtime (median CPU ${(median(base) * 1000).toFixed(1)} ms)`);
console.log(`prepareVoiceNote (WAV → validated Opus CAF): ${fullX.toFixed(1)}x realtime (median CPU ${(median(full) * 1000).toFixed(0)} ms; runs ${full.map((s) => (s * 1000).toFixed(0)).join(', ')} ms)`);
console.log(`  stages: read+downmix+resample ${(tResample * 1000).toFixed(0)} ms, Opus encode ${(tEncode * 1000).toFixed(0)} ms, validate (decode all packets) ${(tValidate * 1000).toFixed(0)} ms`);
console.log(`ratio vs target ${TARGET}x: ${(fullX / TARGET).toFixed(2)} (${fullX >= TARGET ? 'meets' : 'BELOW'} target)`);
console.log(`ratio vs baseline: pipeline is ${(baseX / fullX).toFixed(1)}x the CPU of just reading the samples`);

// Peak memory for the longest allowed note (300 s, the same signal repeated).
const long = speechLikeWav(300);
const before = process.resourceUsage().maxRSS / 1024;
const tLong = await measure(() => prepareVoiceNote(long, 'audio/wav'));
const after = process.resourceUsage().maxRSS / 1024;
console.log(
  `300 s WAV (${(long.length / 1e6).toFixed(0)} MB): ${(300 / tLong).toFixed(1)}x realtime, peak RSS ${after.toFixed(0)} MB (was ${before.toFixed(0)} MB before this run)`,
);
