/**
 * The built SDK as a user installs it: `npm pack` of sdk/ (its `files`, its package.json),
 * unpacked into node_modules/@blueline/sdk of a fresh project outside the repository. Build the
 * SDK first (`npm run build -w sdk`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './service.js';

const run = promisify(execFile);

export interface PackedProject {
  /** The project's directory: node_modules/@blueline/sdk is the packed SDK. */
  dir: string;
  /** The unpacked package. */
  sdkDir: string;
  remove(): void;
}

export async function packedProject(): Promise<PackedProject> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bl-sdk-packed-'));
  try {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: path.join(repoRoot, 'sdk') });
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    const sdkDir = path.join(dir, 'node_modules', '@blueline', 'sdk');
    fs.mkdirSync(sdkDir, { recursive: true });
    await run('tar', ['-xzf', path.join(dir, path.basename(filename)), '-C', sdkDir, '--strip-components=1']);
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "sdk-user", "private": true }\n');
    return { dir, sdkDir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
