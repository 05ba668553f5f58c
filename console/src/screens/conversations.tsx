import { useEffect, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import type { ChatMessage, ChatSummary, Effect } from '@blueline/sdk';
import { client, describeError, uploadClient } from '../api.js';
import { Badge, Empty, ErrorBanner, Spinner, ago, shortTime, useTitle } from '../ui.js';
import { DownloadButton, InlineImage, VoiceNote } from './media.js';
import { wavFromRecording } from './record.js';
import { avatarText } from '../avatar.js';
import { TAPBACK_EMOJI, TAPBACKS, tapbackOf, type Tapback } from '../tapbacks.js';

/** The picker shows each effect once, by the name Messages gives it (the API takes aliases too). */
const EFFECTS: readonly Effect[] = ['slam', 'loud', 'gentle', 'invisible_ink', 'echo', 'spotlight', 'balloons', 'confetti', 'love', 'lasers', 'fireworks', 'celebration', 'shooting_star'];

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
  const chats = useInfiniteQuery({
    queryKey: ['chats', q],
    queryFn: ({ pageParam }) => client.chatList.list({ limit: 30, ...(q && { q }), ...(pageParam && { cursor: pageParam }) }).page(),
    initialPageParam: '' as string,
    getNextPageParam: (p) => p.next_cursor ?? undefined,
    refetchInterval: 10_000,
  });
  const all = chats.data?.pages.flatMap((p) => p.chats) ?? [];
  return (
    <aside className="chatlist" aria-label="Chats">
      <div className="chatlist-search">
        <input type="search" placeholder="Search by handle" aria-label="Search chats by handle" value={q} onChange={(e) => setQ(e.target.value)} />
      </div>
      <ErrorBanner error={chats.error} />
      <ul>
        {all.map((c) => (
          <li key={c.chat.id}>
            <Link to="/conversations/$chatId" params={{ chatId: c.chat.id }} className={`chatrow ${active === c.chat.id ? 'active' : ''}`}>
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
            </Link>
          </li>
        ))}
      </ul>
      {chats.isPending && <Spinner />}
      {!chats.isPending && all.length === 0 && <Empty>No conversations{q ? ` matching “${q}”` : ''}.</Empty>}
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
        <select className="react-pick" aria-label="React to this message" value="" onChange={(e) => { const t = tapbackOf(e.target.value); if (t) react(t); }}>
          <option value="">{mine ? 'Change' : 'React'}</option>
          {TAPBACKS.map((t) => (
            <option key={t} value={t}>{TAPBACK_EMOJI[t]} {t}</option>
          ))}
        </select>
      ) : null}
      {error && <span className="bad small" role="alert">{error}</span>}
    </div>
  );
}

function Bubble({ m, onChange }: { m: ChatMessage; onChange: () => void }) {
  const out = m.direction === 'outbound';
  const mark = m.status === 'read' ? 'Read' : m.status === 'delivered' ? 'Delivered' : m.status === 'failed' ? `Failed${m.error_code ? ` (${m.error_code})` : ''}` : m.status === 'received' ? '' : 'Sent';
  return (
    <div className={`bubble-row ${out ? 'out' : 'in'}`} data-message-id={m.id}>
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
        {shortTime(m.sent_at)}
        {m.edited_at && ' · Edited'}
        {out && mark && <> · <span className={m.status === 'failed' ? 'bad' : ''}>{mark}</span></>}
      </div>
      <Reactions m={m} onChange={onChange} />
    </div>
  );
}

