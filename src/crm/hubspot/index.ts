/**
 * The HubSpot integration assembled from the operator's app configuration;
 * undefined when HUBSPOT_CLIENT_ID/SECRET are unset (its routes then answer 404).
 */
import type { Logger } from 'pino';
import { publicBaseUrl, type Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import type { Store } from '../../store/index.js';
import type { Messaging } from '../../domain/messaging/index.js';
import { hubspotApi, type ApiHooks } from './client.js';
import { tokenKeeper } from './tokens.js';
import { hubspotInstalls } from './installs.js';
import { hubspotCrm } from './crm.js';
import { autoSends } from './auto-sends.js';
import { budgetPacer } from './pacer.js';
import { replyPusher } from './reply-push.js';
import { replyPushJob } from './push-job.js';
import { heldActions } from './held-actions.js';

export const OAUTH_CALLBACK_PATH = '/crm/hubspot/oauth/callback';

export function hubspotIntegration(deps: { config: Config; store: Store; clock: Clock; messaging: Messaging; logger?: Logger; onCallEnded?: ApiHooks['ended'] }) {
  const hs = deps.config.hubspot;
  if (!hs) return undefined;
  const { store, clock, messaging, logger } = deps;
  const baseUrl = publicBaseUrl(deps.config);
  const pacer = budgetPacer();
  const api = hubspotApi({ config: hs, store, clock, hooks: { pace: pacer.pace, observe: pacer.observe, ended: deps.onCallEnded } });
  const tokens = tokenKeeper({ store, clock, api, logger });
  const replyPush = replyPushJob(
    { store, clock, pusher: replyPusher({ store, clock, api, tokens, logger }), logger },
    { intervalMs: deps.config.crmPushIntervalMs, pollMs: Math.max(deps.config.workerPollMs, 250) },
  );
  const held = heldActions({ store, clock, api, tokens, messaging, logger }, { pollMs: Math.max(deps.config.workerPollMs, 250) });
  return {
    config: hs,
    /** HubSpot signs the URL it called: ours as the operator published it. */
    publicBaseUrl: baseUrl,
    api,
    tokens,
    installs: hubspotInstalls({ store, clock, config: hs, api, tokens, redirectUri: `${baseUrl}${OAUTH_CALLBACK_PATH}`, logger, replyPush }),
    replyPush,
    crm: hubspotCrm({ store, clock, config: hs, api, tokens, messaging, held }),
    /** Workflow actions held for time, sent and completed at HubSpot by this job. */
    heldActions: held,
    autoSends: autoSends({ store, clock, api, tokens, messaging, logger }, { pollMs: Math.max(deps.config.workerPollMs, 250) }),
  };
}

export type HubSpotIntegration = NonNullable<ReturnType<typeof hubspotIntegration>>;
