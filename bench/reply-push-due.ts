/**
 * The HubSpot reply push's reads against a reply history: the due replies of a portal (one
 * batch of 50, as each run reads) and the backlog count (the integration status), with 2,000 /
 * 11,000 / 44,000 replies pushed already from 100 linked contacts and 20 waiting, on SQLite (a
 * file) and PostgreSQL. A sales team's history only grows: neither read may grow with it.
 * Reported, no target.
 *   npx tsx bench/reply-push-due.ts
 */
import { sql } from 'kysely';
import type { Store } from '../src/store/index.js';
import { benchTenant, onSqliteThenPostgres } from './lib/stores.js';

const SIZES = [2_000, 11_000, 44_000];
const WAITING = 20;
const CONTACTS = 100;
const PORTAL = '62515';
const NOW = 1_800_000_000_000;

async function measure(label: string, store: Store) {
  const db = store.database.db;
  const tenant = await benchTenant(store);
  await db.insertInto('chats').values({ id: 'chat-1', tenant_id: tenant.id, is_group: 0, lead_id: null, line_id: 'line-1', convo_id: 'convo-1', chat_key: null, display_name: null, created_at: 0 }).execute();
  await db
    .insertInto('hubspot_installs')
    .values({
      portal_id: PORTAL, tenant_id: tenant.id, account_type: 'STANDARD', sandbox: 0, status: 'active', access_token_enc: null, refresh_token_enc: null, expires_at: null,
      token_version: 0, refresh_lease_until: null, auto_send_enabled: 0, auto_send_template: null, auto_send_line_id: null, installed_at: 0, updated_at: 0, push_paused_until: null, ui_domain: null,
    })
    .execute();
  const handle = (i: number) => `+1415555${String(i % CONTACTS).padStart(4, '0')}`;
  for (let c = 0; c < CONTACTS; c++) await store.hubspot.linkContact({ tenant_id: tenant.id, handle: handle(c), portal_id: PORTAL, contact_id: `contact-${c}`, linked_at: 1 });
  let recorded = 0;
  /** `n` replies: pushed ones with their finished push rows, waiting ones queued as the service records them. */
  const record = async (n: number, pushed: boolean) => {
    for (let from = 0; from < n; from += 500) {
      const batch = Array.from({ length: Math.min(500, n - from) }, () => {
        const i = recorded++;
        return {
          id: `msg_${String(i).padStart(10, '0')}`, tenant_id: tenant.id, chat_id: 'chat-1', line_id: 'line-1', direction: 'inbound' as const, sender_handle: handle(i),
          parts: [{ type: 'text' as const, value: `reply ${i}` }], effect: null, status: 'received' as const, provider_guid: `guid-${i}`, first_touch: false, error_code: null,
          sent_at: 1000 + i, delivered_at: 1000 + i, read_at: null, edited_at: null,
        };
      });
      await store.transaction(async (tx) => {
        for (const m of batch) {
          await tx.messages.insert(m);
          // (BENCH_BEFORE: run in a tree before the queue, where a waiting reply has no row.)
          if (!pushed && 'queueReply' in tx.hubspotPush) await tx.hubspotPush.queueReply(m, NOW);
        }
      });
      if (pushed) {
        await db
          .insertInto('hubspot_reply_pushes')
          .values(batch.map((m) => ({
            message_id: m.id, portal_id: PORTAL, tenant_id: tenant.id, contact_id: 'contact', state: 'pushed' as const, create_unknown: 0, communication_id: 'c', attempts: 1,
            lease_until: null, last_error: null, sent_at: m.sent_at, created_at: NOW, updated_at: NOW, pushed_at: NOW,
          })))
          .execute();
      }
    }
  };
  if ('sweepLinks' in store.hubspotPush) await store.hubspotPush.sweepLinks(tenant.id, NOW, NOW);
  let pushedSoFar = 0;
  for (const n of SIZES) {
    await record(n - pushedSoFar, true);
    await record(WAITING, false);
    if (store.database.dialect === 'postgres') await sql`analyze`.execute(db);
    const time = async (fn: () => Promise<unknown>) => {
      await fn();
      const t = performance.now();
      for (let k = 0; k < 10; k++) await fn();
      return ((performance.now() - t) / 10).toFixed(2).padStart(6);
    };
    const batch = await store.hubspotPush.candidates(tenant.id, PORTAL, NOW, 50);
    if (batch.length !== WAITING) throw new Error(`${batch.length} due, not ${WAITING}`);
    const backlog = await store.hubspotPush.backlog(tenant.id);
    if (backlog !== WAITING) throw new Error(`backlog ${backlog}, not ${WAITING}`);
    console.log(
      `${label.padEnd(10)} ${String(n).padStart(6)} pushed, ${WAITING} waiting: due batch ${await time(() => store.hubspotPush.candidates(tenant.id, PORTAL, NOW, 50))} ms, backlog ${await time(() => store.hubspotPush.backlog(tenant.id))} ms`,
    );
    // The waiting ones are pushed before the next size's history is added.
    await db.deleteFrom('hubspot_reply_pushes').where('state', '=', 'pending').execute();
    await db.deleteFrom('messages').where('id', '>', `msg_${String(n - 1).padStart(10, '0')}`).execute();
    recorded = pushedSoFar = n;
  }
}

await onSqliteThenPostgres(measure);
