/** Attachments (uploaded and inbound) and staged voice notes. */
import { numOrNull } from './rows.js';
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

export type Attachment = DB['attachments'];
export type VoiceNote = Omit<DB['voice_notes'], 'transcoded'> & { transcoded: boolean };

const toAttachment = (r: DB['attachments']): Attachment => ({
  ...r,
  declared_size: numOrNull(r.declared_size),
  size_bytes: numOrNull(r.size_bytes),
  created_at: Number(r.created_at),
  uploaded_at: numOrNull(r.uploaded_at),
  expires_at: Number(r.expires_at),
  file_deleted_at: numOrNull(r.file_deleted_at ?? null),
});
const toVoiceNote = (r: DB['voice_notes']): VoiceNote => ({
  ...r,
  transcoded: r.transcoded === 1,
  size_bytes: Number(r.size_bytes),
  duration_seconds: Number(r.duration_seconds),
  created_at: Number(r.created_at),
  expires_at: Number(r.expires_at),
  used_at: r.used_at == null ? null : Number(r.used_at),
});

export function mediaRepo(db: Kysely<DB>) {
  return {
    async insertAttachment(a: Attachment): Promise<void> {
      await db.insertInto('attachments').values(a).execute();
    },
    async getAttachment(tenantId: string, id: string): Promise<Attachment | undefined> {
      const r = await db.selectFrom('attachments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return r && toAttachment(r);
    },
    async getAttachmentById(id: string): Promise<Attachment | undefined> {
      const r = await db.selectFrom('attachments').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toAttachment(r);
    },
    /**
     * pending → uploaded, only once: false when another upload finished first. The
     * winner's own blob key is recorded in the same statement, so the row can never
     * point at bytes of an upload that lost the race.
     */
    async markUploaded(id: string, upload: { blobKey: string; size: number; at: number; expiresAt: number }): Promise<boolean> {
      const r = await db
        .updateTable('attachments')
        .set({ state: 'uploaded', blob_key: upload.blobKey, size_bytes: upload.size, uploaded_at: upload.at, expires_at: upload.expiresAt })
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async insertVoiceNote(v: VoiceNote): Promise<void> {
      await db.insertInto('voice_notes').values({ ...v, transcoded: v.transcoded ? 1 : 0 }).execute();
    },
    async getVoiceNote(tenantId: string, id: string): Promise<VoiceNote | undefined> {
      const r = await db.selectFrom('voice_notes').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
      return r && toVoiceNote(r);
    },
    /** For the operator's simulator routes: a line's device log outlives its move to another tenant. */
    async getVoiceNoteById(id: string): Promise<VoiceNote | undefined> {
      const r = await db.selectFrom('voice_notes').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toVoiceNote(r);
    },
    /** Marks a staged note used by a send; false when another send took it first. */
    async useVoiceNote(id: string, now: number): Promise<boolean> {
      const r = await db.updateTable('voice_notes').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Gives a note back after its send failed, so a retry can use it. */
    async releaseVoiceNote(id: string): Promise<void> {
      await db.updateTable('voice_notes').set({ used_at: null }).where('id', '=', id).execute();
    },
  };
}

export type MediaRepo = ReturnType<typeof mediaRepo>;
