/**
 * The operations the web console added: session sign-in for browsers, the chat list, the
 * project's own settings, overview statistics, webhook endpoint changes and tests, voice notes
 * as Ogg for `<audio>`, and the operator's admin API. Any client can use them.
 */
import type { Res, Req, QueryOf } from '../types.js';
import { PageIterator } from '../pagination.js';
import { Resource, seg, type CallOptions } from './base.js';

export type ConsoleSession = Res<'/api/v1/console/session', 'get'>;
export type SignInRequest = Req<'/api/v1/console/sessions', 'post'>;
export type ChatListQuery = QueryOf<'/api/v1/chats', 'get'>;
export type ChatListPage = Res<'/api/v1/chats', 'get'>;
export type ChatSummary = ChatListPage['chats'][number];
export type Settings = Res<'/api/v1/settings', 'get'>['settings'];
export type SettingsUpdate = Req<'/api/v1/settings', 'patch'>;
export type Stats = Res<'/api/v1/stats', 'get'>;
export type SubscriptionUpdate = Req<'/api/v1/webhook-subscriptions/{id}', 'patch'>;
export type SubscriptionTestResult = Res<'/api/v1/webhook-subscriptions/{id}/test', 'post'>;
export type AdminLineHealth = Res<'/admin/v1/lines/{id}/health', 'get'>['health'];

/** `client.session`: sign in and out of the console (a browser with `auth: 'session'`). */
export class Sessions extends Resource {
  /** Sets the session cookie; keep the answer's csrf_token in memory (`client.core.csrfToken`). */
  async signIn(params: SignInRequest, opts: CallOptions = {}): Promise<ConsoleSession> {
    const s = await this.core.request<ConsoleSession>({ method: 'POST', path: '/api/v1/console/sessions', json: params, retry: 'unsafe', ...opts });
    this.core.csrfToken = s.csrf_token;
    return s;
  }
  /** This browser's session (after a reload: its CSRF token again); 401 when signed out. */
  async current(opts: CallOptions = {}): Promise<ConsoleSession> {
    const s = await this.core.request<ConsoleSession>({ method: 'GET', path: '/api/v1/console/session', retry: 'idempotent', ...opts });
    this.core.csrfToken = s.csrf_token;
    return s;
  }
  async signOut(opts: CallOptions = {}): Promise<void> {
    await this.core.request({ method: 'DELETE', path: '/api/v1/console/session', retry: 'idempotent', ...opts });
    this.core.csrfToken = undefined;
  }
}

export class ChatList extends Resource {
  /** `GET /api/v1/chats`: newest activity first, `q` searches handles; iterate or `.page()`. */
  list(query: Omit<ChatListQuery, 'cursor'> & { cursor?: string } = {}, opts: CallOptions = {}): PageIterator<ChatSummary, ChatListPage> {
    const { cursor, ...rest } = query as { cursor?: string } & Record<string, string | number | undefined>;
    return new PageIterator<ChatSummary, ChatListPage>(
      (c) => this.core.request({ method: 'GET', path: '/api/v1/chats', query: { ...rest, cursor: c }, retry: 'idempotent', ...opts }),
      (page) => page.chats,
      cursor,
    );
  }
}

export class ProjectSettings extends Resource {
  async get(opts: CallOptions = {}): Promise<Settings> {
    return (await this.core.request<{ settings: Settings }>({ method: 'GET', path: '/api/v1/settings', retry: 'idempotent', ...opts })).settings;
  }
  async update(params: SettingsUpdate, opts: CallOptions = {}): Promise<Settings> {
    return (await this.core.request<{ settings: Settings }>({ method: 'PATCH', path: '/api/v1/settings', json: params, retry: 'unsafe', ...opts })).settings;
  }
}

export class StatsResource extends Resource {
  get(query: { days?: number } = {}, opts: CallOptions = {}): Promise<Stats> {
    return this.core.request({ method: 'GET', path: '/api/v1/stats', query, retry: 'idempotent', ...opts });
  }
}

