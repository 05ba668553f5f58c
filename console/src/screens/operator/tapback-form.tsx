/** A contact's tapback on one of the line's messages, delivered as the simulated Mac would report it. */
import { useState, type FormEvent } from 'react';
import { client } from '../../api.js';
import { Card, Empty } from '../../ui.js';
import { TAPBACK_EMOJI, TAPBACKS, tapbackOf } from '../../tapbacks.js';
import { clip, gist, type SentMessage } from './device-log-words.js';
import { useAction } from './shared.js';

/** `messages`: what the device log shows the line sending, newest first, by message id. */
export function TapbackForm({ lineId, messages }: { lineId: string; messages: readonly (SentMessage & { messageId: string })[] }) {
  const { run, feedback } = useAction();
  const [chosen, setChosen] = useState('');
  // Whom the tapback is from: the chosen message's recipient until the operator types another.
  const [from, setFrom] = useState<string | null>(null);
  const message = messages.find((m) => m.messageId === chosen) ?? messages[0];
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const reaction = tapbackOf(f.get('reaction'));
    if (!message || !reaction) return;
    const remove = f.get('remove') === 'on';
    const sender = String(f.get('from'));
    void run(
      () => client.admin.simulatorInbound(lineId, { from: sender, reaction: { message_id: message.messageId, reaction, remove } }),
      `Tapback ${remove ? 'taken back' : 'injected'}: ${TAPBACK_EMOJI[reaction]} from ${sender} on ‘${clip(gist(message) ?? message.messageId, 32)}’.`,
    );
  };
  return (
    <Card title="A contact's tapback">
      {messages.length === 0 ? (
        <Empty>This line has not sent a message yet: a tapback goes on one of its messages.</Empty>
      ) : (
        <form className="row wrap" onSubmit={submit} aria-label="Inject a tapback">
          <label className="grow">
            On message
            <select name="message_id" value={message?.messageId} onChange={(e) => { setChosen(e.target.value); setFrom(null); }}>
              {messages.map((m) => (
                <option key={m.messageId} value={m.messageId}>{clip(gist(m) ?? m.messageId, 32)}{m.to || m.chatKey ? ` → ${m.to ?? m.chatKey}` : ''}</option>
              ))}
            </select>
          </label>
          <label>
            Tapback from
            <input name="from" required value={from ?? message?.to ?? ''} onChange={(e) => setFrom(e.target.value)} placeholder="+14155550142" />
          </label>
          <label>
            Tapback
            <select name="reaction" defaultValue="love">
              {TAPBACKS.map((t) => (
                <option key={t} value={t}>{TAPBACK_EMOJI[t]} {t}</option>
              ))}
            </select>
          </label>
          <label className="check">
            <input type="checkbox" name="remove" /> Take it back
          </label>
          <button className="btn primary" type="submit" disabled={!lineId}>Inject tapback</button>
        </form>
      )}
      {feedback}
    </Card>
  );
}
