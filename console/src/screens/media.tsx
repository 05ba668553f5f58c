/** Message media fetched through the SDK into blob: URLs (the CSP allows blob: media). */
import { useEffect, useState } from 'react';
import { client } from '../api.js';

function useBlobUrl(load: () => Promise<Blob>, key: string) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let revoked = false;
    let made: string | null = null;
    load().then(
      (b) => {
        if (revoked) return;
        made = URL.createObjectURL(b);
        setUrl(made);
      },
      (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      revoked = true;
      if (made) URL.revokeObjectURL(made);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return { url, error };
}

const attachmentBlob = (id: string) => async () => new Response((await client.attachments.download(id)).body).blob();

export function InlineImage({ id, alt }: { id: string; alt: string }) {
  const { url, error } = useBlobUrl(attachmentBlob(id), id);
  if (error) return <span className="muted small">image unavailable: {error}</span>;
  return url ? <img className="bubble-img" src={url} alt={alt} /> : <span className="img-placeholder" aria-label="loading image" />;
}

export function VoiceNote({ id, durationSeconds }: { id: string; durationSeconds?: number }) {
  const { url, error } = useBlobUrl(async () => (await client.voiceNoteAudio.ogg(id)).blob(), id);
  if (error) return <span className="muted small">voice note unavailable: {error}</span>;
  return (
    <div className="voice">
      <span aria-hidden="true">🎙</span>
      {url ? <audio controls preload="metadata" src={url} data-voice-note={id} aria-label="voice note" /> : <span className="muted small">loading…</span>}
      {durationSeconds !== undefined && <span className="muted small">{durationSeconds.toFixed(1)} s</span>}
    </div>
  );
}

export function DownloadButton({ id, filename }: { id: string; filename: string }) {
  return (
    <button
      type="button"
      className="btn small"
      onClick={() => {
        void attachmentBlob(id)().then((b) => {
          const a = document.createElement('a');
          a.href = URL.createObjectURL(b);
          a.download = filename;
          a.click();
          setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
        });
      }}
    >
      ⬇ {filename}
    </button>
  );
}
