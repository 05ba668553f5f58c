/**
 * Recording a direct (one-to-one) inbound text message on PostgreSQL in one statement.
 *
 * The general path (domain/messaging/line-events.ts) is one transaction of about ten
 * statements, each a round trip on one pool connection while the transaction holds it. Here
 * the reads it needs go out together, outside any transaction (pipelined, pg-pipeline.ts),
 * and the writes (lead, chat and participant for a new contact or the line pin for a
 * returning one; event, message, delivery jobs, HubSpot reply-push rows) are one
 * data-modifying CTE, atomic as the transaction was: the event is written with its jobs or
 * not at all.
 *
 * What was read may be out of date by the time of the write. The statement checks what it
 * relies on and writes nothing when it does not hold: a new contact's lead must still be new
 * (another request may have just created it), and the event must not exist (the same guid
 * reported twice). The caller falls back to the transaction when the lead was taken. SQLite
 * does not use this: its group commit makes the transaction's statements cheap already.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { Dialect } from './db.js';
import type { Lead, Chat } from './chats.js';
import type { DeliveryJob, EventRow } from './events.js';
import { first, prepared } from './prepared.js';
import { queueReplySql } from './hubspot-push.js';

/** What recording needs to know about a subscription (no secrets: nothing is signed here). */
export interface SubscriptionTarget {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
}

export interface DirectInboundWrite {
  /** A new contact: the lead, its chat (id = lead id) and the participant to create; absent for a returning one. */
  newContact?: { lead: Lead; convoId: string };
  /** The returning contact's chat, pinned to the event's line if it is on another one. */
  chatId: string;
  lineId: string;
  handle: string;
  event: EventRow;
  /** The message row as stored (parts serialized). */
  message: DB['messages'];
  jobs: Pick<DeliveryJob, 'id' | 'subscription_id' | 'url' | 'next_attempt_at'>[];
}

/** `recorded`; `duplicate` (the event exists); `contended`: the new contact's lead exists now, nothing written. */
export type DirectInboundOutcome = 'recorded' | 'duplicate' | 'contended';

/**
 * In one statement: whether the line already has a message with this guid, the contact's lead
 * and direct chat on the line's tenant (if it has both), and that tenant's subscriptions.
 */
const readQ = prepared<
  { lineId: string; guid: string; handle: string },
  { seen: boolean; direct: (DB['chats'] & { lead_handle: string; lead_created_at: number }) | null; subscriptions: Pick<DB['webhook_subscriptions'], 'id' | 'url' | 'events' | 'disabled_at'>[] }
>(['lineId', 'guid', 'handle'], (_db, p) => sql`
    with line as (select tenant_id from phone_lines where id = ${p.lineId})
    select
      exists (select 1 from messages where line_id = ${p.lineId} and provider_guid = ${p.guid}) as seen,
      (select row_to_json(d) from (
        select c.*, l.handle as lead_handle, l.created_at as lead_created_at
        from leads l join chats c on c.id = l.id
        where l.tenant_id = (select tenant_id from line) and l.handle = ${p.handle}) d) as direct,
      (select coalesce(json_agg(s order by s.created_at, s.id), '[]') from (
        select id, url, events, disabled_at, created_at from webhook_subscriptions where tenant_id = (select tenant_id from line)) s) as subscriptions`);

