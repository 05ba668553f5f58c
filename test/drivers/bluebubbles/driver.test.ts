/**
 * Contract tests of the BlueBubbles driver against the stand-in server: the
 * exact requests it makes, capability flags, error mapping and the service epoch.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bluebubblesDriver, type BlueBubblesLineDriver } from '../../../src/drivers/bluebubbles/index.js';
import { DRIVER_CAPABILITIES, DriverFailure } from '../../../src/drivers/types.js';
import { CAF, PNG, PNG2, context, file, failure } from './helpers.js';
import { StandIn } from './standin.js';

const TO = '+14155550100';
const direct = { kind: 'direct' as const, handle: TO };

describe('BlueBubbles driver: operations', () => {
  let bb: StandIn;
  let driver: BlueBubblesLineDriver;
  let ctx: ReturnType<typeof context>;

  beforeAll(async () => {
    bb = await new StandIn().start();
    bb.directChat(TO); // the Mac has talked to them before (a first contact: first-contact.test.ts)
  });
  afterAll(() => bb.stop());
  beforeEach(async () => {
    bb.privateApi = true;
    bb.helperConnected = true;
    bb.requests = [];
    ctx = context(bb.config());
    driver = bluebubblesDriver(ctx);
    await driver.refresh();
  });

  it('sends text with the password in the query string and the Private API method', async () => {
    const { guid } = await driver.sendText(direct, 'Hello there');
    const req = bb.lastTo('POST', '/api/v1/message/text');
    expect(req.query).toEqual({ password: bb.password });
    expect(req.json).toEqual({ chatGuid: `iMessage;-;${TO}`, tempGuid: expect.stringMatching(/^temp-/), message: 'Hello there', method: 'private-api' });
    // The guid is BlueBubbles' real one, not our tempGuid.
    expect(guid).not.toBe(req.json.tempGuid);
    expect(bb.messages.get(guid)?.text).toBe('Hello there');
  });

  it('sends text to a group by its chat key, with an effect and data detection for links', async () => {
    const group = bb.groupChat(['+14155550101', '+14155550102']);
    await driver.sendText({ kind: 'group', chatKey: group.guid }, 'Party at https://example.com', { effect: 'com.apple.messages.effect.CKConfettiEffect', richLinkUrl: 'https://example.com' });
    expect(bb.lastTo('POST', '/api/v1/message/text').json).toEqual({
      chatGuid: group.guid, tempGuid: expect.any(String), message: 'Party at https://example.com', method: 'private-api',
      effectId: 'com.apple.messages.effect.CKConfettiEffect', ddScan: true,
    });
  });

  it('sends each file as its own attachment message when not grouped', async () => {
    const { guids } = await driver.sendMedia(direct, [file('a.png', 'image/png', PNG), file('b.png', 'image/png', PNG2)], { grouped: false });
    const reqs = bb.requestsTo('POST', '/api/v1/message/attachment');
    expect(reqs).toHaveLength(2);
    expect(guids).toHaveLength(2);
    expect(reqs[0]!.query.password).toBe(bb.password);
    expect(reqs[0]!.fields).toEqual({ chatGuid: `iMessage;-;${TO}`, tempGuid: expect.stringMatching(/^temp-/), name: 'a.png', method: 'private-api' });
    expect(reqs[0]!.files!.attachment).toMatchObject({ name: 'a.png', type: 'image/png' });
    expect(reqs[0]!.files!.attachment!.bytes.equals(PNG)).toBe(true);
    expect(reqs[1]!.files!.attachment!.bytes.equals(PNG2)).toBe(true);
  });

  it('sends grouped images as one multipart message (upload, then parts)', async () => {
    const { guids } = await driver.sendMedia(direct, [file('a.png', 'image/png', PNG), file('b.png', 'image/png', PNG2)], { grouped: true });
    const uploads = bb.requestsTo('POST', '/api/v1/attachment/upload');
    expect(uploads.map((u) => u.files!.attachment!.name)).toEqual(['a.png', 'b.png']);
    const multipart = bb.lastTo('POST', '/api/v1/message/multipart');
    expect(multipart.json).toEqual({
      chatGuid: `iMessage;-;${TO}`, tempGuid: expect.any(String),
      parts: [
        { partIndex: 0, attachment: expect.stringMatching(/\/[0-9a-f]{40}\.png$/), name: 'a.png' },
        { partIndex: 1, attachment: expect.stringMatching(/\/[0-9a-f]{40}\.png$/), name: 'b.png' },
      ],
    });
    expect(guids).toHaveLength(1);
    expect(bb.messages.get(guids[0]!)?.attachments).toHaveLength(2);
  });

  it('uploads a voice note as the .caf bytes with isAudioMessage=true, so the server does not convert it', async () => {
    const { guid } = await driver.sendVoiceNote(direct, file('vn_0123abcd.caf', 'audio/x-caf', CAF));
    const req = bb.lastTo('POST', '/api/v1/message/attachment');
    expect(req.fields).toEqual({ chatGuid: `iMessage;-;${TO}`, tempGuid: expect.any(String), name: 'vn_0123abcd.caf', method: 'private-api', isAudioMessage: 'true' });
    expect(req.files!.attachment!.name).toBe('vn_0123abcd.caf');
    expect(req.files!.attachment!.bytes.equals(CAF)).toBe(true);
    const sent = bb.messages.get(guid)!;
    expect(sent.isAudioMessage).toBe(true);
    const att = bb.attachments.get(sent.attachments[0]!)!;
    expect(att.transferName).toBe('vn_0123abcd.caf');
    expect(att.bytes.equals(CAF)).toBe(true);
  });

  it('edits through /message/:guid/edit with the fields BlueBubbles requires', async () => {
    const { guid } = await driver.sendText(direct, 'Meet at 5');
    await driver.edit(guid, 0, 'Meet at 6');
    expect(bb.lastTo('POST', `/api/v1/message/${guid}/edit`).json).toEqual({ editedMessage: 'Meet at 6', backwardsCompatibilityMessage: 'Edited to \u201cMeet at 6\u201d', partIndex: 0 });
    expect(bb.messages.get(guid)!.text).toBe('Meet at 6');
    expect((await failure(driver.edit('NO-SUCH-GUID', 0, 'x'))).kind).toBe('not_found');
  });

  it('reacts by looking up the message chat, then /message/react; removal is "-tapback"', async () => {
    const incoming = bb.addIncoming({ from: TO, text: 'Lunch?' });
    await driver.react(incoming.guid, 'love', false);
    expect(bb.lastTo('GET', `/api/v1/message/${incoming.guid}`).query).toEqual({ with: 'chats', password: bb.password });
    expect(bb.lastTo('POST', '/api/v1/message/react').json).toEqual({ chatGuid: `iMessage;-;${TO}`, selectedMessageGuid: incoming.guid, reaction: 'love', partIndex: 0 });
    await driver.react(incoming.guid, 'laugh', true);
    expect(bb.lastTo('POST', '/api/v1/message/react').json.reaction).toBe('-laugh');
    expect((await failure(driver.react('NO-SUCH-GUID', 'like', false))).kind).toBe('not_found');
  });

  it('adds a participant to a group; a one-to-one chat is rejected, an unknown chat not found', async () => {
    const group = bb.groupChat(['+14155550101', '+14155550102'], 'Team');
    await driver.addParticipant(group.guid, '+14155550103');
    const req = bb.lastTo('POST', `/api/v1/chat/${group.guid}/participant/add`);
    expect(req.json).toEqual({ address: '+14155550103' });
    expect(bb.chats.get(group.guid)!.participants).toContain('+14155550103');
    const dm = bb.directChat('+14155550104');
    expect((await failure(driver.addParticipant(dm.guid, '+14155550105'))).kind).toBe('rejected');
    expect((await failure(driver.addParticipant('iMessage;+;chat000000000000', '+14155550105'))).kind).toBe('not_found');
  });

  it("waits for an edit, a reaction or a group change as long as BlueBubbles waits on Messages, past timeout_ms, and the line stays up", async () => {
    // BlueBubbles answers these once Messages confirms them (up to ~43 s, ~64 s for a reaction).
    const slow = bluebubblesDriver(context(bb.config({ timeout_ms: 200, health_recheck_ms: 60_000 })));
    const { guid } = await slow.sendText(direct, 'Meet at 5');
    bb.inject(`POST /api/v1/message/${guid}/edit`, { hangMs: 600 });
    await slow.edit(guid, 0, 'Meet at 7');
    expect(bb.messages.get(guid)!.text).toBe('Meet at 7');
    const incoming = bb.addIncoming({ from: TO, text: 'Dinner?' });
    bb.inject('POST /api/v1/message/react', { hangMs: 600 });
    await slow.react(incoming.guid, 'like', false);
    const group = bb.groupChat(['+14155550121', '+14155550122'], 'Crew');
    bb.inject(`POST /api/v1/chat/${group.guid}/participant/add`, { hangMs: 600 });
    await slow.addParticipant(group.guid, '+14155550123');
    expect(bb.chats.get(group.guid)!.participants).toContain('+14155550123');
    expect(await slow.available!()).toBe(true);
    // Requests BlueBubbles answers at once still give up after timeout_ms.
    bb.inject('GET /api/v1/server/info', { hangMs: 600 });
    expect((await failure(slow.refresh())).kind).toBe('line_down');
  });

  it('creates a group with /chat/new over the Private API', async () => {
    const { chatKey, guid } = await driver.createGroup(['+14155550106', '+14155550107'], 'Welcome!');
    expect(bb.lastTo('POST', '/api/v1/chat/new').json).toEqual({
      addresses: ['+14155550106', '+14155550107'], message: 'Welcome!', method: 'private-api', service: 'iMessage', tempGuid: expect.stringMatching(/^temp-/),
    });
    expect(chatKey).toMatch(/^iMessage;\+;chat/);
    expect(bb.messages.get(guid)?.chatGuid).toBe(chatKey);
  });

  it('finds a group it created by its members and first message (lookupGroup), never another membership, text or a claimed guid', async () => {
    const since = Date.now();
    const other = await driver.createGroup(['+14155550108', '+14155550110'], 'Kickoff');
    const mine = await driver.createGroup(['+14155550108', '+14155550109'], 'Kickoff', { ref: 'gc_1' });
    expect(bb.lastTo('POST', '/api/v1/chat/new').json.tempGuid).toBe('temp-gc_1');
    const probe = (handles: string[], claimed: string[] = []) => ({ handles, text: 'Kickoff', recordedAt: since, isClaimed: async (g: string) => claimed.includes(g) });
    expect(await driver.lookupGroup('gc_1', probe(['+14155550109', '+14155550108']))).toEqual({ state: 'created', chatKey: mine.chatKey, guid: mine.guid });
    expect(await driver.lookupGroup('gc_0', probe(['+14155550108', '+14155550110']))).toEqual({ state: 'created', chatKey: other.chatKey, guid: other.guid });
    expect(bb.lastTo('POST', '/api/v1/message/query').json).toEqual({ with: ['chat', 'chat.participants'], after: since - 60_000, sort: 'ASC', offset: 0, limit: 1000 });
    expect(await driver.lookupGroup('gc_1', probe(['+14155550108', '+14155550111']))).toEqual({ state: 'not_created' });
    expect(await driver.lookupGroup('gc_1', probe(['+14155550108', '+14155550109'], [mine.guid]))).toEqual({ state: 'not_created' });
    expect(await driver.lookupGroup('gc_1', { ...probe(['+14155550108', '+14155550109']), text: 'Kickoff!' })).toEqual({ state: 'not_created' });
    // A Mac that cannot answer now cannot tell.
    bb.inject('POST /api/v1/message/query', { html: 502 });
    expect(await driver.lookupGroup('gc_1', probe(['+14155550108', '+14155550109']))).toMatchObject({ state: 'unknown' });
  });

  it('finds a lost send whose text had leading or trailing whitespace (the Mac serializes it trimmed), text and group', async () => {
    const since = Date.now();
    const sent = await driver.sendText(direct, 'See you at 5pm.\n', { ref: 'msg_ws' });
    const found = ((await (await fetch(`${bb.url}/api/v1/message/${sent.guid}?password=${encodeURIComponent(bb.password)}`)).json()) as { data: { text: string } }).data;
    expect(found.text).toBe('See you at 5pm.'); // sanitizeStr, as BlueBubbles answers
    const probe = { target: direct, recordedAt: since, texts: ['See you at 5pm.\n'], filenames: [], isClaimed: async () => false };
    expect(await driver.lookupSend('msg_ws', probe)).toEqual({ state: 'sent', guid: sent.guid });
    expect(await driver.lookupSend('msg_ws', { ...probe, texts: ['See you at 6pm.'] })).toEqual({ state: 'not_sent' });
    const group = await driver.createGroup(['+14155550140', '+14155550141'], '  Hello all ', { ref: 'gc_ws' });
    const gprobe = { handles: ['+14155550140', '+14155550141'], text: '  Hello all ', recordedAt: since, isClaimed: async () => false };
    expect(await driver.lookupGroup('gc_ws', gprobe)).toEqual({ state: 'created', chatKey: group.chatKey, guid: group.guid });
  });

  it('finds a lost send that Messages stored with an error as failed, by its guid', async () => {
    const since = Date.now();
    const sent = await driver.sendText(direct, 'This one will not arrive', { ref: 'msg_err' });
    bb.failSent(sent.guid, 22);
    const probe = { target: direct, recordedAt: since, texts: ['This one will not arrive'], filenames: [], isClaimed: async () => false };
    expect(await driver.lookupSend('msg_err', probe)).toEqual({ state: 'failed', guid: sent.guid });
  });

  it('reports every capability while the Private API is on and its helper connected', () => {
    expect([...driver.capabilities()].sort()).toEqual([...DRIVER_CAPABILITIES].sort());
  });
});

describe('BlueBubbles driver: without the Private API', () => {
  let bb: StandIn;
  beforeAll(async () => {
    bb = await new StandIn().start();
  });
  afterAll(() => bb.stop());
  beforeEach(() => {
    bb.privateApi = false;
    bb.requests = [];
  });

  it('offers only text and media, and says unsupported for the rest without calling the server', async () => {
    const driver = bluebubblesDriver(context(bb.config()));
    await driver.refresh();
    expect([...driver.capabilities()].sort()).toEqual(['media', 'text']);
    const before = bb.requests.length;
    for (const p of [
      driver.sendVoiceNote(direct, file('v.caf', 'audio/x-caf', CAF)),
      driver.edit('G', 0, 'x'),
      driver.react('G', 'like', false),
      driver.addParticipant('iMessage;+;chat1', '+14155550101'),
      driver.createGroup(['+14155550101', '+14155550102'], 'hi'),
      driver.sendText(direct, 'boom', { effect: 'com.apple.messages.effect.CKFireworksEffect' }),
    ]) {
      const f = await failure(p);
      expect(f.kind).toBe('unsupported');
      expect(f.message).toMatch(/Private API/);
    }
    expect(bb.requests.slice(before).filter((r) => r.path !== '/api/v1/server/info')).toEqual([]);
  });

  it('sends text by AppleScript with a tempGuid, and grouped media one by one', async () => {
    const driver = bluebubblesDriver(context(bb.config()));
    await driver.refresh();
    await driver.sendText(direct, 'plain');
    expect(bb.lastTo('POST', '/api/v1/message/text').json).toEqual({ chatGuid: `iMessage;-;${TO}`, tempGuid: expect.stringMatching(/^temp-/), message: 'plain', method: 'apple-script' });
    const { guids } = await driver.sendMedia(direct, [file('a.png', 'image/png', PNG), file('b.png', 'image/png', PNG2)], { grouped: true });
    expect(guids).toHaveLength(2);
    expect(bb.requestsTo('POST', '/api/v1/message/attachment').map((r) => r.fields!.method)).toEqual(['apple-script', 'apple-script']);
    expect(bb.requestsTo('POST', '/api/v1/message/multipart')).toEqual([]);
  });

  it('honours private_api: false in driver_config even when the server offers it', async () => {
    bb.privateApi = true;
    const driver = bluebubblesDriver(context(bb.config({ private_api: false })));
    await driver.refresh();
    expect([...driver.capabilities()].sort()).toEqual(['media', 'text']);
    expect((await failure(driver.edit('G', 0, 'x'))).kind).toBe('unsupported');
  });

  it('treats a disconnected helper as no Private API, and learns it from a refused call', async () => {
    bb.privateApi = true;
    bb.helperConnected = true;
    const driver = bluebubblesDriver(context(bb.config()));
    await driver.refresh();
    const { guid } = await driver.sendText(direct, 'x');
    expect(driver.capabilities().has('edit')).toBe(true);
    bb.helperConnected = false; // the helper drops; the driver's info is still fresh
    const f = await failure(driver.edit(guid, 0, 'y'));
    expect(f.kind).toBe('unsupported');
    expect(f.message).toMatch(/Private API Helper is not connected/);
    expect(driver.capabilities().has('edit')).toBe(false);
    await driver.refresh();
    expect(driver.capabilities().has('voice_notes')).toBe(false);
    bb.helperConnected = true;
    await driver.refresh();
    expect(driver.capabilities().has('voice_notes')).toBe(true);
  });
});

describe('BlueBubbles driver: failures', () => {
  let bb: StandIn;
  beforeAll(async () => {
    bb = await new StandIn().start();
  });
  afterAll(() => bb.stop());
  beforeEach(() => {
    bb.privateApi = true;
    bb.helperConnected = true;
  });

  const noSecret = (f: DriverFailure) => {
    expect(f.message).not.toContain(bb.password);
    expect(f.message).not.toContain(encodeURIComponent(bb.password));
    expect(f.message).not.toContain('password=');
  };

  it('maps a server that is down to line_down', async () => {
    const gone = await new StandIn().start();
    const driver = bluebubblesDriver(context(gone.config()), { probeOnStart: false });
    await gone.stop();
    const f = await failure(driver.sendText(direct, 'hi'));
    expect(f.kind).toBe('line_down');
    expect(f.message).toMatch(/unreachable \(ECONNREFUSED\)/);
    noSecret(f);
  });

  it('honours timeout_ms; a send whose answer never came may have gone out (ambiguous), as may one cut mid-answer', async () => {
    const driver = bluebubblesDriver(context(bb.config({ timeout_ms: 200 })));
    await driver.refresh();
    bb.inject('POST /api/v1/message/text', { hangMs: 1500 });
    const started = Date.now();
    const f = await failure(driver.sendText(direct, 'slow'));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(f.kind).toBe('ambiguous');
    expect(f.message).toMatch(/within 200 ms; the message may have gone out/);
    noSecret(f);
    bb.inject('POST /api/v1/message/text', { reset: true });
    expect((await failure(driver.sendText(direct, 'cut'))).kind).toBe('ambiguous');
    // Not a send: a server that does not answer in time is down.
    bb.inject('GET /api/v1/server/info', { hangMs: 1500 });
    expect((await failure(driver.refresh())).kind).toBe('line_down');
  });

  it('marks a Mac that accepts connections but never answers as down: within health_recheck_ms available() answers at once', async () => {
    const driver = bluebubblesDriver(context(bb.config({ timeout_ms: 200, health_recheck_ms: 60_000 })), { probeOnStart: false });
    bb.inject('GET /api/v1/server/info', { hangMs: 1500 });
    const asked = bb.requestsTo('GET', '/api/v1/server/info').length;
    expect(await driver.available!()).toBe(false); // one timeout
    const started = Date.now();
    expect(await driver.available!()).toBe(false);
    expect(Date.now() - started).toBeLessThan(100);
    expect(bb.requestsTo('GET', '/api/v1/server/info').length).toBe(asked + 1); // not probed again
    // BlueBubbles' own 504 (its GatewayTimeout envelope) counts the same.
    const other = bluebubblesDriver(context(bb.config({ health_recheck_ms: 60_000 })), { probeOnStart: false });
    bb.inject('GET /api/v1/server/info', { status: 504, body: { status: 504, message: 'The server took too long to response!', error: { type: 'Gateway Timeout', message: 'Request timed out' } } });
    expect(await other.available!()).toBe(false);
    expect(await other.available!()).toBe(false);
    expect(bb.requestsTo('GET', '/api/v1/server/info').length).toBe(asked + 2);
  });

  it('maps a Messages send failure (500 iMessage Error) to unreachable', async () => {
    bb.unreachable.add('+14155550199');
    bb.directChat('+14155550199');
    const driver = bluebubblesDriver(context(bb.config()));
    const f = await failure(driver.sendText({ kind: 'direct', handle: '+14155550199' }, 'hi'));
    expect(f.kind).toBe('unreachable');
    expect(f.message).toMatch(/500: Message Send Error: Failed to send message/);
    noSecret(f);
  });

  it('fails an attachment, a voice note or a reaction that Messages stored with an error, though BlueBubbles answered 200', async () => {
    const to = { kind: 'direct' as const, handle: '+14155550126' };
    bb.notDelivered.add(to.handle);
    bb.directChat(to.handle);
    const driver = bluebubblesDriver(context(bb.config()));
    await driver.refresh();
    const media = await failure(driver.sendMedia(to, [file('a.png', 'image/png', PNG)], { grouped: false }));
    expect(media.kind).toBe('unreachable');
    expect(media.message).toMatch(/error 22/);
    expect((await failure(driver.sendVoiceNote(to, file('v.caf', 'audio/x-caf', CAF)))).kind).toBe('unreachable');
    const incoming = bb.addIncoming({ from: to.handle, text: 'Lunch?' });
    expect((await failure(driver.react(incoming.guid, 'like', false))).kind).toBe('unreachable');
    // Text says so itself (a 500), as before.
    expect((await failure(driver.sendText(to, 'hi'))).kind).toBe('unreachable');
  });

  it('maps an unexpected 500 Server Error on a send to unreachable, and on a group change to rejected', async () => {
    const driver = bluebubblesDriver(context(bb.config()));
    await driver.refresh();
    bb.inject('POST /api/v1/message/text', { status: 500, body: { status: 500, message: 'An unhandled error has occurred!', error: { type: 'Server Error', message: 'boom' } } });
    expect((await failure(driver.sendText(direct, 'x'))).kind).toBe('unreachable');
    const dm = bb.directChat('+14155550120');
    expect((await failure(driver.addParticipant(dm.guid, '+14155550121'))).kind).toBe('rejected');
  });

  it('reads only the Private API\'s own "off" answers as off: a failure that names it is an ordinary one', async () => {
    const driver = bluebubblesDriver(context(bb.config()));
    await driver.refresh();
    bb.inject('POST /api/v1/chat/new', { status: 500, body: { status: 500, message: 'An unhandled error has occurred!', error: { type: 'Server Error', message: 'Failed to create chat via the Private API!' } } });
    expect((await failure(driver.createGroup(['+14155550130', '+14155550131'], 'Hi all'))).kind).toBe('unreachable');
    expect([...driver.capabilities()].sort()).toEqual([...DRIVER_CAPABILITIES].sort());
    // PrivateApiAction.throwForBadStatus: the helper is gone.
    const notRunning = 'Failed to invoke Private API! Error: BlueBubblesHelper is not running!';
    bb.inject('POST /api/v1/message/text', { status: 500, body: { status: 500, message: 'Message Send Error', error: { type: 'iMessage Error', message: notRunning } } });
    expect((await failure(driver.sendText(direct, 'x'))).kind).toBe('unsupported');
    expect(driver.capabilities().has('edit')).toBe(false);
  });

  it("maps a proxy error page (not BlueBubbles) to line_down, and BlueBubbles' own 504 on a send to ambiguous", async () => {
    const driver = bluebubblesDriver(context(bb.config()));
    await driver.refresh();
    bb.inject('POST /api/v1/message/text', { html: 502 });
    expect((await failure(driver.sendText(direct, 'x'))).kind).toBe('line_down');
    const timedOut = { status: 504, body: { status: 504, message: 'The request timed-out after 60000 ms!', error: { type: 'Gateway Timeout', message: 'The server took too long to respond and has timed-out!' } } };
    // Its own request timeout: Messages may have sent it meanwhile.
    bb.inject('POST /api/v1/message/text', timedOut);
    expect((await failure(driver.sendText(direct, 'x'))).kind).toBe('ambiguous');
    bb.inject('GET /api/v1/server/info', timedOut);
    expect((await failure(driver.refresh())).kind).toBe('line_down');
  });

  it('maps a wrong password to line_down without echoing it', async () => {
    const driver = bluebubblesDriver(context({ url: bb.url, password: 'wrong-pw&y=2' }));
    const f = await failure(driver.sendText(direct, 'x'));
    expect(f.kind).toBe('line_down');
    expect(f.message).toMatch(/password/);
    expect(f.message).not.toContain('wrong-pw');
  });

  it('maps a validation failure (400) on a send to rejected', async () => {
    const driver = bluebubblesDriver(context(bb.config()));
    await driver.refresh();
    bb.inject('POST /api/v1/message/text', { status: 400, body: { status: 400, message: "You've made a bad request! Please check your request params & body", error: { type: 'Validation Error', message: 'The message field must be present.' } } });
    expect((await failure(driver.sendText(direct, 'x'))).kind).toBe('rejected');
  });

  it('refuses an invalid driver_config without calling anything', async () => {
    const driver = bluebubblesDriver(context({ url: 'ftp://nope', password: '' }));
    expect(driver.capabilities().size).toBe(0);
    const f = await failure(driver.sendText(direct, 'x'));
    expect(f.kind).toBe('line_down');
    expect(f.message).toMatch(/driver_config/);
  });
});

describe('BlueBubbles driver: service epoch', () => {
  let bb: StandIn;
  beforeEach(async () => {
    bb = await new StandIn().start();
  });
  afterEach(() => bb.stop());

  it('is stable while the server keeps running, and persisted through the state port', async () => {
    const ctx = context(bb.config());
    const driver = bluebubblesDriver(ctx);
    const e1 = await driver.serviceEpoch();
    expect(e1).toMatch(/^bb:[0-9a-f]{12}:1$/);
    expect(await driver.serviceEpoch()).toBe(e1);
    expect(ctx.state.epochs.get(ctx.lineId)).toBe(e1);
    // Another process (a new driver instance on the same database) reads the same epoch.
    expect(await bluebubblesDriver({ ...ctx }).serviceEpoch()).toBe(e1);
  });

  it('changes after the server restarts', async () => {
    const ctx = context(bb.config());
    const driver = bluebubblesDriver(ctx);
    const e1 = await driver.serviceEpoch();
    await bb.stop();
    expect((await failure(driver.sendText(direct, 'x'))).kind).toBe('line_down');
    // While it is down the epoch stays what it was.
    expect(await driver.serviceEpoch()).toBe(e1);
    await bb.start(bb.port);
    // Callers at the same moment agree on the new epoch.
    const [e2, e2b] = await Promise.all([driver.serviceEpoch(), driver.serviceEpoch()]);
    expect(e2).not.toBe(e1);
    expect(e2b).toBe(e2);
    expect(await driver.serviceEpoch()).toBe(e2);
  });

  it('changes when the server comes back as another version, or its helper reconnects', async () => {
    const ctx = context(bb.config());
    const driver = bluebubblesDriver(ctx);
    const e1 = await driver.serviceEpoch();
    bb.serverVersion = '1.9.10';
    const e2 = await driver.serviceEpoch();
    expect(e2).not.toBe(e1);
    bb.helperConnected = false;
    expect(await driver.serviceEpoch()).toBe(e2);
    bb.helperConnected = true;
    const e3 = await driver.serviceEpoch();
    expect(e3).not.toBe(e2);
    expect(e3).toMatch(/:3$/);
  });

  // Two processes on one database: two driver instances sharing one state port.
  it('two processes that both saw one restart name one new epoch, whichever asks first', async () => {
    const ctx = context(bb.config());
    const a = bluebubblesDriver(ctx);
    const b = bluebubblesDriver({ ...ctx });
    const e1 = await a.serviceEpoch();
    expect(await b.serviceEpoch()).toBe(e1);
    for (const [first, second, gen] of [[a, b, 2], [b, a, 3]] as const) {
      await bb.stop();
      for (const d of [a, b]) expect((await failure(d.refresh())).kind).toBe('line_down');
      await bb.start(bb.port);
      const e = await first.serviceEpoch();
      expect(e).toMatch(new RegExp(`:${gen}$`));
      expect(await second.serviceEpoch()).toBe(e);
      expect(await first.serviceEpoch()).toBe(e);
    }
    // The helper reconnecting, seen by both: one new epoch too.
    bb.helperConnected = false;
    for (const d of [a, b]) await d.serviceEpoch();
    bb.helperConnected = true;
    const e4 = await b.serviceEpoch();
    expect(e4).toMatch(/:4$/);
    expect(await a.serviceEpoch()).toBe(e4);
  });

  it('a process counts a restart it saw after another process counted the one before', async () => {
    const ctx = context(bb.config());
    const a = bluebubblesDriver(ctx);
    const b = bluebubblesDriver({ ...ctx });
    await a.serviceEpoch();
    await b.serviceEpoch();
    // First restart: both see it; only A names the next epoch; B hears from the Mac again.
    await bb.stop();
    for (const d of [a, b]) expect((await failure(d.refresh())).kind).toBe('line_down');
    await bb.start(bb.port);
    expect(await a.serviceEpoch()).toMatch(/:2$/);
    await b.refresh();
    // Second restart, seen by both: B (holding evidence of both) and A agree on one more.
    await bb.stop();
    for (const d of [a, b]) expect((await failure(d.refresh())).kind).toBe('line_down');
    await bb.start(bb.port);
    const e3 = await b.serviceEpoch();
    expect(e3).toMatch(/:3$/);
    expect(await a.serviceEpoch()).toBe(e3);
  });
});
