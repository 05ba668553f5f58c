/**
 * Run as a child process by attachment-streaming.test.ts: sends the blob `att/big` of the
 * filesystem blob store at argv[2] (argv[3] bytes) as an attachment through a BlueBubbles line
 * whose driver_config is the JSON in argv[4], sampling RSS, and prints
 * `{ guid, baselineRss, peakRss, growth }` as JSON (growth: the peak over the baseline of rss, heapUsed,
 * external and arrayBuffers, to tell what grew). A process of its own, so the stand-in server (in the
 * test's process) and nothing else in a test worker moves the figure.
 */
import { fsBlobStore } from '../../../src/blobs/index.js';
import { bluebubblesDriver } from '../../../src/drivers/bluebubbles/index.js';
import { context } from './helpers.js';
import { memoryPeak } from '../../support/memory-peak.js';

const [root, size, config] = [process.argv[2]!, Number(process.argv[3]), JSON.parse(process.argv[4]!) as Record<string, unknown>];
const blobs = fsBlobStore(root);
const driver = bluebubblesDriver(context(config), { probeOnStart: false });
const to = { kind: 'direct' as const, handle: '+14155550199' };
const file = (key: string, bytes: number) => ({ attachmentId: 'att_rss', filename: 'big.mov', mimeType: 'video/quicktime', sizeBytes: bytes, open: () => blobs.open(key) });

// Warm up: the driver's, fetch's and the blob store's code paths, so the baseline includes them.
await driver.refresh();
await driver.sendMedia(to, [file('att/warmup', (await blobs.size('att/warmup'))!)], { grouped: false });
const { result, baselineRss, peakRss, growth } = await memoryPeak(() => driver.sendMedia(to, [file('att/big', size)], { grouped: false }));
process.stdout.write(JSON.stringify({ guid: result.guids[0], baselineRss, peakRss, growth }) + '\n');