type WriteParams = {
  leadId: string; tenantId: string; handle: string; leadCreatedAt: number; convoId: string; chatId: string; lineId: string;
  eventId: string; eventType: string; eventKey: string; eventLeadId: string | null; eventConvoId: string | null; payload: string;
  eventStatus: string; devInbox: number; eventCreatedAt: number;
  messageId: string; messageChatId: string; direction: string; senderHandle: string | null; parts: string; effect: string | null;
  messageStatus: string; guid: string | null; firstTouch: number; errorCode: number | null; sentAt: number; deliveredAt: number | null;
  readAt: number | null; editedAt: number | null;
  jobIds: string[]; jobSubscriptions: string[]; jobUrls: string[]; jobsDueAt: number;
};
/** The parameters recordFrom uses; each statement adds its own. */
const WRITE_PARAMS: (keyof WriteParams)[] = [
  'tenantId', 'lineId', 'eventId', 'eventType', 'eventKey', 'eventLeadId', 'eventConvoId', 'payload', 'eventStatus',
  'devInbox', 'eventCreatedAt', 'messageId', 'messageChatId', 'direction', 'senderHandle', 'parts', 'effect', 'messageStatus', 'guid',
  'firstTouch', 'errorCode', 'sentAt', 'deliveredAt', 'readAt', 'editedAt', 'jobIds', 'jobSubscriptions', 'jobUrls', 'jobsDueAt',
];

/**
 * The event, its message and jobs, from `gate` (a CTE with one row, or none to write nothing).
 * Parameters outside a VALUES list carry no type from their column: they are cast.
 */
const recordFrom = (p: WriteParams, gate: string) => sql`
  event as (
    insert into events (id, tenant_id, type, event_id, lead_id, convo_id, payload, status, dev_inbox, delivered_at, created_at)
    select ${p.eventId}::text, ${p.tenantId}::text, ${p.eventType}::text, ${p.eventKey}::text, ${p.eventLeadId}::text, ${p.eventConvoId}::text,
      ${p.payload}::text, ${p.eventStatus}::text, ${p.devInbox}::int, null::bigint, ${p.eventCreatedAt}::bigint
    from ${sql.raw(gate)}
    on conflict (tenant_id, event_id) do nothing
    returning id),
  message as (
    insert into messages (id, tenant_id, chat_id, line_id, direction, sender_handle, parts, effect, status, provider_guid, first_touch,
      error_code, sent_at, delivered_at, read_at, edited_at)
    select ${p.messageId}::text, ${p.tenantId}::text, ${p.messageChatId}::text, ${p.lineId}::text, ${p.direction}::text,
      ${p.senderHandle}::text, ${p.parts}::text, ${p.effect}::text, ${p.messageStatus}::text, ${p.guid}::text, ${p.firstTouch}::int,
      ${p.errorCode}::int, ${p.sentAt}::bigint, ${p.deliveredAt}::bigint, ${p.readAt}::bigint, ${p.editedAt}::bigint
    from event),
  jobs as (
    insert into delivery_jobs (id, event_ref, subscription_id, tenant_id, url, state, attempts, next_attempt_at, lease_until, created_at)
    select j.id, event.id, j.subscription_id, ${p.tenantId}::text, j.url, 'pending', 0, ${p.jobsDueAt}::bigint, null, ${p.eventCreatedAt}::bigint
    from event cross join unnest(${p.jobIds}::text[], ${p.jobSubscriptions}::text[], ${p.jobUrls}::text[]) as j(id, subscription_id, url)),
  pushes as (${queueReplySql({ messageId: p.messageId, tenantId: p.tenantId, handle: p.senderHandle, sentAt: p.sentAt, now: p.eventCreatedAt }, sql`event cross join`)})`;

/** A new contact: everything hangs on the lead's insert, which inserts nothing if the handle has a lead by now. */
const writeNewContactQ = prepared<WriteParams, { lead_created: number; recorded: number }>(
  [...WRITE_PARAMS, 'leadId', 'handle', 'leadCreatedAt', 'convoId'],
  (_db, p) => sql`
    with lead as (
      insert into leads (id, tenant_id, handle, created_at) values (${p.leadId}, ${p.tenantId}, ${p.handle}, ${p.leadCreatedAt})
      on conflict (tenant_id, handle) do nothing
      returning id),
    chat as (
      insert into chats (id, tenant_id, is_group, lead_id, line_id, convo_id, chat_key, display_name, created_at, left_at)
      select id, ${p.tenantId}::text, 0, id, ${p.lineId}::text, ${p.convoId}::text, null, null, ${p.leadCreatedAt}::bigint, null from lead
      returning id),
    participant as (
      insert into chat_participants (chat_id, handle, added_at) select id, ${p.handle}::text, ${p.leadCreatedAt}::bigint from chat
      on conflict (chat_id, handle) do nothing),
    ${recordFrom(p, 'chat')}
    select (select count(*) from lead)::int as lead_created, (select count(*) from event)::int as recorded`,
);

