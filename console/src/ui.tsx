/** Small shared pieces: page frame, cards, banners, buttons, formatters. */
import { useMemo, useEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react';
import { useRouter } from '@tanstack/react-router';
import { describeError } from './api.js';

/**
 * `value` once it has stayed the same for `ms`: a search box asks the service once per pause in
 * typing, not once per key (a search few chats match reads every chat of the project).
 */
export function useSettled<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The browser tab (and history, and a screen reader's page announcement) names the screen. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Blueline`;
  }, [title]);
}

export function Page(props: { title: string; subtitle?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  useTitle(props.title);
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1>{props.title}</h1>
          {props.subtitle && <p className="muted">{props.subtitle}</p>}
        </div>
        {props.actions && <div className="row">{props.actions}</div>}
      </header>
      {props.children}
    </div>
  );
}

export function Card(props: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={`card ${props.className ?? ''}`}>
      {(props.title || props.actions) && (
        <div className="card-head">
          {props.title && <h2>{props.title}</h2>}
          {props.actions && <div className="row">{props.actions}</div>}
        </div>
      )}
      {props.children}
    </section>
  );
}

export function ErrorBanner({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div className="banner error" role="alert">
      {describeError(error)}
    </div>
  );
}

export function Notice({ children, kind = 'info' }: { children: ReactNode; kind?: 'info' | 'success' | 'warn' }) {
  return (
    <div className={`banner ${kind}`} role="status">
      {children}
    </div>
  );
}

export function Stat(props: { label: string; value: ReactNode; hint?: ReactNode; tone?: 'good' | 'bad' | 'warn' }) {
  return (
    <div className={`stat ${props.tone ?? ''}`}>
      <div className="stat-label">{props.label}</div>
      <div className="stat-value">{props.value}</div>
      {props.hint && <div className="stat-hint">{props.hint}</div>}
    </div>
  );
}

export function Badge({ children, tone }: { children: ReactNode; tone?: string }) {
  return <span className={`badge ${tone ?? ''}`}>{children}</span>;
}

export const statusTone = (s: string) =>
  ({ delivered: 'good', read: 'good', received: 'info', sent: 'info', pending: 'warn', failed: 'bad', dev_inbox: 'muted', active: 'good', suspended: 'bad', edited: 'info' })[s] ?? '';

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="btn small"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        });
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

/**
 * A secret the API shows once (a signing secret, a webhook's), with its copy button: a box of its
 * own, never inside a success banner (the warning and the success drawn one in the other clash).
 */
export function SecretOnce({ secret, label, onDone }: { secret: string; label?: ReactNode; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  // Into view: a rotation from a long table shows its secret in the card above.
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'nearest' });
  }, [secret]);
  return (
    <div className="secret-once" role="status" ref={box}>
      <div>
        {label && <>{label} </>}
        <strong>Copy this secret now.</strong> It is shown only once.
      </div>
      <code className="mono">{secret}</code>
      <div className="row">
        <CopyButton text={secret} />
        <button type="button" className="btn small" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

export function Spinner() {
  return <div className="spinner" role="progressbar" aria-label="Loading" />;
}

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
export function ago(iso: string | null | undefined): string {
  if (!iso) return '—';
  const s = (Date.parse(iso) - Date.now()) / 1000;
  const abs = Math.abs(s);
  if (abs < 60) return rtf.format(Math.round(s), 'second');
  if (abs < 3600) return rtf.format(Math.round(s / 60), 'minute');
  if (abs < 86400) return rtf.format(Math.round(s / 3600), 'hour');
  return rtf.format(Math.round(s / 86400), 'day');
}

export const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * time() in a table cell: a narrow column breaks it between the date and the clock only (not
 * "10:21:01" and "AM" on lines of their own).
 */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <>—</>;
  const whole = time(at);
  const clock = new Date(at).toLocaleTimeString();
  const date = whole.endsWith(clock) ? whole.slice(0, whole.length - clock.length).trimEnd() : '';
  return (
    <time dateTime={at}>
      {date ? <><span className="nowrap">{date}</span> <span className="nowrap">{clock}</span></> : <span className="nowrap">{whole}</span>}
    </time>
  );
}
export { messageTime, shortTime } from './times.js';

/** The pages a row of a long list opens. */
type RowTarget = { to: '/events/$eventId'; params: { eventId: string } } | { to: '/conversations/$chatId'; params: { chatId: string } };

/**
 * A link in a long list (the live tail, the events, the chats, the dev inbox). The router's `<Link>`
 * works out its address again on every navigation, to know whether it is the active one: a few
 * hundred rows made a click on "← Newer" a task of tens of milliseconds, and a blocked page while
 * events pour in. A row's address never depends on the page it is shown on, so it is built once.
 * A plain click moves within the console; a modified one (new tab, new window) is the browser's.
 * `current`: the row whose page is open (announced as such, as the router's link does).
 */
export function RowLink({ target, className, current, children }: { target: RowTarget; className?: string; current?: boolean; children: ReactNode }) {
  const router = useRouter();
  const key = JSON.stringify(target);
  // Keyed on the target's value: callers pass a new object each render.
  const href = useMemo(() => router.history.createHref(router.buildLocation(target as never).publicHref), [router, key]);
  const open = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.altKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    void router.navigate(target as never);
  };
  return (
    <a href={href} className={className} onClick={open} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}
