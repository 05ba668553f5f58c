/** The simulator: a simulated iPhone per line, its device log, and forms for a contact's message and tapback. */
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { client } from '../../api.js';
import { Card, Empty, ErrorBanner, Page } from '../../ui.js';
import { useAction, useLines } from './shared.js';
import { DeviceLogRow } from './device-log.js';
import { sentMessages, type SentMessage } from './device-log-words.js';
import { TapbackForm } from './tapback-form.js';

export function Simulator() {
  const lines = useLines();
  const sims = lines.data?.phone_lines.filter((l) => l.driver === 'simulator') ?? [];
  const [lineId, setLineId] = useState('');
  const current = lineId || sims[0]?.phone_line_id || '';
  const log = useQuery({ queryKey: ['admin', 'sent', current], queryFn: () => client.admin.simulatorSent(current), enabled: !!current, refetchInterval: 3_000 });
  const sent = useMemo(() => sentMessages(log.data?.sent ?? []), [log.data]);
  const messages = useMemo(() => [...sent.byId.values()].filter((m): m is SentMessage & { messageId: string } => !!m.messageId).reverse(), [sent]);
  const { run, feedback } = useAction();
  const inject = useMutation({ mutationFn: (b: { from: string; text: string }) => client.admin.simulatorInbound(current, b) });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const form = e.currentTarget;
    void run(async () => {
      await inject.mutateAsync({ from: String(f.get('from')), text: String(f.get('text')) });
      (form.elements.namedItem('text') as HTMLInputElement).value = '';
    }, 'Inbound message injected.');
  };
  return (
    <Page title="Simulator" subtitle="A simulated iPhone per line: what it sent, and the messages and tapbacks it receives">
      <Card
        title="Line"
        actions={
          <label>
            <span className="sr-only">Simulator line</span>
            <select value={current} onChange={(e) => setLineId(e.target.value)} aria-label="Simulator line">
              {sims.map((l) => (
                <option key={l.phone_line_id} value={l.phone_line_id}>{l.phone_number} · {l.tenant}</option>
              ))}
            </select>
          </label>
        }
      >
        {sims.length === 0 && <Empty>No simulator lines.</Empty>}
        <form className="row wrap" onSubmit={submit} aria-label="Inject an inbound message">
          <label>
            From
            <input name="from" required defaultValue="+14155550142" />
          </label>
          <label className="grow">
            Text
            <input name="text" required placeholder="Hi! Is this still available?" />
          </label>
          <button className="btn primary" type="submit" disabled={!current}>Inject inbound message</button>
        </form>
        {feedback}
      </Card>
      <TapbackForm key={current} lineId={current} messages={messages} />
      <Card title="Device log">
        <ErrorBanner error={log.error} />
        {log.data?.sent.length === 0 && <Empty>The device has not sent anything yet.</Empty>}
        <ol className="devlog" aria-label="Device log">
          {log.data?.sent.map((s) => <DeviceLogRow key={s.id} entry={s} byGuid={sent.byGuid} />)}
        </ol>
      </Card>
    </Page>
  );
}