/** A returning contact: the event (unless it exists), then the chat follows the line the contact wrote to. */
const writeReturningQ = prepared<WriteParams, { recorded: number }>([...WRITE_PARAMS, 'chatId'], (_db, p) => sql`
    with one as (select 1),
    ${recordFrom(p, 'one')},
    pin as (
      update chats set line_id = ${p.lineId}::text
      where id = ${p.chatId}::text and line_id is distinct from ${p.lineId}::text and exists (select 1 from event))
    select (select count(*) from event)::int as recorded`);

export function inboundDirectRepo(db: Kysely<DB>, dialect: Dialect) {
  return {
    /** Only PostgreSQL records in one statement; elsewhere the caller uses its transaction. */
    supported: dialect === 'postgres',

    /**
     * What recording a direct message from `handle` on the line needs besides the line: whether
     * the guid was seen on it, the contact's lead and direct chat (if it has both), the tenant's
     * subscriptions (oldest first).
     */
    async read(lineId: string, guid: string, handle: string): Promise<{ seen: boolean; direct?: { lead: Lead; chat: Chat }; subscriptions: SubscriptionTarget[] }> {
      const r = (await first(readQ, db, { lineId, guid, handle }))!;
      const subscriptions = r.subscriptions.map((s) => ({ id: s.id, url: s.url, events: JSON.parse(s.events) as string[], enabled: s.disabled_at == null }));
      if (!r.direct) return { seen: r.seen, subscriptions };
      const { lead_handle, lead_created_at, ...c } = r.direct;
      const chat: Chat = { ...c, is_group: c.is_group === 1, created_at: Number(c.created_at), left_at: c.left_at == null ? null : Number(c.left_at) };
      return { seen: r.seen, subscriptions, direct: { lead: { id: c.id, tenant_id: c.tenant_id, handle: lead_handle, created_at: Number(lead_created_at) }, chat } };
    },

    async write(w: DirectInboundWrite): Promise<DirectInboundOutcome> {
      const { event: e, message: m } = w;
      const p: WriteParams = {
        leadId: w.newContact?.lead.id ?? '', tenantId: e.tenant_id, handle: w.handle, leadCreatedAt: w.newContact?.lead.created_at ?? 0,
        convoId: w.newContact?.convoId ?? '', chatId: w.chatId, lineId: w.lineId,
        eventId: e.id, eventType: e.type, eventKey: e.event_id, eventLeadId: e.lead_id, eventConvoId: e.convo_id, payload: e.payload,
        eventStatus: e.status, devInbox: e.dev_inbox ? 1 : 0, eventCreatedAt: e.created_at,
        messageId: m.id, messageChatId: m.chat_id, direction: m.direction, senderHandle: m.sender_handle, parts: m.parts, effect: m.effect,
        messageStatus: m.status, guid: m.provider_guid, firstTouch: m.first_touch, errorCode: m.error_code, sentAt: m.sent_at,
        deliveredAt: m.delivered_at, readAt: m.read_at, editedAt: m.edited_at,
        jobIds: w.jobs.map((j) => j.id), jobSubscriptions: w.jobs.map((j) => j.subscription_id), jobUrls: w.jobs.map((j) => j.url),
        jobsDueAt: w.jobs[0]?.next_attempt_at ?? 0,
      };
      if (w.newContact) {
        const r = (await first(writeNewContactQ, db, p))!;
        if (!r.lead_created) return 'contended';
        return r.recorded ? 'recorded' : 'duplicate';
      }
      return (await first(writeReturningQ, db, p))!.recorded ? 'recorded' : 'duplicate';
    },
  };
}

export type InboundDirectRepo = ReturnType<typeof inboundDirectRepo>;
