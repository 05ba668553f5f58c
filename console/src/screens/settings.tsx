import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client } from '../api.js';
import { useSession } from '../session.js';
import { Card, ErrorBanner, Notice, Page, Spinner } from '../ui.js';

const ZONES: string[] = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? ['UTC'];

export function Settings() {
  const settings = useQuery({ queryKey: ['settings'], queryFn: () => client.settings.get() });
  return (
    <Page title="Settings" subtitle="When and how much your project may start new conversations">
      <ErrorBanner error={settings.error} />
      {settings.data ? <SettingsForm settings={settings.data} /> : settings.isPending && <Spinner />}
    </Page>
  );
}

type ProjectSettings = Awaited<ReturnType<typeof client.settings.get>>;
type Form = { timezone: string; start: string; end: string; cap: string };
const formOf = (s: ProjectSettings): Form => ({ timezone: s.timezone, start: s.sending_window.start, end: s.sending_window.end, cap: String(s.daily_first_touch_cap) });
const sameForm = (a: Form, b: Form) => a.timezone === b.timezone && a.start === b.start && a.end === b.end && a.cap === b.cap;

/**
 * Unsaved edits per project, kept while the page lives: a session that ends as they are saved
 * brings the sign-in back in place of the form, and signing in again must find them. Only over
 * the settings they were made to: once those changed (another tab saved), the edits are dropped.
 */
const unsaved = new Map<string, { over: Form; form: Form }>();

/**
 * The form starts with the settings it edits: filled by an effect, it was empty for a render, and
 * a keystroke then kept the empty fields (the browser refused the save as incomplete). It takes
 * them again when they change (a save, another tab's change).
 */
function SettingsForm({ settings: s }: { settings: ProjectSettings }) {
  const qc = useQueryClient();
  const project = useSession().session.tenant?.slug ?? '';
  const [form, setForm] = useState(() => {
    const kept = unsaved.get(project);
    if (kept && sameForm(kept.over, formOf(s))) return kept.form;
    unsaved.delete(project);
    return formOf(s);
  });
  // New settings are taken in the render that brings them (an effect would run after a paint, and
  // could overwrite a keystroke made in between).
  const [shown, setShown] = useState(s);
  if (shown !== s) {
    setShown(s);
    setForm(formOf(s));
    unsaved.delete(project);
  }
  const save = useMutation({
    mutationFn: () => client.settings.update({ timezone: form.timezone, sending_window: { start: form.start, end: form.end }, daily_first_touch_cap: Number(form.cap) }),
    onSuccess: (s) => {
      unsaved.delete(project);
      qc.setQueryData(['settings'], s);
    },
  });
  // An edit after a save (or a refused one): "Saved." and the last error no longer describe the form.
  const edit = (k: keyof Form) => (e: { target: { value: string } }) => {
    if (!save.isIdle) save.reset();
    const value = e.target.value;
    setForm((f) => {
      const next = { ...f, [k]: value };
      if (sameForm(next, formOf(s))) unsaved.delete(project);
      else unsaved.set(project, { over: formOf(s), form: next });
      return next;
    });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} className="stack">
      <Card title="Sending window">
        <p className="muted">First touches (a message to someone who never wrote to you) go out only inside this window, in the project's time zone. Replies are never held.</p>
        <div className="grid3">
          <label>
            Time zone
            <input list="zones" value={form.timezone} onChange={edit('timezone')} name="timezone" required />
            <datalist id="zones">
              {ZONES.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          </label>
          <label>
            Opens at
            <input name="window_start" value={form.start} onChange={edit('start')} placeholder="09:00" pattern="\d\d:\d\d" required />
          </label>
          <label>
            Closes at
            <input name="window_end" value={form.end} onChange={edit('end')} placeholder="18:00" pattern="\d\d:\d\d" required />
          </label>
        </div>
      </Card>
      <Card title="Daily first-touch cap">
        <div className="grid3">
          <label>
            First touches per day (project)
            {/* Required: an emptied field would otherwise go out as 0 and stop every first touch. */}
            <input name="daily_cap" type="number" min={0} step={1} required value={form.cap} onChange={edit('cap')} />
          </label>
          <div className="readonly">
            <span className="muted small">Per line per day</span>
            <strong>{s.first_touches_per_line_per_day}</strong>
          </div>
          <div className="readonly">
            <span className="muted small">Rate limit (set by your operator)</span>
            <strong>
              {s.rate_limit.per_second}/s, burst {s.rate_limit.burst}
            </strong>
          </div>
        </div>
      </Card>
      <ErrorBanner error={save.error} />
      {save.isSuccess && <Notice kind="success">Saved. New sends follow these settings now.</Notice>}
      <div className="row">
        <button className="btn primary" type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save settings'}
        </button>
      </div>
    </form>
  );
}
