/**
 * The SDK's success types as a user's compiler sees them: sdk/test/types/success-bodies.ts
 * (a 202-only call, every JSON 2xx answer typed, not `never`) compiles against the built
 * package with the SDK's own compiler options.
 */
import path from 'node:path';
import ts from 'typescript';
import { expect, it } from 'vitest';

it('types every JSON success body, 202 included (the simulator inbound is not `never`)', () => {
  const sdkDir = path.resolve(import.meta.dirname, '..');
  const config = ts.getParsedCommandLineOfConfigFile(path.join(sdkDir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const program = ts.createProgram([path.join(sdkDir, 'test', 'types', 'success-bodies.ts')], { ...config.options, noEmit: true, rootDir: undefined, outDir: undefined });
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  expect(problems).toEqual([]);
}, 60_000);
