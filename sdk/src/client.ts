import { Core, type BluelineOptions } from './core.js';
import { Attachments } from './resources/attachments.js';
import { Chats } from './resources/chats.js';
import { DevInbox, Events } from './resources/events.js';
import { Lines } from './resources/lines.js';
import { Messages } from './resources/messages.js';
import { VoiceNotes } from './resources/voice-notes.js';
import { WebhookSubscriptions } from './resources/webhook-subscriptions.js';
import { HubSpot } from './resources/hubspot.js';
import { SigningSecret } from './resources/signing-secret.js';
import { Admin, ChatList, ProjectSettings, Sessions, StatsResource, VoiceNoteAudio } from './resources/console.js';

/**
 * The Blueline API client.
 *
 * ```ts
 * const client = new Blueline({ baseUrl, secret, tenant });   // or BLUELINE_URL / _SECRET / _TENANT
 * const sent = await client.messages.send({ phone: '+14155550100', body: 'Hello!' });
 * ```
 */
export class Blueline {
  readonly lines: Lines;
  readonly messages: Messages;
  readonly chats: Chats;
  readonly attachments: Attachments;
  readonly voiceNotes: VoiceNotes;
  readonly events: Events;
  readonly devInbox: DevInbox;
  readonly webhookSubscriptions: WebhookSubscriptions;
  /** Console sign-in and sign-out (`auth: 'session'` in a browser). */
  readonly session: Sessions;
  /** `GET /api/v1/chats`: chats by latest activity. */
  readonly chatList: ChatList;
  readonly settings: ProjectSettings;
  /** The account's signing secret: when issued, the overlap, a self-service rotation. */
  readonly signingSecret: SigningSecret;
  readonly stats: StatsResource;
  readonly voiceNoteAudio: VoiceNoteAudio;
  /** The operator's API (/admin/v1). */
  readonly admin: Admin;
  /** The HubSpot integration (`status()` is null when the service has none configured). */
  readonly hubspot: HubSpot;
  /** The transport, for calls the resources do not cover yet. */
  readonly core: Core;

  constructor(options: BluelineOptions = {}) {
    const core = (this.core = new Core(options));
    this.lines = new Lines(core);
    this.messages = new Messages(core);
    this.chats = new Chats(core);
    this.attachments = new Attachments(core);
    this.voiceNotes = new VoiceNotes(core);
    this.events = new Events(core);
    this.devInbox = new DevInbox(core);
    this.webhookSubscriptions = new WebhookSubscriptions(core);
    this.session = new Sessions(core);
    this.chatList = new ChatList(core);
    this.settings = new ProjectSettings(core);
    this.signingSecret = new SigningSecret(core);
    this.stats = new StatsResource(core);
    this.voiceNoteAudio = new VoiceNoteAudio(core);
    this.admin = new Admin(core);
    this.hubspot = new HubSpot(core);
  }
}
