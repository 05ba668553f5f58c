import { Type } from 'typebox';
import type { TypedApp } from '../../typed.js';
import { ApiError } from '../../../errors/registry.js';
import type { Store } from '../../../store/index.js';
import type { DriverEvents, DriverStatePort } from '../../../drivers/types.js';
import { restartSimulatedService } from '../../../drivers/simulator/index.js';
import { normalizeHandle } from '../../../domain/handles.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../clock.js';
import type { BlobStore } from '../../../blobs/index.js';
import { streamFile } from '../attachments/routes.js';

const adminConfig = { auth: 'admin' as const };
const tags = ['simulator'];
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Controls of the simulator driver: its device log, a service restart, inbound messages. */
export function simulatorRoutes(app: TypedApp, deps: { store: Store; clock: Clock; events: DriverEvents; blobs: BlobStore; state: DriverStatePort }) {
  const { store, clock } = deps;

  async function simulatedLine(id: string) {
    const line = await store.lines.get(id);
    if (!line) throw new ApiError(2011, `phone line ${id} not found`);
    if (line.driver !== 'simulator') throw new ApiError(1011, `line ${id} uses the ${line.driver} driver, not the simulator`);
    return line;
  }

  app.get(
    '/admin/v1/lines/:id/simulate/sent',
    {
      config: adminConfig,
      schema: {
        tags,
        summary: 'What the simulated device was asked to send, newest first',
        params: Params,
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })) }, { additionalProperties: false }),
      },
    },
    async (req) => {
      await simulatedLine(req.params.id);
      const rows = await store.lineRuntime.deviceLog(req.params.id, req.query.limit ?? 200);
      return { sent: rows.map((r) => ({ id: r.id, ...(r.entry as object) })) };
    },
  );

  app.get(
    '/admin/v1/lines/:id/simulate/content/:file',
    {
      config: adminConfig,
      schema: {
        tags,
        summary: 'The exact bytes of a media file or voice note the simulated device was asked to send',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }), file: Type.String({ minLength: 1, maxLength: 100 }) }),
      },
    },
    async (req, reply) => {
      const line = await simulatedLine(req.params.id);
      const id = req.params.file;
      if (id.startsWith('vn_')) {
        const vn = await store.media.getVoiceNote(line.tenant_id, id);
        if (!vn || vn.line_id !== line.id) throw new ApiError(5001, `voice note ${id} not found on this line`);
        return streamFile(reply, { size: vn.size_bytes, contentType: 'audio/x-caf', filename: `${id}.caf`, open: (r) => deps.blobs.open(vn.blob_key, r) }, req.headers.range);
      }
      const a = await store.media.getAttachment(line.tenant_id, id);
      if (!a || a.state !== 'uploaded') throw new ApiError(5001, `attachment ${id} not found`);
      return streamFile(reply, { size: a.size_bytes ?? 0, contentType: a.content_type, filename: a.filename, open: (r) => deps.blobs.open(a.blob_key, r) }, req.headers.range);
    },
  );

  app.post(
    '/admin/v1/lines/:id/simulate/restart',
    { config: adminConfig, schema: { tags, summary: 'Restart the line\'s messaging service (new service epoch)', params: Params } },
    async (req) => {
      await simulatedLine(req.params.id);
      const epoch = await restartSimulatedService({ lineId: req.params.id, state: deps.state, now: clock.now });
      return { ok: true, service_epoch: epoch };
    },
  );

  app.post(
    '/admin/v1/lines/:id/simulate/inbound',
    {
      config: adminConfig,
      schema: {
        tags,
        summary: 'Deliver an inbound iMessage to the line as if a person sent it',
        params: Params,
        body: Type.Object(
          {
            from: Type.String({ minLength: 1, maxLength: 320 }),
            text: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
            parts: Type.Optional(
              Type.Array(
                Type.Object(
                  {
                    type: Type.Union([Type.Literal('text'), Type.Literal('media')]),
                    value: Type.Optional(Type.String()),
                    filename: Type.Optional(Type.String()),
                    mime_type: Type.Optional(Type.String()),
                    content_base64: Type.Optional(Type.String()),
                  },
                  { additionalProperties: false },
                ),
                { minItems: 1, maxItems: 10 },
              ),
            ),
            chat: Type.Optional(
              Type.Object(
                { chat_key: Type.String({ minLength: 1 }), handles: Type.Array(Type.String(), { minItems: 1 }), display_name: Type.Optional(Type.String()) },
                { additionalProperties: false },
              ),
            ),
            guid: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (req, reply) => {
      const line = await simulatedLine(req.params.id);
      const from = normalizeHandle(req.body.from);
      if (!from) throw new ApiError(1003, `from "${req.body.from}" is neither an E.164 number nor an email handle`);
      const parts = req.body.parts ?? (req.body.text ? [{ type: 'text' as const, value: req.body.text }] : []);
      if (parts.length === 0) throw new ApiError(1001, 'give text or parts');
      const guid = req.body.guid ?? `sim-in-${randomUUID()}`;
      const handles = req.body.chat?.handles.map((h) => normalizeHandle(h)?.value ?? h);
      await deps.events.inbound(line.id, {
        guid,
        from: from.value,
        ...(req.body.chat && { group: { chatKey: req.body.chat.chat_key, handles: handles!, displayName: req.body.chat.display_name } }),
        parts: parts.map((p) =>
          p.type === 'text'
            ? { type: 'text' as const, value: p.value ?? '' }
            : { type: 'media' as const, filename: p.filename, mimeType: p.mime_type, bytes: Buffer.from(p.content_base64 ?? '', 'base64') },
        ),
        sentAt: clock.now(),
      });
      return reply.status(202).send({ ok: true, guid });
    },
  );
}
