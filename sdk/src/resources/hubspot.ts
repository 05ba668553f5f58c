/**
 * The HubSpot integration as its tenant sees it (`/api/v1/integrations/hubspot…`). Every route
 * answers 404 when the service has no HubSpot app configured: `status()` returns null then.
 * The shapes mirror src/contract/hubspot-*.ts (the contract index does not list these
 * operations yet, so they are not in the generated types).
 */
import { BlueLineError } from '../errors.js';
import { Resource, seg, type CallOptions } from './base.js';

export interface HubSpotInstall {
  portal_id: string;
  account_type: string;
  sandbox: boolean;
  status: 'active' | 'uninstalled' | 'token_invalid';
  installed_at: string;
  auto_send: { enabled: boolean; template: string | null; line_id: string | null };
  calls_today: { sidebar_load: number; sidebar_send: number; contact_created: number; reply_push: number; token_refresh: number; total_counted: number };
  first_touch_cap_reached_today: boolean;
}

export interface HubSpotStatus {
  installs: HubSpotInstall[];
  breaker: { state: 'closed' | 'open'; consecutive_failures: number; opened_at: string | null; last_error: string | null };
  push_backlog: number;
  last_push_at: string | null;
}

export interface HubSpotAutoSendUpdate {
  auto_send: { enabled?: boolean; template?: string; line_id?: string | null };
}

export interface HubSpotAutoSend {
  object_id: string;
  status: 'pending' | 'sent' | 'failed' | 'skipped';
  reason: string | null;
  code: number | null;
  message_id: string | null;
  created_at: string;
}

const BASE = '/api/v1/integrations/hubspot';

export class HubSpot extends Resource {
  /** `GET`: installs, today's calls, the reply-push breaker; null when the integration is not configured (404). */
  async status(opts: CallOptions = {}): Promise<HubSpotStatus | null> {
    try {
      return await this.core.request<HubSpotStatus>({ method: 'GET', path: BASE, retry: 'idempotent', ...opts });
    } catch (err) {
      if (err instanceof BlueLineError && err.status === 404) return null;
      throw err;
    }
  }

  /** `POST …/install`: HubSpot's consent URL with a single-use state (valid 10 minutes). */
  startInstall(opts: CallOptions = {}): Promise<{ install_url: string; expires_at: string }> {
    return this.core.request({ method: 'POST', path: `${BASE}/install`, retry: 'unsafe', ...opts });
  }

  /** `PATCH …/{portal_id}`: the contact-creation auto-send (enabling needs a template, else 1002). */
  update(portalId: string, params: HubSpotAutoSendUpdate, opts: CallOptions = {}): Promise<{ install: HubSpotInstall }> {
    return this.core.request({ method: 'PATCH', path: `${BASE}/${seg(portalId)}`, json: params, retry: 'unsafe', ...opts });
  }

  /** `DELETE …/{portal_id}`: uninstall; the tokens are deleted. */
  uninstall(portalId: string, opts: CallOptions = {}): Promise<{ install: HubSpotInstall }> {
    return this.core.request({ method: 'DELETE', path: `${BASE}/${seg(portalId)}`, retry: 'idempotent', ...opts });
  }

  /** `GET …/{portal_id}/auto-sends`: each created contact's auto-send record. */
  autoSends(portalId: string, query: { status?: HubSpotAutoSend['status']; cursor?: string; limit?: number } = {}, opts: CallOptions = {}): Promise<{ auto_sends: HubSpotAutoSend[]; next_cursor: string | null }> {
    return this.core.request({ method: 'GET', path: `${BASE}/${seg(portalId)}/auto-sends`, query, retry: 'idempotent', ...opts });
  }
}
