import type { TypedApp } from '../../../typed.js';
import { route } from '../../../route.js';
import { adminSimulatorInbound } from '../../../../contract/admin-simulator-inbound.js';
import type { SimulatorControls } from '../../../../domain/lines/simulator.js';

export function adminSimulatorInboundRoute(app: TypedApp, deps: { simulator: SimulatorControls }) {
  route(app, adminSimulatorInbound, async (req, reply) => {
    const b = req.body;
    const { guid } = await deps.simulator.inbound(req.params.id, {
      from: b.from,
      text: b.text,
      parts: b.parts?.map((p) =>
        p.type === 'text' ? { type: 'text' as const, value: p.value } : { type: 'media' as const, filename: p.filename, mimeType: p.mime_type, contentBase64: p.content_base64 },
      ),
      chat: b.chat && { chatKey: b.chat.chat_key, handles: b.chat.handles, displayName: b.chat.display_name },
      guid: b.guid,
      reaction: b.reaction && { messageId: b.reaction.message_id, reaction: b.reaction.reaction, remove: b.reaction.remove },
      edit: b.edit && { messageId: b.edit.message_id, text: b.edit.text },
    });
    // Accepted: the event follows as for any inbound message.
    return reply.status(202).send({ ok: true, guid });
  });
}
