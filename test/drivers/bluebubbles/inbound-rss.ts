/**
 * Run as a child process by inbound-streaming.test.ts: the service's inbound path (its services
 * over a SQLite store and a filesystem blob store in the directory argv[2]) handles the BlueBubbles
 * webhook bodies in the JSON list argv[4] for a line whose driver_config is the JSON in argv[3], as
 * the intake worker would. The first body warms the code paths up; RSS is sampled while the last
 * one is handled (its attachment downloaded from the stand-in and stored). Prints `{ baselineRss,
 * peakRss, growth, part, blobKey }` as JSON: growth is the peak over the baseline of rss, heapUsed,
 * external and arrayBuffers; part is the recorded message's media part, blobKey where its file is.
 * A process of its own, so the stand-in (in the test's process) and nothing else moves the figure.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { fsBlobStore } from '../../../src/blobs/index.js';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { handleBlueBubblesWebhook } from '../../../src/drivers/bluebubbles/inbound.js';
import { createLogger } from '../../../src/logging.js';
import { buildServices } from '../../../src/services.js';
import { openStore } from '../../../src/store/index.js';
import { memoryPeak } from '../../support/memory-peak.js';

const [dir, config, bodies] = [process.argv[2]!, JSON.parse(process.argv[3]!) as Record<string, unknown>, JSON.parse(process.argv[4]!) as { data: { guid: string } }[]];
const store = await openStore({ sqlitePath: path.join(dir, 'blueline.sqlite'), masterKey: randomBytes(32) });
const blobs = fsBlobStore(path.join(dir, 'blobs'));
const logger = createLogger({ level: 'warn', stream: new Writable({ write: (_c, _e, cb) => cb() }) });
const services = buildServices({ config: loadConfig({}), store, clock: systemClock(), logger, blobs, hookSecret: randomBytes(32) });
const { account } = await services.accounts.createAccount({ name: 'RSS' });
const tenant = await services.accounts.createTenant({ account_id: account.id, slug: 'rss', name: 'RSS', timezone: 'UTC', sending_window: { start: '00:00', end: '24:00' } });
const { line } = await services.lines.create({ tenant: tenant.slug, phone_number: '+14155550691', driver: 'bluebubbles', driver_config: config });
const ctx = services.drivers.contextFor(line);

for (const body of bodies.slice(0, -1)) await handleBlueBubblesWebhook(ctx, line.id, body);
const last = bodies[bodies.length - 1]!;
const { result: outcome, baselineRss, peakRss, growth } = await memoryPeak(() => handleBlueBubblesWebhook(ctx, line.id, last));
const message = await store.messages.byProviderGuid(line.id, last.data.guid);
const part = message?.parts.find((p) => p.type === 'media') as { attachment_id: string } | undefined;
const attachment = part && (await store.media.getAttachment(tenant.id, part.attachment_id));
process.stdout.write(JSON.stringify({ outcome, baselineRss, peakRss, growth, part, blobKey: attachment?.blob_key }) + '\n');
process.exit(0);
