/**
 * Pushing one reply to HubSpot: exactly 2 calls (create the communication,
 * associate it with the contact), at most once ever.
 *
 * The push record (queued when the reply was recorded) is claimed with a lease
 * and marked before the create, and the communication's id is recorded as soon
 * as HubSpot answers. Whatever fails
 * after that, a retry only associates the communication it already has: never
 * a second create. When a create may have reached HubSpot without its answer
 * reaching us (a crash before the record, a timeout, a 5xx), the record says so
 * (`create_unknown`) and the retry first looks the communication up (CRM search
 * on its exact hs_timestamp, same body): found → associated, not created again.
 * What remains possible is in docs/decisions.md (HubSpot's search index lags).
 *
 * 401 → one forced refresh (counted as token_refresh) → the same call once
 * more; a second 401 (or a refused refresh token) marks the install
 * token_invalid (`tokens.withToken`, shared with every HubSpot call).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Store, PushCandidate, PushKey } from '../../store/index.js';
import { HubSpotError, type HubSpotApi, type CountAs } from './client.js';
import { TokenInvalid, type TokenKeeper } from './tokens.js';
import { CHANNEL_TYPE, communicationProperties, sameBody } from './reply-body.js';

/** How long one process owns a push (business clock): longer than its calls can take (3 × 10 s timeouts + a refresh). */
export const PUSH_LEASE_MS = 2 * 60_000;

export type PushOutcome =
  | { kind: 'pushed' }
  /** Counts for the breaker: 5xx, network, 403 (a scope missing for the whole portal). */
  | { kind: 'failed'; error: string }
  | { kind: 'rate_limited'; error: string; retryAfterMs: number }
  | { kind: 'token_invalid'; error: string }
  /** This reply cannot be pushed (contact deleted, refused as invalid): given up, the breaker untouched. */
  | { kind: 'given_up'; error: string }
  /** Another process has it, or it was finished meanwhile. */
  | { kind: 'taken' };

/** Our own record of a HubSpot answer could not be written: handled like a crash (the lease stays; a later run recovers). */
export class PushRecordFailed extends Error {
  constructor(readonly writeError: unknown) {
    super(`the push record could not be written: ${(writeError as Error)?.message ?? writeError}`);
  }
}

async function recording(write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (err) {
    throw new PushRecordFailed(err);
  }
}

const DEFINITE_REFUSALS = new Set(['unauthorized', 'forbidden', 'not_found', 'rate_limited', 'invalid_grant', 'bad_request']);

export function replyPusher(deps: { store: Store; clock: Clock; api: HubSpotApi; tokens: TokenKeeper; logger?: Logger }) {
  const { store, clock, api, tokens } = deps;

  /** The communication a lost create made, if HubSpot has it. */
  async function lookUp(c: PushCandidate, props: Record<string, string>, as: CountAs): Promise<string | undefined> {
    const found = await tokens.withToken(c.portal_id, (t) => api.searchCommunications(t, c.sent_at, CHANNEL_TYPE, as));
    return found.find((f) => sameBody(f.properties.hs_communication_body, props.hs_communication_body!))?.id;
  }

  async function classify(err: unknown, c: PushCandidate, tenantId: string): Promise<PushOutcome> {
    const error = err instanceof Error ? err.message : String(err);
    if (err instanceof TokenInvalid) return { kind: 'token_invalid', error };
    const install = await store.hubspot.getInstall(c.portal_id);
    if (!install || install.status !== 'active') return { kind: 'token_invalid', error: `HubSpot portal ${c.portal_id} is ${install?.status ?? 'not installed'}: ${error}` };
    if (err instanceof HubSpotError) {
      if (err.failure === 'rate_limited') return { kind: 'rate_limited', error, retryAfterMs: (err.retryAfterSeconds ?? 10) * 1000 };
      if (err.failure === 'not_found' || err.failure === 'bad_request') return { kind: 'given_up', error };
    }
    void tenantId;
    return { kind: 'failed', error };
  }

  return {
    async push(tenant: { id: string; timezone: string }, c: PushCandidate): Promise<PushOutcome> {
      const key: PushKey = { message_id: c.message_id, portal_id: c.portal_id };
      const now = clock.now();
      const record = await store.hubspotPush.claim(key, now, now + PUSH_LEASE_MS);
      if (!record) return { kind: 'taken' };
      const as: CountAs = { portalId: c.portal_id, timezone: tenant.timezone, kind: 'reply_push' };
      const props = communicationProperties(c.handle, c.parts, c.sent_at);
      let communicationId = record.communication_id ?? undefined;
      // Whether HubSpot may hold a communication we have no answer for (a create whose answer was
      // lost): then the next attempt looks it up first, and must wait for HubSpot's search to see it.
      let createUnknown = !communicationId && Boolean(record.create_unknown);
      try {
        if (createUnknown) {
          communicationId = await lookUp(c, props, as);
          if (communicationId) {
            await recording(store.hubspotPush.created(key, communicationId, clock.now()));
            createUnknown = false;
          }
        }
        if (!communicationId) {
          // Until the create's answer is recorded, a communication may exist.
          if (!createUnknown) await store.hubspotPush.createMayHappen(key, clock.now());
          createUnknown = true;
          try {
            communicationId = (await tokens.withToken(c.portal_id, (t) => api.createCommunication(t, props, as))).id;
          } catch (err) {
            // HubSpot said no (or we never reached it): nothing was created, no look-up needed next time.
            const refused = err instanceof TokenInvalid || (err instanceof HubSpotError && DEFINITE_REFUSALS.has(err.failure)) || !(err instanceof HubSpotError);
            if (refused) {
              await store.hubspotPush.createRefused(key, (err as Error).message, clock.now());
              createUnknown = false;
            }
            throw err;
          }
          await recording(store.hubspotPush.created(key, communicationId, clock.now()));
          createUnknown = false;
        }
        await tokens.withToken(c.portal_id, (t) => api.associateCommunication(t, communicationId!, c.contact_id, as));
        await recording(store.hubspotPush.pushed(key, clock.now()));
        return { kind: 'pushed' };
      } catch (err) {
        if (err instanceof PushRecordFailed) throw err;
        const outcome = await classify(err, c, tenant.id);
        if (outcome.kind === 'given_up') await store.hubspotPush.failed(key, outcome.error, clock.now());
        else if (outcome.kind !== 'pushed' && outcome.kind !== 'taken') {
          // A create that may have happened stays leased for a while, as after a crash: HubSpot's
          // search lags its writes by seconds, and a look-up made sooner would miss the
          // communication and create a second one on the contact's timeline.
          const now = clock.now();
          await store.hubspotPush.release(key, outcome.error, now, createUnknown ? now + PUSH_LEASE_MS : null);
        }
        return outcome;
      }
    },
  };
}

export type ReplyPusher = ReturnType<typeof replyPusher>;
