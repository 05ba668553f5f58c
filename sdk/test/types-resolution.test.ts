/**
 * The packed SDK's types as a TypeScript user's compiler finds them, in each module resolution a
 * project may use: node10 (`moduleResolution: node`, no `exports`: the top-level `types` and
 * `typesVersions` for `/webhooks`), node16 and nodenext from a CommonJS file (.cts: the CommonJS
 * build's declarations, not an ES module it could not `require`) and from an ES module (.mts),
 * and bundler. Each compiles a user's file with no error, and the declarations come from the
 * build the same user loads at run time.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot } from './support/service.js';
import { packedProject, type PackedProject } from './support/packed.js';

let project: PackedProject;

// Uses both entry points; the @ts-expect-error lines fail the build if a type resolved to `any`.
const USER_FILE = `import { Blueline, BlueLineError, NotFoundError, RangeNotSatisfiableError, type ErrorCode, type Message } from '@blueline/sdk';
import { verifyWebhook, WebhookVerificationError, type MessageReceivedEvent } from '@blueline/sdk/webhooks';

const client = new Blueline({ baseUrl: 'http://127.0.0.1:8787', maxRetries: 0 });

export async function lookUp(id: string): Promise<string> {
  try {
    const message: Message = await client.messages.get(id);
    return message.status;
  } catch (err) {
    if (err instanceof NotFoundError) {
      const code: ErrorCode = err.code;
      return String(code);
    }
    if (err instanceof RangeNotSatisfiableError) return String(err.size);
    if (err instanceof BlueLineError) return err.allowedMethods?.join() ?? err.message;
    throw err;
  }
}

export function receive(raw: string, headers: Record<string, string>): string {
  try {
    const event: MessageReceivedEvent = verifyWebhook(raw, headers, 'whsec_x');
    return event.event_id;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return err.reason;
    throw err;
  }
}

// @ts-expect-error: the client is typed, not any
client.messages.nope();
// @ts-expect-error: a code is the spec's union
export const notACode: ErrorCode = 'nope';
`;

beforeAll(async () => {
  project = await packedProject();
  for (const ext of ['ts', 'cts', 'mts']) fs.writeFileSync(path.join(project.dir, `user.${ext}`), USER_FILE);
}, 60_000);
afterAll(() => project?.remove());

const MODES = [
  { name: 'node10 (moduleResolution: node), CommonJS', file: 'user.ts', options: { module: 'commonjs', moduleResolution: 'node10' }, build: 'cjs' },
  { name: 'node16 from a CommonJS file', file: 'user.cts', options: { module: 'node16', moduleResolution: 'node16' }, build: 'cjs' },
  { name: 'node16 from an ES module', file: 'user.mts', options: { module: 'node16', moduleResolution: 'node16' }, build: 'esm' },
  { name: 'nodenext from a CommonJS file', file: 'user.cts', options: { module: 'nodenext', moduleResolution: 'nodenext' }, build: 'cjs' },
  { name: 'nodenext from an ES module', file: 'user.mts', options: { module: 'nodenext', moduleResolution: 'nodenext' }, build: 'esm' },
  { name: 'bundler', file: 'user.ts', options: { module: 'esnext', moduleResolution: 'bundler' }, build: 'esm' },
] as const;

it.each(MODES)('types resolve and compile with $name', ({ file, options, build }) => {
  const { options: compilerOptions, errors } = ts.convertCompilerOptionsFromJson(
    { ...options, target: 'es2022', lib: ['es2023', 'dom'], strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [path.join(repoRoot, 'node_modules', '@types')] },
    project.dir,
  );
  expect(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n'))).toEqual([]);
  const program = ts.createProgram([path.join(project.dir, file)], compilerOptions);
  const problems = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  expect(problems).toEqual([]);
  // The declarations of the build this user runs: dist/cjs for CommonJS, dist for ES modules.
  const sdkDir = fs.realpathSync(project.sdkDir);
  const entries = program
    .getSourceFiles()
    .map((f) => path.relative(sdkDir, fs.realpathSync(f.fileName)))
    .filter((f) => /^dist\/(cjs\/)?(index|webhooks)\.d\.ts$/.test(f))
    .sort();
  expect(entries).toEqual(build === 'cjs' ? ['dist/cjs/index.d.ts', 'dist/cjs/webhooks.d.ts'] : ['dist/index.d.ts', 'dist/webhooks.d.ts']);
}, 60_000);
