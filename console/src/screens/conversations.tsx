import { useEffect, useRef, useState } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import type { ChatMessage, ChatSummary } from '@blueline/sdk';
import { client, describeError } from '../api.js';
import { Badge, Empty, ErrorBanner, RowLink, Spinner, ago, messageTime, shortTime, useSettled, useTitle } from '../ui.js';
import { DownloadButton, InlineImage, VoiceNote } from './media.js';
import { avatarText } from '../avatar.js';
import { Composer } from './composer.js';
import { TAPBACK_EMOJI, TAPBACKS, type Tapback } from '../tapbacks.js';


function preview(m: ChatSummary['last_message']): string {
  if (!m) return 'No messages yet';
  for (const p of m.parts) {
    if (p.type === 'text') return p.value;
    if (p.type === 'voice_note') return '🎙 Voice note';
    if (p.type === 'media') return `📎 ${p.filename ?? 'Attachment'}`;
    if (p.type === 'rich_link') return `🔗 ${p.url}`;
  }
  return '';
}

function ChatList({ active }: { active?: string }) {
  const [q, setQ] = useState('');
  const term = useSettled(q.trim());
  const chats = useInfiniteQuery({
    queryKey: ['chats', term],
    queryFn: ({ pageParam }) => client.chatList.list({ limit: 30, ...(term && { q: term }), ...(pageParam && { cursor: pageParam }) }).page(),
    initialPageParam: '' as string,
    getNextPageParam: (p) => p.next_cursor ?? undefined,
    refetchInterval: 10_000,
  });
  const all = chats.data?.pages.flatMap((p) => p.chats) ?? [];
  return (
    <aside className="chatlist" aria-label="Chats">
      <div className="chatlist-search">
        <input type="search" placeholder="Search by handle or group name" aria-label="Search chats by handle or group name" value={q} onChange={(e) => setQ(e.target.value)} />
      </div>
      <ErrorBanner error={chats.error} />
      <ul>
        {all.map((c) => (
          <li key={c.chat.id}>
            <RowLink target={{ to: '/conversations/$chatId', params: { chatId: c.chat.id } }} className={`chatrow ${active === c.chat.id ? 'active' : ''}`} current={active === c.chat.id}>
              <div className="avatar" aria-hidden="true">{avatarText(c.chat.display_name, c.chat.handles[0])}</div>
              <div className="chatrow-body">
                <div className="chatrow-top">
                  {/* A name reads in its own direction; handles (numbers, emails) always left to right, or 'שרה@example.com' shows as 'example.com@שרה'. */}
                  <strong dir={c.chat.display_name ? 'auto' : 'ltr'}>{c.chat.display_name ?? c.chat.handles.join(', ')}</strong>
                  <span className="muted small">{ago(c.last_activity_at)}</span>
                </div>
                <div className="muted small ellipsis">
                  {c.last_message?.direction === 'outbound' ? 'You: ' : ''}
                  {/* Its own direction: a Hebrew or Arabic message reads right to left, and is cut at its end. */}
                  <bdi dir="auto">{preview(c.last_message)}</bdi>
                </div>
              </div>
            </RowLink>
          </li>
        ))}
      </ul>
      {chats.isPending && <Spinner />}
      {!chats.isPending && all.length === 0 && <Empty>No conversations{term ? ` matching “${term}”` : ''}.</Empty>}
      {chats.hasNextPage && (
        <button type="button" className="btn small wide" onClick={() => void chats.fetchNextPage()}>
          Load more
        </button>
      )}
    </aside>
  );
}