/** Voice notes as Ogg Opus: `await (await client.voiceNoteAudio.ogg(id)).blob()` for an `<audio>`. */
export class VoiceNoteAudio extends Resource {
  ogg(voiceNoteId: string, opts: CallOptions = {}): Promise<Response> {
    return this.core.request({ method: 'GET', path: `/api/v1/voice-notes/${seg(voiceNoteId)}/audio.ogg`, retry: 'idempotent', raw: true, ...opts });
  }
}

/**
 * `client.admin`: the operator's API (ADMIN_TOKEN as `secret`, or an operator console session).
 * Thin: each call is one route of /admin/v1, typed by the contract.
 */
export class Admin extends Resource {
  private call<T>(method: 'GET' | 'POST' | 'PATCH', path: string, json?: unknown, opts: CallOptions = {}): Promise<T> {
    return this.core.request<T>({ method, path, json, retry: method === 'GET' ? 'idempotent' : 'unsafe', ...opts });
  }
  listAccounts = (o?: CallOptions) => this.call<Res<'/admin/v1/accounts', 'get'>>('GET', '/admin/v1/accounts', undefined, o);
  createAccount = (p: Req<'/admin/v1/accounts', 'post'>, o?: CallOptions) => this.call<Res<'/admin/v1/accounts', 'post'>>('POST', '/admin/v1/accounts', p, o);
  updateAccount = (id: string, p: Req<'/admin/v1/accounts/{id}', 'patch'>, o?: CallOptions) => this.call<Res<'/admin/v1/accounts/{id}', 'patch'>>('PATCH', `/admin/v1/accounts/${seg(id)}`, p, o);
  rotateAccountSecret = (id: string, p: Req<'/admin/v1/accounts/{id}/rotate-secret', 'post'> = {}, o?: CallOptions) =>
    this.call<Res<'/admin/v1/accounts/{id}/rotate-secret', 'post'>>('POST', `/admin/v1/accounts/${seg(id)}/rotate-secret`, p, o);
  listTenants = (o?: CallOptions) => this.call<Res<'/admin/v1/tenants', 'get'>>('GET', '/admin/v1/tenants', undefined, o);
  createTenant = (p: Req<'/admin/v1/tenants', 'post'>, o?: CallOptions) => this.call<Res<'/admin/v1/tenants', 'post'>>('POST', '/admin/v1/tenants', p, o);
  updateTenant = (slug: string, p: Req<'/admin/v1/tenants/{slug}', 'patch'>, o?: CallOptions) => this.call<Res<'/admin/v1/tenants/{slug}', 'patch'>>('PATCH', `/admin/v1/tenants/${seg(slug)}`, p, o);
  listLines = (o?: CallOptions) => this.call<Res<'/admin/v1/lines', 'get'>>('GET', '/admin/v1/lines', undefined, o);
  createLine = (p: Req<'/admin/v1/lines', 'post'>, o?: CallOptions) => this.call<Res<'/admin/v1/lines', 'post'>>('POST', '/admin/v1/lines', p, o);
  updateLine = (id: string, p: Req<'/admin/v1/lines/{id}', 'patch'>, o?: CallOptions) => this.call<Res<'/admin/v1/lines/{id}', 'patch'>>('PATCH', `/admin/v1/lines/${seg(id)}`, p, o);
  /** A line's state (up, down, unknown, inactive) and service epoch, checked now (up to ~4 s). */
  lineHealth = (id: string, o?: CallOptions) => this.call<Res<'/admin/v1/lines/{id}/health', 'get'>>('GET', `/admin/v1/lines/${seg(id)}/health`, undefined, o).then((r) => r.health);
  /** A simulator line's device log: what it "sent" to iMessage. */
  simulatorSent = (lineId: string, o?: CallOptions) => this.call<Res<'/admin/v1/lines/{id}/simulate/sent', 'get'>>('GET', `/admin/v1/lines/${seg(lineId)}/simulate/sent`, undefined, o);
  /** A message "received" by a simulator line, as if a contact wrote. */
  simulatorInbound = (lineId: string, p: Req<'/admin/v1/lines/{id}/simulate/inbound', 'post'>, o?: CallOptions) =>
    this.call<Res<'/admin/v1/lines/{id}/simulate/inbound', 'post'>>('POST', `/admin/v1/lines/${seg(lineId)}/simulate/inbound`, p, o);
}
