/** The tenant's view of its HubSpot installs, as the contract shows them. */
import { isoAt, isoOrNull } from '../../clock.js';
import type { HubSpotInstallView } from '../../contract/hubspot-common.js';
import type { ListHubSpotInstallsResponse } from '../../contract/hubspot-list-installs.js';
import type { StartHubSpotInstallResponse } from '../../contract/hubspot-start-install.js';
import type { ListHubSpotAutoSendsResponse } from '../../contract/hubspot-list-auto-sends.js';
import type { ListHubSpotHeldActionsResponse } from '../../contract/hubspot-list-held-actions.js';
import type { AutoSendPage, HeldActionPage, InstallStart, InstallsOverview, InstallSummary, PortalConnected } from '../../crm/hubspot/installs.js';
import type { ReplyPushStatus } from '../../crm/hubspot/push-job.js';
import { waitingOf } from '../../crm/hubspot/auto-sends.js';
import { heldOutcomeOf } from '../../crm/hubspot/held-actions.js';

export function installView(s: InstallSummary): HubSpotInstallView {
  const { install: i, callsToday: c } = s;
  return {
    portal_id: i.portal_id,
    account_type: i.account_type,
    sandbox: i.sandbox,
    status: i.status,
    installed_at: isoAt(i.installed_at),
    ui_domain: i.ui_domain,
    auto_send: { enabled: i.auto_send.enabled, template: i.auto_send.template, line_id: i.auto_send.line_id },
    calls_today: {
      sidebar_load: c.counted.sidebar_load,
      sidebar_send: c.counted.sidebar_send,
      contact_created: c.counted.contact_created,
      reply_push: c.counted.reply_push,
      workflow_callback: c.counted.workflow_callback,
      token_refresh: c.tokenRefresh,
      total_counted: c.totalCounted,
    },
    first_touch_cap_reached_today: s.firstTouchCapReachedToday,
    held_actions: { ...s.heldActions.byState, next_attempt_at: isoOrNull(s.heldActions.nextAttemptAt) },
  };
}

function replyPushView(p: ReplyPushStatus): Omit<ListHubSpotInstallsResponse, 'installs'> {
  const b = p.breaker;
  return {
    breaker: { state: b.state, consecutive_failures: b.consecutiveFailures, opened_at: isoOrNull(b.openedAt), last_error: b.lastError },
    push_backlog: p.pushBacklog,
    last_push_at: isoOrNull(p.lastPushAt),
  };
}

export const installsView = (o: InstallsOverview): ListHubSpotInstallsResponse => ({ installs: o.installs.map(installView), ...replyPushView(o.replyPush) });

export const installStartView = (s: InstallStart): StartHubSpotInstallResponse => ({ install_url: s.installUrl, expires_at: isoAt(s.expiresAt) });

const chatOf = (chats: Map<string, string>, messageId: string | null) => (messageId && chats.get(messageId)) ?? null;

export const autoSendPageView = (p: AutoSendPage): ListHubSpotAutoSendsResponse => ({
  auto_sends: p.autoSends.map((a) => {
    const w = waitingOf(a);
    return { object_id: a.object_id, status: a.status, reason: a.reason, code: a.code, message_id: a.message_id, chat_id: chatOf(p.chats, a.message_id), created_at: isoAt(a.created_at), waiting: w && { next_attempt_at: isoAt(w.nextAttemptAt), gives_up_at: isoAt(w.givesUpAt) } };
  }),
  next_cursor: p.nextCursor,
});

export const heldActionPageView = (p: HeldActionPage): ListHubSpotHeldActionsResponse => ({
  held_actions: p.heldActions.map((a) => ({
    callback_id: a.callback_id,
    object_id: a.object_id,
    state: a.state,
    reason: a.reason,
    next_attempt_at: a.state === 'held' || a.state === 'completing' ? isoAt(a.next_attempt_at) : null,
    hold_expires_at: isoAt(a.expires_at),
    outcome: heldOutcomeOf(a),
    message_id: a.message_id,
    chat_id: chatOf(p.chats, a.message_id),
    last_error: a.last_error,
    created_at: isoAt(a.created_at),
    completed_at: isoOrNull(a.completed_at),
  })),
  next_cursor: p.nextCursor,
});

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page the browser lands on after HubSpot's consent screen. */
export function portalConnectedPage(p: PortalConnected): string {
  const what = `HubSpot portal ${p.portalId} (${p.accountType}${p.sandbox ? ', sandbox' : ''}) is now connected to project "${p.tenantSlug}".`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>HubSpot connected</title></head><body><h1>HubSpot connected</h1><p>${escapeHtml(what)}</p><p>You can close this window.</p></body></html>`;
}
