/**
 * The tenant's chats by latest activity (the console's conversation list): each with its
 * handles and last message, newest activity first, keyset-paged on (activity, id); with `asOf`,
 * each chat as it was then (domain/messaging/chat-list.ts: the pages after a walk's first).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './db.js';
import type { DB } from './schema.js';
import type { Chat } from './chats.js';
import type { Message, MessagePart } from './messages.js';
import { numOrNull } from './rows.js';
import { chatSearch, foldedLike } from './chat-search.js';

export interface ChatListEntry {
  chat: Chat;
  handles: string[];
  lastMessage: Message | null;
  /** the last message's time, else the chat's creation */
  activityAt: number;
}

export interface ChatListQuery {
  tenantId: string;
  limit: number;
  /** chats with a handle or group name containing any of these (case-insensitive); none: every chat */
  search?: readonly string[];
  /** keyset: entries strictly after this (activity desc, id desc) */
  after?: { activityAt: number; id: string };
  /** ms: each chat as it was then, its activity and last message from messages sent up to then */
  asOf?: number;
}

type Row = DB['chats'] & {
  lead_handle: string | null;
  m_id: string | null;
  activity_at: number | string;
} & { [K in keyof DB['messages'] as `m_${K & string}`]: DB['messages'][K] | null };

/**
 * A page is looked for among the chats of the project's latest messages, read `perChat` messages
 * per chat wanted at a time, at most `reads` times; then among all chats.
 */
export const RECENT_READS = { perChat: 8, reads: 16 };
/**
 * A search looks among the recent chats once, reading this many times the messages a list does
 * (a chat matches less often than it is listed); then among all chats.
 */
const SEARCH_DEPTH = 4;
/**
 * More chats than this to look a page up among (seen, and created since the oldest message
 * read): all chats instead. Each is a parameter of a statement, which SQLite caps at 32,766.
 */
const MAX_CANDIDATES = 10_000;

