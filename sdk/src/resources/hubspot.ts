/**
 * The HubSpot integration as its tenant sees it (`/api/v1/integrations/hubspot…`). Every route
 * answers 404 / 2011 when the service has no HubSpot app configured: `status()` returns null then
 * (any other failure, such as an unknown tenant's 404 / 2001, is thrown).
 * Types generated from the contract (src/contract/hubspot-*.ts), like every other resource's.
 */
import { BlueLineError } from '../errors.js';
import { Resource, seg, type CallOptions } from './base.js';
import type { ArrayItem, QueryOf, Req, Res } from '../types.js';

type Status = Res<'/api/v1/integrations/hubspot', 'get'>;
export type HubSpotStatus = Status;
export type HubSpotInstall = ArrayItem<Status['installs']>;
export type HubSpotAutoSendUpdate = Req<'/api/v1/integrations/hubspot/{portal_id}', 'patch'>;
export type HubSpotAutoSendsPage = Res<'/api/v1/integrations/hubspot/{portal_id}/auto-sends', 'get'>;
export type HubSpotAutoSendsQuery = QueryOf<'/api/v1/integrations/hubspot/{portal_id}/auto-sends', 'get'>;
export type HubSpotAutoSend = ArrayItem<HubSpotAutoSendsPage['auto_sends']>;
export type HubSpotHeldActionsPage = Res<'/api/v1/integrations/hubspot/{portal_id}/held-actions', 'get'>;
export type HubSpotHeldActionsQuery = QueryOf<'/api/v1/integrations/hubspot/{portal_id}/held-actions', 'get'>;
export type HubSpotHeldAction = ArrayItem<HubSpotHeldActionsPage['held_actions']>;
export type HubSpotInstallStart = Res<'/api/v1/integrations/hubspot/install', 'post'>;
export type HubSpotInstallChange = Res<'/api/v1/integrations/hubspot/{portal_id}', 'patch'>;

const BASE = '/api/v1/integrations/hubspot';
/** The service's answer on every HubSpot route when it has no HubSpot app (HUBSPOT_CLIENT_ID/SECRET unset). */
const NOT_CONFIGURED = 2011;

export class HubSpot extends Resource {
  /** `GET`: installs, today's calls, the reply-push breaker; null when the integration is not configured (404 / 2011). */
  async status(opts: CallOptions = {}): Promise<HubSpotStatus | null> {
    try {
      return await this.core.request<HubSpotStatus>({ method: 'GET', path: BASE, retry: 'idempotent', ...opts });
    } catch (err) {
      // Only "not configured" means there is no integration; a 404 such as an unknown tenant (2001) is the caller's to see.
      if (err instanceof BlueLineError && err.status === 404 && err.code === NOT_CONFIGURED) return null;
      throw err;
    }
  }

  /** `POST …/install`: HubSpot's consent URL with a single-use state (valid 10 minutes). */
  startInstall(opts: CallOptions = {}): Promise<HubSpotInstallStart> {
    return this.core.request({ method: 'POST', path: `${BASE}/install`, retry: 'unsafe', ...opts });
  }

  /** `PATCH …/{portal_id}`: the contact-creation auto-send (enabling needs a template, else 1002). */
  update(portalId: string, params: HubSpotAutoSendUpdate, opts: CallOptions = {}): Promise<HubSpotInstallChange> {
    return this.core.request({ method: 'PATCH', path: `${BASE}/${seg(portalId)}`, json: params, retry: 'unsafe', ...opts });
  }

  /** `DELETE …/{portal_id}`: uninstall; the tokens are deleted. */
  uninstall(portalId: string, opts: CallOptions = {}): Promise<Res<'/api/v1/integrations/hubspot/{portal_id}', 'delete'>> {
    return this.core.request({ method: 'DELETE', path: `${BASE}/${seg(portalId)}`, retry: 'idempotent', ...opts });
  }

  /** `GET …/{portal_id}/auto-sends`: each created contact's auto-send record. */
  autoSends(portalId: string, query: HubSpotAutoSendsQuery = {}, opts: CallOptions = {}): Promise<HubSpotAutoSendsPage> {
    return this.core.request({ method: 'GET', path: `${BASE}/${seg(portalId)}/auto-sends`, query, retry: 'idempotent', ...opts });
  }

  /** `GET …/{portal_id}/held-actions`: workflow actions held for time (sent later, then HubSpot is told). */
  heldActions(portalId: string, query: HubSpotHeldActionsQuery = {}, opts: CallOptions = {}): Promise<HubSpotHeldActionsPage> {
    return this.core.request({ method: 'GET', path: `${BASE}/${seg(portalId)}/held-actions`, query, retry: 'idempotent', ...opts });
  }
}