function Composer({ chat, onSent }: { chat: ChatSummary['chat']; onSent: () => void }) {
  const [text, setText] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [voice, setVoice] = useState<File | null>(null);
  const [effect, setEffect] = useState<Effect | ''>('');
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [recording, setRecording] = useState<MediaRecorder | null>(null);
  const lines = useQuery({ queryKey: ['lines'], queryFn: () => client.lines.list() });
  const box = useRef<HTMLTextAreaElement>(null);
  const [sending, setSending] = useState(false);
  const canSend = !sending && (!!text.trim() || files.length > 0 || !!voice);
  // The box grows with its lines, up to the CSS max-height (then it scrolls).
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${el.scrollHeight + el.offsetHeight - el.clientHeight}px`;
  }, [text]);

  async function send(e: FormEvent) {
    e.preventDefault();
    if (!canSend) return;
    setSending(true);
    setError(null);
    try {
      const attachments: string[] = [];
      for (const [i, f] of files.entries()) {
        setProgress(i / files.length);
        const up = uploadClient((x) => setProgress((i + x) / files.length));
        // The File's own name and type: the API names the types it takes when it refuses one (5003).
        const a = await up.attachments.upload(f);
        attachments.push(a.attachment_id);
      }
      setProgress(null);
      const lineId = chat.phone_line_id ?? lines.data?.[0]?.phone_line_id;
      if (chat.is_group) {
        const parts = [...(text.trim() ? [{ type: 'text' as const, value: text }] : []), ...attachments.map((id) => ({ type: 'media' as const, attachment_id: id }))];
        await client.chats.send(chat.id, { message: { parts } });
      } else {
        const phone = chat.handles[0]!;
        if (voice) {
          if (!lineId) throw new Error('no line to stage the voice note on');
          const staged = await client.voiceNotes.stage({ file: voice, mime_type: voice.type === 'audio/wav' || voice.name.endsWith('.wav') ? 'audio/wav' : 'audio/caf', phone_line_id: lineId });
          await client.messages.send({ phone, phone_line_id: staged.phone_line_id, voice_note: { voice_note_id: staged.voice_note_id } });
        }
        if (text.trim() || attachments.length) {
          await client.messages.send({ phone, ...(text.trim() && { body: text }), ...(attachments.length && { attachments }), ...(effect && { effect }), ...(chat.phone_line_id && { phone_line_id: chat.phone_line_id }) });
        }
      }
      setText('');
      setFiles([]);
      setVoice(null);
      setEffect('');
      onSent();
    } catch (err) {
      setProgress(null);
      setError(describeError(err));
    } finally {
      setSending(false);
    }
  }

  async function toggleRecording() {
    if (recording) {
      recording.stop();
      return;
    }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const rec = new MediaRecorder(stream);
      const chunks: Blob[] = [];
      rec.ondataavailable = (e) => chunks.push(e.data);
      rec.onstop = () => {
        stream.getTracks().forEach((t) => t.stop());
        setRecording(null);
        void wavFromRecording(new Blob(chunks, { type: rec.mimeType })).then((wav) => setVoice(new File([wav], 'recording.wav', { type: 'audio/wav' })), (err: unknown) => setError(describeError(err)));
      };
      rec.start();
      setRecording(rec);
    } catch (err) {
      setError(`microphone unavailable: ${describeError(err)}`);
    }
  }

  return (
    <form className="composer" onSubmit={(e) => void send(e)} aria-label="Send a message">
      {error && <div className="banner error" role="alert">{error}</div>}
      {(files.length > 0 || voice) && (
        <div className="chips">
          {files.map((f) => (
            <span className="chip" key={f.name}>{f.name}</span>
          ))}
          {voice && <span className="chip">Voice note: {voice.name}</span>}
          {progress !== null && (
            <span className="upload-progress">
              <progress value={progress} max={1} aria-label="Upload progress" /> {Math.round(progress * 100)}%
            </span>
          )}
        </div>
      )}
      <div className="composer-row">
        <label className="btn small filebtn">
          Attach
          <input type="file" multiple aria-label="Attach files" onChange={(e) => setFiles([...(e.target.files ?? [])])} />
        </label>
        <label className="btn small filebtn">
          Voice file
          <input type="file" accept="audio/wav,audio/x-wav,audio/x-caf,.caf,.wav" aria-label="Voice note file" onChange={(e) => setVoice(e.target.files?.[0] ?? null)} />
        </label>
        <button type="button" className={`btn small ${recording ? 'danger' : ''}`} onClick={() => void toggleRecording()} aria-pressed={!!recording}>
          {recording ? '■ Stop' : '● Record'}
        </button>
        <textarea
          ref={box}
          className="grow message-text"
          rows={1}
          placeholder="iMessage"
          aria-label="Message text"
          aria-describedby="composer-keys"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            // Enter sends, Shift+Enter is a new line; not while an input method is composing (CJK).
            if (e.key !== 'Enter' || e.shiftKey || e.nativeEvent.isComposing) return;
            e.preventDefault();
            if (canSend) e.currentTarget.form?.requestSubmit();
          }}
        />
        <select aria-label="Effect" value={effect} onChange={(e) => setEffect(EFFECTS.find((x) => x === e.target.value) ?? '')}>
          <option value="">No effect</option>
          {EFFECTS.map((x) => (
            <option key={x} value={x}>{x}</option>
          ))}
        </select>
        <button className="btn primary" type="submit" disabled={!canSend}>
          Send
        </button>
      </div>
      <span id="composer-keys" className="sr-only">Enter sends; Shift+Enter starts a new line.</span>
    </form>
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
          <Bubble key={m.id} m={m} onChange={() => void qc.invalidateQueries({ queryKey: ['messages', chatId] })} />
        ))}
        <div ref={end} />
      </div>
      {chat && (
        <Composer
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
