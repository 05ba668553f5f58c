/** What an event says in a line, for lists: a message.received's text (media as [media]) and who sent it. */
type Payload = { from?: string; data?: { message?: { sender_handle?: { handle?: string }; parts?: { type: string; value?: string }[] } } };

export function textOf(e: { payload: unknown }): string {
  const parts = (e.payload as Payload).data?.message?.parts ?? [];
  return parts.map((p) => (p.type === 'text' ? p.value : `[${p.type}]`)).join(' ');
}

export function senderOf(e: { payload: unknown }): string {
  const p = e.payload as Payload;
  return p.data?.message?.sender_handle?.handle ?? p.from ?? '';
}
