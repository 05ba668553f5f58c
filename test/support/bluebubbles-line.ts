/**
 * The demo sandbox with a BlueBubbles line on a stand-in Mac added to it (private networks
 * allowed, so the service reaches the stand-in on loopback).
 */
import { expect } from 'vitest';
import { startTestApp, type TestApp } from './app.js';
import { prepareSandbox } from './messaging.js';
import { startStandIn, type StandIn } from '../drivers/bluebubbles/standin.js';

/** `driverConfig` goes into the line's driver config with the stand-in's address (e.g. `{ timeout_ms: 300 }`). */
export async function appWithBlueBubblesLine(driverConfig: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<{ t: TestApp; bb: StandIn; lineId: string; close(): Promise<void> }> {
  const t = await startTestApp('sqlite', { BLUELINE_ALLOW_PRIVATE_NETWORKS: '1', ...env });
  await prepareSandbox(t);
  const bb = await startStandIn();
  const res = await t.admin('POST', '/admin/v1/lines', { tenant: 'demo', phone_number: '+14155550650', driver: 'bluebubbles', driver_config: bb.config(driverConfig) });
  expect(res.statusCode, res.body).toBe(201);
  return {
    t,
    bb,
    lineId: res.json().phone_line.id,
    async close() {
      await bb.stop();
      await t.close();
    },
  };
}
