/**
 * The upload check recognises files made by a real encoder (ffmpeg) as their own type, and
 * refuses each as the types it is not. HEIC and PDF, which ffmpeg does not write, are built by
 * hand from their formats' first bytes. Skipped where ffmpeg is missing (.ci/run installs it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { matchesSignature } from '../../src/domain/media/file-signatures.js';
import { SUPPORTED_UPLOAD_TYPES, type UploadType } from '../../src/domain/media/vocabulary.js';

const hasFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bl-signatures-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const picture = ['-f', 'lavfi', '-i', 'testsrc=size=16x16:rate=1', '-frames:v', '1'];
const clip = ['-f', 'lavfi', '-i', 'testsrc=size=32x32:rate=5:d=1', '-pix_fmt', 'yuv420p'];
const tone = ['-f', 'lavfi', '-i', 'sine=d=0.3'];
const ENCODED: [UploadType, string, string[]][] = [
  ['image/png', 'a.png', picture],
  ['image/jpeg', 'a.jpg', picture],
  ['image/gif', 'a.gif', picture],
  ['image/webp', 'a.webp', picture],
  ['video/mp4', 'a.mp4', clip],
  ['video/quicktime', 'a.mov', clip],
  ['audio/m4a', 'a.m4a', [...tone, '-c:a', 'aac']],
  ['audio/wav', 'a.wav', tone],
  ['audio/mpeg', 'a.mp3', tone],
  ['audio/aac', 'a.aac', [...tone, '-c:a', 'aac', '-f', 'adts']],
];
const encode = (name: string, args: string[]) => {
  const file = path.join(dir, name);
  execFileSync('ffmpeg', ['-loglevel', 'error', '-y', ...args, file]);
  return fs.readFileSync(file);
};

/** Types one file may pass as: the ISO base media family is one format to the check, and so are MP3 and AAC behind ID3 tags (ffmpeg writes MP3 with one). */
const ISO = ['image/heic', 'image/heif', 'video/mp4', 'video/quicktime', 'audio/m4a'];
const passesAs = (type: UploadType) => (ISO.includes(type) ? ISO : type === 'audio/mpeg' ? ['audio/mpeg', 'audio/aac'] : [type]);

describe.skipIf(!hasFfmpeg)('upload signatures of real files', () => {
  it.each(ENCODED)('%s, as ffmpeg writes it, passes as its own type and no unrelated one', (type, name, args) => {
    const head = encode(name, args).subarray(0, 1024);
    for (const other of SUPPORTED_UPLOAD_TYPES) {
      expect(matchesSignature(other, head), `${name} as ${other}`).toBe(passesAs(type).includes(other));
    }
  });
});

describe('upload signatures built by hand', () => {
  it('a HEIC header passes as the ISO family; a PDF passes as a PDF, also after leading bytes', () => {
    const heic = Buffer.from('\0\0\0\x18ftypheic\0\0\0\0mif1heic', 'latin1');
    for (const type of SUPPORTED_UPLOAD_TYPES) expect(matchesSignature(type, heic), type).toBe(ISO.includes(type));
    const pdf = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');
    for (const type of SUPPORTED_UPLOAD_TYPES) expect(matchesSignature(type, pdf), type).toBe(type === 'application/pdf');
    expect(matchesSignature('application/pdf', Buffer.concat([Buffer.alloc(100, 0x20), pdf]))).toBe(true);
  });

  it('an MP3 frame without tags is not AAC, and an AAC (ADTS) frame is not MP3', () => {
    const mp3Frame = Buffer.from('fffb9064000000000000', 'hex'); // MPEG-1 layer III
    const adts = Buffer.from('fff15040213ffcde0200', 'hex');
    expect([matchesSignature('audio/mpeg', mp3Frame), matchesSignature('audio/aac', mp3Frame)]).toEqual([true, false]);
    expect([matchesSignature('audio/mpeg', adts), matchesSignature('audio/aac', adts)]).toEqual([false, true]);
  });

  it('text, zeros and an empty file pass as nothing', () => {
    for (const head of [Buffer.from('hello, this is plain text'), Buffer.alloc(64), Buffer.alloc(0)]) {
      for (const type of SUPPORTED_UPLOAD_TYPES) expect(matchesSignature(type, head), `${type}: ${head.toString('hex').slice(0, 16)}`).toBe(false);
    }
  });
});
