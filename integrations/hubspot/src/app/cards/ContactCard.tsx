/**
 * The contact-record card: the contact's iMessage thread (last 20 both ways),
 * whether a send now would be a first touch and is allowed (window, daily cap,
 * line gap), and a send box. Everything comes from Blueline's card routes over
 * hubspot.fetch (HubSpot signs each request and appends portalId, userId,
 * userEmail and appId); the service URL is the project profile's BLUELINE_URL.
 */
import React, { useCallback, useEffect, useState } from 'react';
import { Alert, Button, Divider, Flex, LoadingSpinner, Tag, Text, TextArea, hubspot } from '@hubspot/ui-extensions';
import type { CrmContext } from '@hubspot/ui-extensions';

type Part = { type: 'text'; value: string } | { type: 'media'; filename?: string } | { type: 'voice_note'; duration_seconds?: number } | { type: 'rich_link'; url: string };

interface CardMessage {
  id: string;
  direction: 'inbound' | 'outbound';
  status: string;
  parts: Part[];
  sent_at: string;
}

interface CardData {
  ok: true;
  contact: { id: string; firstname: string | null; lastname: string | null; phone: string | null; phone_normalized: string | null; phone_usable: boolean; phone_problem?: string };
  chat_id: string | null;
  messages: CardMessage[];
  send: { would_be_first_touch: boolean | null; allowed_now: boolean; error?: string; reason?: string; retry_after?: number };
}

interface CardFailure {
  ok: false;
  error: string;
  message: string;
  retryable: boolean;
  retry_after?: number;
}

const MAX_TEXT = 10_000;

export function serviceUrl(context: CrmContext): string {
  const url = context.variables?.BLUELINE_URL;
  return typeof url === 'string' ? url.replace(/\/+$/, '') : '';
}

function partText(p: Part): string {
  switch (p.type) {
    case 'text':
      return p.value;
    case 'media':
      return `[attachment${p.filename ? `: ${p.filename}` : ''}]`;
    case 'voice_note':
      return `[voice note${p.duration_seconds !== undefined ? `, ${Math.round(p.duration_seconds)} s` : ''}]`;
    case 'rich_link':
      return p.url;
  }
}

async function readJson<T>(res: Response): Promise<T | CardFailure> {
  try {
    return (await res.json()) as T | CardFailure;
  } catch {
    return { ok: false, error: 'unavailable', message: `Blueline answered HTTP ${res.status}`, retryable: true };
  }
}

export function ContactCard({ context }: { context: CrmContext }) {
  const base = serviceUrl(context);
  const objectId = String(context.crm.objectId);
  const [data, setData] = useState<CardData | undefined>();
  const [failure, setFailure] = useState<CardFailure | undefined>();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<string | undefined>();

  const load = useCallback(async () => {
    setFailure(undefined);
    const res = await hubspot.fetch(`${base}/crm/hubspot/card?associatedObjectId=${encodeURIComponent(objectId)}&associatedObjectType=CONTACT`, { method: 'GET' });
    const body = await readJson<CardData>(res);
    if (body.ok) setData(body);
    else setFailure(body);
  }, [base, objectId]);

  useEffect(() => {
    void load();
  }, [load]);

  const send = async () => {
    setSending(true);
    setSent(undefined);
    setFailure(undefined);
    try {
      const res = await hubspot.fetch(`${base}/crm/hubspot/card/send`, {
        method: 'POST',
        body: { portalId: String(context.portal.id), objectId, text },
      });
      const body = await readJson<{ ok: true; message_id: string; duplicate?: boolean }>(res);
      if (body.ok) {
        setSent(body.duplicate ? 'Already sent.' : 'Sent.');
        setText('');
        await load();
      } else setFailure(body);
    } finally {
      setSending(false);
    }
  };

  if (!base) return <Alert title="Blueline is not configured" variant="error">Set BLUELINE_URL in the project profile and upload the project again.</Alert>;
  if (!data && !failure) return <LoadingSpinner label="Loading the iMessage thread" />;

  const status = data?.send;
  return (
    <Flex direction="column" gap="sm">
      {failure && (
        <Alert title={failure.error} variant={failure.retryable ? 'warning' : 'error'}>
          {failure.message}
          {failure.retry_after !== undefined ? ` (try again in ${failure.retry_after} s)` : ''}
        </Alert>
      )}
      {data && (
        <>
          <Flex direction="row" gap="sm" align="center">
            <Text format={{ fontWeight: 'bold' }}>{data.contact.phone_normalized ?? data.contact.phone ?? 'No phone'}</Text>
            {status?.would_be_first_touch === true && <Tag variant="warning">First touch</Tag>}
            {status?.would_be_first_touch === false && <Tag variant="success">In conversation</Tag>}
            {status && !status.allowed_now && <Tag variant="error">{status.error ?? 'not allowed now'}</Tag>}
          </Flex>
          {status?.reason && <Text variant="microcopy">{status.reason}</Text>}
          <Divider />
          {data.messages.length === 0 && <Text variant="microcopy">No messages with this contact yet.</Text>}
          {[...data.messages].reverse().map((m) => (
            <Flex key={m.id} direction="column" align={m.direction === 'outbound' ? 'end' : 'start'}>
              <Text>{m.parts.map(partText).join(' ')}</Text>
              <Text variant="microcopy">
                {m.direction === 'outbound' ? 'Sent' : 'Received'} {new Date(m.sent_at).toLocaleString()} · {m.status}
              </Text>
            </Flex>
          ))}
          <Divider />
          <TextArea
            label="Message"
            name="message"
            value={text}
            maxLength={MAX_TEXT}
            readOnly={!data.contact.phone_usable}
            onChange={(v: string) => setText(v)}
          />
          {sent && <Text variant="microcopy">{sent}</Text>}
          <Button variant="primary" disabled={sending || !text.trim() || !data.contact.phone_usable || !status?.allowed_now} onClick={() => void send()}>
            {sending ? 'Sending…' : 'Send iMessage'}
          </Button>
        </>
      )}
    </Flex>
  );
}

hubspot.extend<'crm.record.tab'>(({ context }) => <ContactCard context={context} />);