/** The tapbacks on a message (ours can be taken back), and a picker to add ours. */
function Reactions({ m, onChange }: { m: ChatMessage; onChange: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const react = (reaction: Tapback, remove = false) => {
    setError(null);
    client.messages.react(m.id, { reaction, remove }).then(onChange, (e: unknown) => setError(describeError(e)));
  };
  const mine = m.reactions.find((r) => r.from === 'me');
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const pick = (t: Tapback) => {
    setOpen(false);
    toggle.current?.focus();
    react(t);
  };
  return (
    <div className="reactions">
      {m.reactions.map((r) =>
        r.from === 'me' ? (
          <button key={r.from} type="button" className="reaction mine" title={`You · ${shortTime(r.at)}: click to take it back`} onClick={() => react(r.reaction, true)}>
            {TAPBACK_EMOJI[r.reaction]} You<span className="sr-only"> ({r.reaction}); take it back</span>
          </button>
        ) : (
          <span key={r.from} className="reaction" title={`${r.from} · ${shortTime(r.at)}`}>
            {TAPBACK_EMOJI[r.reaction]} <span className="mono">{r.from}</span><span className="sr-only"> ({r.reaction})</span>
          </span>
        ),
      )}
      {m.direction === 'inbound' || m.status !== 'failed' ? (
        // A button opens the tapbacks, each a button of its own: browsing them never sends one.
        <span className="react-pick">
          <button
            type="button"
            ref={toggle}
            className="reaction react-open"
            aria-expanded={open}
            onClick={() => setOpen(!open)}
            onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
          >
            {mine ? 'Change' : 'React'}<span className="sr-only">{mine ? ' your reaction' : ''} to this message</span>
          </button>
          {open && (
            <span
              className="react-choices"
              role="group"
              aria-label="Tapbacks"
              onKeyDown={(e) => {
                if (e.key !== 'Escape') return;
                setOpen(false);
                toggle.current?.focus();
              }}
            >
              {TAPBACKS.map((t, i) => (
                <button key={t} type="button" className="reaction" aria-label={t} title={t} aria-pressed={mine?.reaction === t} autoFocus={i === 0} onClick={() => pick(t)}>
                  <span aria-hidden="true">{TAPBACK_EMOJI[t]}</span>
                </button>
              ))}
            </span>
          )}
        </span>
      ) : null}
      {error && <span className="bad small" role="alert">{error}</span>}
    </div>
  );
}

function Bubble({ m, group, onChange }: { m: ChatMessage; group: boolean; onChange: () => void }) {
  const out = m.direction === 'outbound';
  // An edit keeps the receipts the message had: `edited` is not a delivery state of its own.
  const state = m.status === 'edited' ? (m.read_at ? 'read' : m.delivered_at ? 'delivered' : 'sent') : m.status;
  const mark = state === 'read' ? 'Read' : state === 'delivered' ? 'Delivered' : state === 'failed' ? `Failed${m.error_code ? ` (${m.error_code})` : ''}` : state === 'received' ? '' : state === 'sending' ? 'Sending…' : 'Sent';
  return (
    <div className={`bubble-row ${out ? 'out' : 'in'}`} data-message-id={m.id}>
      {/* In a group, who wrote each message (a handle reads left to right). */}
      {group && !out && m.sender_handle && <div className="bubble-sender muted small mono" dir="ltr">{m.sender_handle}</div>}
      <div className={`bubble ${out ? 'out' : 'in'} ${m.status === 'failed' ? 'failed' : ''}`}>
        {m.parts.map((p, i) => {
          if (p.type === 'text') return <p key={i} dir="auto">{p.value}</p>;
          if (p.type === 'rich_link') return <a key={i} href={p.url} rel="noreferrer noopener" target="_blank">{p.url}</a>;
          if (p.type === 'voice_note') return <VoiceNote key={i} id={p.voice_note_id} durationSeconds={p.duration_seconds} />;
          if (p.type === 'media') {
            if (p.mime_type?.startsWith('image/')) return <InlineImage key={i} id={p.attachment_id} alt={p.filename ?? 'image'} />;
            if (p.mime_type?.includes('caf')) return <VoiceNote key={i} id={p.attachment_id} />;
            return <DownloadButton key={i} id={p.attachment_id} filename={p.filename ?? p.attachment_id} />;
          }
          return null;
        })}
        {m.effect && <span className="effect">✨ {m.effect}</span>}
      </div>
      <div className="bubble-meta muted small">
        {messageTime(m.sent_at)}
        {m.edited_at && ' · Edited'}
        {out && mark && <> · <span className={m.status === 'failed' ? 'bad' : ''}>{mark}</span></>}
      </div>
      <Reactions m={m} onChange={onChange} />
    </div>
  );
}

function Thread({ chatId }: { chatId: string }) {
  const qc = useQueryClient();
  const summary = useQuery({
    queryKey: ['chat-summary', chatId],
    queryFn: async () => {
      for await (const c of client.chatList.list({ limit: 200 })) if (c.chat.id === chatId) return c;
      return null;
    },
  });
  // Newest page first; "Load earlier messages" adds older pages (a long thread is never cut off).
  const messages = useInfiniteQuery({
    queryKey: ['messages', chatId],
    queryFn: ({ pageParam }) => client.chats.messages(chatId, { limit: 100, ...(pageParam && { cursor: pageParam }) }).page(),
    initialPageParam: '' as string,
    getNextPageParam: (p) => p.next_cursor ?? undefined,
    refetchInterval: 5_000,
  });
  const lines = useQuery({ queryKey: ['lines'], queryFn: () => client.lines.list() });
  const end = useRef<HTMLDivElement>(null);
  const ordered = (messages.data?.pages.flatMap((p) => p.messages) ?? []).reverse();
  // To the bottom when a newer message arrives, not when earlier ones are loaded above.
  const newest = ordered[ordered.length - 1]?.id;
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' });
  }, [newest]);
  const chat = summary.data?.chat;
  const title = chat ? chat.display_name ?? chat.handles.join(', ') : chatId;
  useTitle(chat ? title : 'Conversations');
  const line = chat?.phone_line_id ? lines.data?.find((l) => l.phone_line_id === chat.phone_line_id)?.phone_number ?? chat.phone_line_id.slice(0, 8) : null;
  return (
    <section className="thread" aria-label="Thread">
      <header className="thread-head">
        <Link to="/conversations" className="btn small back-to-chats">← Chats</Link>
        <div className="grow-1">
          <h2 dir={chat?.display_name ? 'auto' : 'ltr'} data-focus-heading>{title}</h2>
          {chat && <span className="muted small">{chat.is_group ? `group · ${chat.handles.length} people` : 'direct'} · on line <span className="mono">{line ?? '—'}</span></span>}
        </div>
        {chat?.is_group && <Badge>group</Badge>}
      </header>
      <div className="bubbles">
        <ErrorBanner error={messages.error} />
        {messages.isPending && <Spinner />}
        {messages.hasNextPage && (
          <button type="button" className="btn small load-earlier" disabled={messages.isFetchingNextPage} onClick={() => void messages.fetchNextPage()}>
            {messages.isFetchingNextPage ? 'Loading…' : 'Load earlier messages'}
          </button>
        )}
        {ordered.map((m) => (
          <Bubble key={m.id} m={m} group={!!chat?.is_group} onChange={() => void qc.invalidateQueries({ queryKey: ['messages', chatId] })} />
        ))}
        <div ref={end} />
      </div>
      {chat && (
        <Composer
          key={chat.id}
          chat={chat}
          onSent={() => {
            void qc.invalidateQueries({ queryKey: ['messages', chatId] });
            void qc.invalidateQueries({ queryKey: ['chats'] });
          }}
        />
      )}
    </section>
  );
}

function NoThread() {
  useTitle('Conversations');
  return <div className="thread empty-thread"><Empty>Select a conversation</Empty></div>;
}

export function Conversations() {
  const params = useParams({ strict: false }) as { chatId?: string };
  return (
    <div className={`conversations ${params.chatId ? 'has-thread' : ''}`}>
      <h1 className="sr-only">Conversations</h1>
      <ChatList active={params.chatId} />
      {/* One thread per chat: a draft, its files and its error stay with the chat they were meant for. */}
      {params.chatId ? <Thread key={params.chatId} chatId={params.chatId} /> : <NoThread />}
    </div>
  );
}