/** `searchIndex` false: a search not found among the recent chats scans every chat (tests compare with that). */
export function chatListRepo(db: Kysely<DB>, dialect: Dialect, reads = RECENT_READS, searchIndex = true) {
  const search = chatSearch(db, dialect);
  /**
   * The project's `n` latest messages up to `upTo` of chats not in `seen`, newest first
   * (messages_tenant_time holds the chat: the messages of chats seen are skipped in the index).
   */
  const latest = (tenantId: string, upTo: number | undefined, seen: Set<string>, n: number) =>
    db
      .selectFrom('messages')
      .select(['chat_id', 'sent_at'])
      .where('tenant_id', '=', tenantId)
      .$if(upTo !== undefined, (w) => w.where('sent_at', '<=', upTo!))
      .$if(seen.size > 0, (w) => w.where('chat_id', 'not in', [...seen]))
      .orderBy('sent_at', 'desc')
      .limit(n)
      .execute();

  return {
    /** Whether a search few chats match can be answered from trigram indexes here (store/chat-search.ts). */
    searchIndexed: () => search.indexed(),

    /**
     * Without a search, a page is looked for among the chats of the project's latest messages
     * down to some time (`floor`), and the chats created since: every chat whose activity is later
     * than `floor` is among them, so the page found is the page of all chats when its last chat
     * is later than `floor`. Each read goes on below the last one, past the chats already seen
     * (a chat's activity is its latest message). A project with fewer messages than a read, or
     * whose page is not found in `reads.reads`, is read across all chats.
     * A search's page is looked for the same way (every matching chat later than `floor` is among
     * those read), in one deeper read: a search most chats match (a country code, an area code)
     * is found there; one that fewer than a page of those chats match reads every chat at once,
     * or only the chats the trigram indexes name (store/chat-search.ts).
     */
    async list(q: ChatListQuery): Promise<ChatListEntry[]> {
      const searching = !!q.search?.length;
      const n = reads.perChat * q.limit * (searching ? SEARCH_DEPTH : 1);
      const rounds = searching ? Math.min(1, reads.reads) : reads.reads;
      const seen = new Set<string>();
      const bound = Math.min(q.asOf ?? Infinity, q.after?.activityAt ?? Infinity);
      let upTo = bound === Infinity ? undefined : bound;
      for (let read = 0; read < rounds; read++) {
        const rows = await latest(q.tenantId, upTo, seen, n);
        if (rows.length < n) break;
        for (const r of rows) seen.add(r.chat_id);
        if (seen.size > MAX_CANDIDATES) break;
        upTo = Number(rows[rows.length - 1]!.sent_at);
        if (seen.size < q.limit) continue;
        const room = MAX_CANDIDATES - seen.size;
        const created = await db.selectFrom('chats').select('id').where('tenant_id', '=', q.tenantId).where('created_at', '>', upTo).limit(room + 1).execute();
        if (created.length > room) break;
        let candidates = [...new Set([...seen, ...created.map((c) => c.id)])];
        if (searching) {
          // The chats the search matches first, their last messages not looked up: fewer than a
          // page, and the page is not among them (a search few chats match goes on at once).
          candidates = await matching(q, candidates);
          if (candidates.length < q.limit) break;
        }
        const page = await pageOf(q, candidates);
        if (page.length === q.limit && page[page.length - 1]!.activityAt > upTo) return page;
      }
      const indexed = searching && searchIndex ? await indexCandidates(q.tenantId, q.search!) : undefined;
      return pageOf(q, indexed);
    },
  };

  /** The chats the trigram indexes name for any of `searches`; undefined when one of them cannot be answered there. */
  async function indexCandidates(tenantId: string, searches: readonly string[]): Promise<string[] | undefined> {
    const found = new Set<string>();
    for (const s of searches) {
      const ids = await search.candidates(tenantId, s);
      if (ids === undefined) return undefined;
      for (const id of ids) found.add(id);
    }
    return [...found];
  }

  /** Among `only`, the chats `q.search` matches. */
  async function matching(q: ChatListQuery, only: string[]): Promise<string[]> {
    // PostgreSQL is given each chat's lead by its key (`limit 1` keeps the planner from turning
    // it into a join): as a join it read and hashed every lead of the table to match a few
    // hundred chats (6 ms at 50,000 leads, now 1.5).
    const lead = dialect === 'postgres' ? sql`left join lateral (select l0.handle from leads l0 where l0.id = c.lead_id limit 1) l on true` : sql`left join leads l on l.id = c.lead_id`;
    const rows = await sql<{ id: string }>`
      select c.id from chats c ${lead}
      where ${tenantOf(only)} = ${q.tenantId} and ${idIn(only)} ${searchTerm(q.search)}`.execute(db);
    return rows.rows.map((r) => r.id);
  }

  /** `c.id` among `ids`: on PostgreSQL one array parameter, planned once whatever the count. */
  function idIn(ids: string[]) {
    return dialect === 'postgres' ? sql`c.id = any(${ids}::text[])` : sql`c.id in (${sql.join(ids)})`;
  }

  // Among `only`, SQLite is to look the chats up by id: its plan otherwise walks all of the
  // project's chats by chats_tenant_created and keeps those in the list (`+` keeps an index
  // from serving the term).
  function tenantOf(only: string[] | undefined) {
    return only && dialect === 'sqlite' ? sql`+c.tenant_id` : sql`c.tenant_id`;
  }

  /**
   * A search's condition on a chat `c` and its lead `l`: a direct chat's lead, a group's
   * participants (looked up for groups only) or a group's name; none without a search.
   */
  function searchTerm(searches: readonly string[] | undefined) {
    if (!searches?.length) return sql``;
    const matches = (search: string) => {
      const has = (text: RawBuilder<unknown>) => foldedLike(dialect, text, search);
      return sql`${has(sql`coalesce(l.handle, '')`)} or (c.is_group = 1 and exists (select 1 from chat_participants p where p.chat_id = c.id and ${has(sql`p.handle`)})) or ${has(sql`coalesce(c.display_name, '')`)}`;
    };
    return sql`and (${sql.join(searches.map(matches), sql` or `)})`;
  }

  /** The page among all of the project's chats, or among `only`. */
  async function pageOf(q: ChatListQuery, only?: string[]): Promise<ChatListEntry[]> {
    if (only?.length === 0) return [];
    const activity = sql<number>`coalesce(m.sent_at, c.created_at)`;
    const asOf = q.asOf === undefined ? sql`` : sql`and m2.sent_at <= ${q.asOf}`;
    // Each chat's last message, through messages_chat_time (one short range per chat). PostgreSQL
    // is given a LATERAL join: with `m.id = (subquery)` it hashed every message of the table (all
    // projects') and ran the subquery twice per chat. SQLite has no LATERAL; it runs the
    // subquery once per chat and looks the message up by id, as the plan says.
    const last = sql`select m2.id from messages m2 where m2.chat_id = c.id and m2.tenant_id = c.tenant_id ${asOf} order by m2.sent_at desc, m2.id desc limit 1`;
    const lastMessage = dialect === 'postgres'
      ? sql`left join lateral (select m2.* from messages m2 where m2.chat_id = c.id and m2.tenant_id = c.tenant_id ${asOf} order by m2.sent_at desc, m2.id desc limit 1) m on true`
      : sql`left join messages m on m.id = (${last})`;
    // Without `only`, a search reads every chat of the project.
    const rows = await sql<Row>`
      select c.*, l.handle as lead_handle, ${activity} as activity_at,
        m.id as m_id, m.tenant_id as m_tenant_id, m.chat_id as m_chat_id, m.line_id as m_line_id, m.direction as m_direction,
        m.sender_handle as m_sender_handle, m.parts as m_parts, m.effect as m_effect, m.status as m_status,
        m.provider_guid as m_provider_guid, m.first_touch as m_first_touch, m.error_code as m_error_code,
        m.sent_at as m_sent_at, m.delivered_at as m_delivered_at, m.read_at as m_read_at, m.edited_at as m_edited_at
      from chats c
      left join leads l on l.id = c.lead_id
      ${lastMessage}
      where ${tenantOf(only)} = ${q.tenantId}
      ${only ? sql`and ${idIn(only)}` : sql``}
      ${searchTerm(q.search)}
      ${q.after ? sql`and (${activity} < ${q.after.activityAt} or (${activity} = ${q.after.activityAt} and c.id < ${q.after.id}))` : sql``}
      order by activity_at desc, c.id desc
      limit ${q.limit}`.execute(db);
    const groupIds = rows.rows.filter((r) => Number(r.is_group) === 1).map((r) => r.id);
    const members = groupIds.length
      ? await db.selectFrom('chat_participants').select(['chat_id', 'handle']).where('chat_id', 'in', groupIds).orderBy('added_at').execute()
      : [];
    return rows.rows.map((r) => ({
      chat: {
        id: r.id,
        tenant_id: r.tenant_id,
        is_group: Number(r.is_group) === 1,
        lead_id: r.lead_id,
        line_id: r.line_id,
        convo_id: r.convo_id,
        chat_key: r.chat_key,
        display_name: r.display_name,
        created_at: Number(r.created_at),
        left_at: r.left_at == null ? null : Number(r.left_at),
      },
      handles: Number(r.is_group) === 1 ? members.filter((m) => m.chat_id === r.id).map((m) => m.handle) : r.lead_handle ? [r.lead_handle] : [],
      activityAt: Number(r.activity_at),
      lastMessage: r.m_id
        ? {
            id: r.m_id,
            tenant_id: r.m_tenant_id!,
            chat_id: r.m_chat_id!,
            line_id: r.m_line_id,
            direction: r.m_direction!,
            sender_handle: r.m_sender_handle,
            parts: JSON.parse(r.m_parts!) as MessagePart[],
            effect: r.m_effect,
            status: r.m_status!,
            provider_guid: r.m_provider_guid,
            first_touch: Number(r.m_first_touch) === 1,
            error_code: numOrNull(r.m_error_code),
            sent_at: Number(r.m_sent_at),
            delivered_at: numOrNull(r.m_delivered_at),
            read_at: numOrNull(r.m_read_at),
            edited_at: numOrNull(r.m_edited_at),
          }
        : null,
    }));
  }
}
