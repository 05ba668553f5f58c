/** The thread's composer: text (Enter sends, Shift+Enter a new line), files; one-to-one, also a voice note and an effect. */
import { useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { UPLOAD_ACCEPT, uploadContentTypeOf, type ChatSummary, type Effect } from '@blueline/sdk';
import { client, describeError, uploadClient } from '../api.js';
import { wavFromRecording } from './record.js';

/** The picker shows each effect once, by the name Messages gives it (the API takes aliases too). */
const EFFECTS: readonly Effect[] = ['slam', 'loud', 'gentle', 'invisible_ink', 'echo', 'spotlight', 'balloons', 'confetti', 'love', 'lasers', 'fireworks', 'celebration', 'shooting_star'];

/**
 * What is typed in each chat's box, kept while the page lives: a session that ends mid-send brings
 * the sign-in back in place of the screen, and signing in again must find the words still there.
 */
const drafts = new Map<string, string>();

/** Said of files the API would refuse (5003), before any of the picked files is uploaded. */
const notCarried = (files: File[]) =>
  `${files.map((f) => f.name).join(', ')}: not a kind of file a message can carry (photos, videos, audio and PDF documents). Remove ${files.length === 1 ? 'it' : 'them'} to send the rest.`;

export function Composer({ chat, onSent }: { chat: ChatSummary['chat']; onSent: () => void }) {
  const [text, setTextState] = useState(() => drafts.get(chat.id) ?? '');
  const setText = (next: string | ((now: string) => string)) =>
    setTextState((now) => {
      const value = typeof next === 'function' ? next(now) : next;
      if (value) drafts.set(chat.id, value);
      else drafts.delete(chat.id);
      return value;
    });
  const [files, setFiles] = useState<File[]>([]);
  const [voice, setVoice] = useState<File | null>(null);
  const [effect, setEffect] = useState<Effect | ''>('');
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [recording, setRecording] = useState<MediaRecorder | null>(null);
  const lines = useQuery({ queryKey: ['lines'], queryFn: () => client.lines.list() });
  const box = useRef<HTMLTextAreaElement>(null);
  const [sending, setSending] = useState(false);
  const group = chat.is_group;
  // Files the API would refuse (5003): said as long as they are picked, and they hold back a send.
  const uncarried = files.filter((f) => !uploadContentTypeOf(f));
  const banner = error ?? (uncarried.length > 0 ? notCarried(uncarried) : null);
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
    // Nothing the user gave is dropped: what this chat cannot take is refused before anything goes out.
    const refused = chat.is_group && (voice || effect) ? 'A group chat takes text and attachments only, not a voice note or an effect: nothing was sent.' : effect && !text.trim() && files.length === 0 ? 'An effect goes with text or attachments: add some, or choose No effect.' : uncarried.length > 0 ? `${notCarried(uncarried)} Nothing was sent.` : null;
    if (refused) {
      setError(refused);
      return;
    }
    setSending(true);
    setError(null);
    // What this send takes: what is typed or picked while it goes out stays in the box for the next one.
    const sentText = text;
    const sentFiles = files;
    const sentVoice = voice;
    const sentEffect = effect;
    let voiceSent = false;
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
          // Gone out: a retry after the text's send fails must not send it twice.
          setVoice((v) => (v === sentVoice ? null : v));
          voiceSent = true;
        }
        if (text.trim() || attachments.length) {
          await client.messages.send({ phone, ...(text.trim() && { body: text }), ...(attachments.length && { attachments }), ...(effect && { effect }), ...(chat.phone_line_id && { phone_line_id: chat.phone_line_id }) });
        }
      }
      // Typed on after Enter (a line can take seconds): the new words stay, the sent ones go.
      setText((now) => (now === sentText ? '' : now.startsWith(sentText) ? now.slice(sentText.length).replace(/^\s+/, '') : now));
      setFiles((now) => (now === sentFiles ? [] : now));
      setVoice((now) => (now === sentVoice ? null : now));
      setEffect((now) => (now === sentEffect ? '' : now));
      onSent();
    } catch (err) {
      setProgress(null);
      setError(voiceSent ? `The voice note was sent; the rest was not: ${describeError(err)}` : describeError(err));
      if (voiceSent) onSent();
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
      {banner && <div className="banner error" role="alert">{banner}</div>}
      {(files.length > 0 || voice) && (
        <div className="chips">
          {/* Each can be taken off again: a file the API refused (5003) no longer holds back the text. */}
          {files.map((f, i) => (
            <span className={uncarried.includes(f) ? 'chip refused' : 'chip'} key={`${i}:${f.name}`}>
              {f.name}
              <button type="button" className="chip-remove" aria-label={`Remove ${f.name}`} disabled={sending} onClick={() => { setFiles(files.filter((_, j) => j !== i)); setError(null); box.current?.focus(); }}>×</button>
            </span>
          ))}
          {voice && (
            <span className="chip">
              Voice note: {voice.name}
              <button type="button" className="chip-remove" aria-label={`Remove voice note ${voice.name}`} disabled={sending} onClick={() => { setVoice(null); setError(null); box.current?.focus(); }}>×</button>
            </span>
          )}
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
          {/* Picking again adds to what is picked (each chip has its ×); a file no message can carry is said at once. */}
          <input
            type="file"
            multiple
            accept={UPLOAD_ACCEPT}
            aria-label="Attach files"
            onChange={(e) => {
              const picked = [...(e.target.files ?? [])];
              e.target.value = '';
              setError(null);
              setFiles((now) => [...now, ...picked]);
            }}
          />
        </label>
        {/* The group send (POST /chats/{id}/messages) takes no voice note and no effect: not offered. */}
        {!group && (
          <>
            <label className="btn small filebtn">
              Voice file
              <input type="file" accept="audio/wav,audio/x-wav,audio/x-caf,.caf,.wav" aria-label="Voice note file" onChange={(e) => { setVoice(e.target.files?.[0] ?? null); e.target.value = ''; }} />
            </label>
            <button type="button" className={`btn small ${recording ? 'danger' : ''}`} onClick={() => void toggleRecording()} aria-pressed={!!recording}>
              {recording ? '■ Stop' : '● Record'}
            </button>
          </>
        )}
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
        {!group && (
          <select aria-label="Effect" value={effect} onChange={(e) => setEffect(EFFECTS.find((x) => x === e.target.value) ?? '')}>
            <option value="">No effect</option>
            {EFFECTS.map((x) => (
              <option key={x} value={x}>{x}</option>
            ))}
          </select>
        )}
        {/* A send can take a while (a line's answer, a rate limit the client waits out): it says it is under way. */}
        <button className="btn primary" type="submit" disabled={!canSend} aria-busy={sending}>
          {sending ? 'Sending…' : 'Send'}
        </button>
      </div>
      {group && <p className="muted small composer-note">A group chat takes text and attachments; voice notes and effects are for one-to-one chats.</p>}
      <span id="composer-keys" className="sr-only">Enter sends; Shift+Enter starts a new line.</span>
    </form>
  );
}
