/**
 * Attachments: upload slots (15 minutes), the streamed binary PUT, metadata,
 * content (byte ranges are the HTTP layer's), and resolution into driver files for sending.
 * Uploaded files are kept RETENTION_MS; inbound media (`in_…`) too. Past its
 * expires_at an attachment answers 5001 everywhere: reads and sends alike.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isoOrNull } from '../../clock.js';
import type { Readable } from 'node:stream';
import { DomainError } from '../../errors/registry.js';
import type { Clock } from '../../clock.js';
import type { Store, Attachment } from '../../store/index.js';
import { assertMayAct, type Principal } from '../accounts-tenants/auth.js';
import type { BlobStore } from '../../blobs/index.js';
import { BlobStoreFailure, BlobTooLarge } from '../../blobs/index.js';
import type { OutboundFile } from '../../drivers/types.js';
import { randomHex } from '../ids.js';
import { MAX_UPLOAD_BYTES, SUPPORTED_UPLOAD_TYPES, normalizeMimeType } from './vocabulary.js';
import { signatureCheck } from './file-signatures.js';

export const SLOT_TTL_MS = 15 * 60_000;
export const RETENTION_MS = 30 * 86_400_000;

/**
 * Upload-slot tokens: 32 random bytes behind a prefix that no signing secret
 * (`bl_sk_…`) has, so the PUT route can tell which kind of bearer it was sent.
 * Only their sha256 is stored.
 */
const UPLOAD_TOKEN_PREFIX = 'bl_up_';
export const isUploadToken = (token: string) => token.startsWith(UPLOAD_TOKEN_PREFIX);
const newUploadToken = () => `${UPLOAD_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** Constant-time over the digests, so a guess learns nothing from how long the answer took. */
function tokenMatches(token: string, storedHash: string | null | undefined): boolean {
  if (!storedHash) return false;
  const expected = Buffer.from(storedHash);
  const actual = Buffer.from(tokenHash(token));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Each upload attempt writes its own key: racing PUTs never write over each other's bytes. */
const attemptBlobKey = (id: string) => `att/${id}.${randomHex(8)}`;

export function attachmentsService(deps: { store: Store; clock: Clock; blobs: BlobStore }) {
  const { store, clock, blobs } = deps;

  async function owned(tenantId: string, id: string): Promise<Attachment> {
    const a = await store.media.getAttachment(tenantId, id);
    if (!a) throw new DomainError(5001, `attachment ${id} not found`);
    return a;
  }

  /** Why an attachment can no longer be read or sent, if it can't: the same answer on every route. */
  function expiredReason(a: Attachment, now: number): string | undefined {
    if (now < a.expires_at) return undefined;
    return a.state === 'uploaded' ? `attachment ${a.id} has expired` : `attachment ${a.id}'s upload slot expired before any upload`;
  }

  /** An attachment that can still be read: expired ones answer 5001 like a send would. */
  async function readable(tenantId: string, id: string): Promise<Attachment> {
    const a = await owned(tenantId, id);
    const expired = expiredReason(a, clock.now());
    if (expired) throw new DomainError(5001, expired);
    return a;
  }

  return {
    /** A new slot and its upload token; the token is shown once and only its hash is kept. */
    async createSlot(tenantId: string, input: { filename: string; contentType: string; sizeBytes: number }): Promise<{ attachment: Attachment; uploadToken: string }> {
      const contentType = normalizeMimeType(input.contentType);
      if (!(SUPPORTED_UPLOAD_TYPES as readonly string[]).includes(contentType)) {
        throw new DomainError(5003, `content_type "${input.contentType}" is not supported; use one of ${SUPPORTED_UPLOAD_TYPES.join(', ')}`);
      }
      if (input.sizeBytes > MAX_UPLOAD_BYTES) {
        throw new DomainError(5002, `size_bytes ${input.sizeBytes} is over the ${MAX_UPLOAD_BYTES}-byte limit`);
      }
      const now = clock.now();
      const id = `att_${randomHex(16)}`;
      const uploadToken = newUploadToken();
      // blob_key is a placeholder until an upload wins: markUploaded records that upload's own key.
      const a: Attachment = {
        id, tenant_id: tenantId, origin: 'upload', filename: input.filename, content_type: contentType,
        declared_size: input.sizeBytes, size_bytes: null, state: 'pending', blob_key: `att/${id}`,
        created_at: now, uploaded_at: null, expires_at: now + SLOT_TTL_MS, upload_token_hash: tokenHash(uploadToken),
      };
      await store.media.insertAttachment(a);
      return { attachment: a, uploadToken };
    },

    /**
     * Who may upload with a slot's token: only to that slot, only within the slot's
     * 15 minutes (counted from creation, as an upload moves expires_at to retention),
     * and only while its tenant could still authenticate with a signing secret.
     */
    async uploadPrincipal(id: string, token: string): Promise<Principal> {
      const a = await store.media.getAttachmentById(id);
      if (!a || !tokenMatches(token, a.upload_token_hash) || clock.now() >= a.created_at + SLOT_TTL_MS) {
        throw new DomainError(2004, 'invalid upload token (it is valid only for its own slot\'s upload_url, until the slot expires)');
      }
      const tenant = await store.tenants.getById(a.tenant_id);
      const account = tenant && (await store.accounts.get(tenant.account_id));
      if (!tenant || !account) throw new DomainError(2004, 'invalid upload token');
      // The same state checks as a signing secret's principal.
      assertMayAct(account, tenant);
      return { account, tenant, credential: { kind: 'upload-token', attachmentId: id } };
    },

    /** Checks everything that can be checked before reading a byte, then streams to storage. */
    async upload(tenantId: string, id: string, headers: { contentType?: string; contentLength?: string }, body: Readable): Promise<Attachment> {
      const a = await owned(tenantId, id);
      if (a.origin !== 'upload') throw new DomainError(1011, `attachment ${id} is inbound media; it cannot be uploaded to`);
      if (a.state === 'uploaded') throw new DomainError(1012, `attachment ${id} is already uploaded; create a new slot`);
      if (clock.now() >= a.expires_at) throw new DomainError(1012, `the upload slot for ${id} expired at ${isoOrNull(a.expires_at)}; create a new one`);
      // Compared without parameters (`; charset=…`) and case-insensitively, as MIME types are.
      const type = headers.contentType === undefined ? undefined : normalizeMimeType(headers.contentType.split(';')[0]!);
      if (type !== a.content_type) {
        throw new DomainError(1002, `Content-Type must be the declared type ${a.content_type}, got ${type ?? 'none'}`);
      }
      if (headers.contentLength === undefined || !/^\d+$/.test(headers.contentLength)) {
        throw new DomainError(1001, 'Content-Length is required on uploads', { variant: 'length_required' });
      }
      const length = Number(headers.contentLength);
      if (length > MAX_UPLOAD_BYTES) throw new DomainError(5002, `Content-Length ${length} is over the ${MAX_UPLOAD_BYTES}-byte limit`);
      if (length !== a.declared_size) {
        throw new DomainError(1002, `Content-Length ${length} differs from the declared size_bytes ${a.declared_size}`);
      }
      const key = attemptBlobKey(a.id);
      // The bytes pass the declared type's signature check on their way (1002 on a mismatch,
      // answered once the body has ended). The body's own failures (a client gone, a slow body's
      // 408) reach the store through it.
      const checked = signatureCheck(a.content_type);
      body.pipe(checked);
      body.once('error', (err) => checked.destroy(err));
      body.once('close', () => {
        if (!body.readableEnded) checked.destroy(new Error('the request body was cut off'));
      });
      let stored: number;
      try {
        stored = await blobs.put(key, checked, length);
      } catch (err) {
        if (err instanceof BlobTooLarge) throw new DomainError(1002, `the body is longer than the declared ${length} bytes; nothing was kept`);
        // The HTTP layer's own refusal (a body arriving too slowly: 408) stands as it was raised.
        if (err instanceof DomainError) throw err;
        // Our storage failed (disk full, the bucket down): no fault of the client's, and worth a
        // retry. Passed on as it is: the error handler logs it and answers 3001, retryable.
        if (err instanceof BlobStoreFailure) throw err;
        throw new DomainError(1002, 'the upload was interrupted before all bytes arrived; nothing was kept');
      }
      if (stored !== length) {
        await blobs.delete(key);
        throw new DomainError(1002, `received ${stored} bytes but ${length} were declared; nothing was kept`);
      }
      const now = clock.now();
      let won: boolean;
      try {
        won = await store.media.markUploaded(a.id, { blobKey: key, size: stored, at: now, expiresAt: now + RETENTION_MS });
      } catch (err) {
        await blobs.delete(key);
        throw err;
      }
      if (!won) {
        // Another upload to this slot was recorded first: its bytes stay, ours go.
        await blobs.delete(key);
        throw new DomainError(1012, `attachment ${id} is already uploaded; create a new slot`);
      }
      return (await store.media.getAttachment(tenantId, id))!;
    },

    /** An attachment that can still be read (5001 once expired). */
    metadata: (tenantId: string, id: string): Promise<Attachment> => readable(tenantId, id),

    /** The stored file for streaming; 5004 before upload, 5001 once expired. */
    async content(tenantId: string, id: string) {
      const a = await readable(tenantId, id);
      if (a.state !== 'uploaded') throw new DomainError(5004, `attachment ${id} is not uploaded yet`);
      return { attachment: a, size: a.size_bytes ?? 0, open: (range?: { start: number; end: number }) => blobs.open(a.blob_key, range) };
    },

    /**
     * Uploaded attachments as driver files, in order. Errors name the entry in attachment_index:
     * its position in `ids`, or `indexes[i]` when the caller numbers its entries otherwise
     * (the chat routes count every part).
     */
    async resolve(tenantId: string, ids: string[], indexes?: number[]): Promise<OutboundFile[]> {
      const now = clock.now();
      const files: OutboundFile[] = [];
      for (const [i, id] of ids.entries()) {
        const attachment_index = indexes?.[i] ?? i;
        const a = await store.media.getAttachment(tenantId, id);
        if (!a) throw new DomainError(5001, `attachment ${id} not found`, { attachmentIndex: attachment_index });
        const expired = expiredReason(a, now);
        if (expired) throw new DomainError(5001, expired, { attachmentIndex: attachment_index });
        if (a.state !== 'uploaded') throw new DomainError(5004, `attachment ${id} is not uploaded yet`, { attachmentIndex: attachment_index });
        files.push({
          attachmentId: a.id,
          filename: a.filename ?? a.id,
          mimeType: a.content_type,
          sizeBytes: a.size_bytes ?? 0,
          open: () => blobs.open(a.blob_key),
        });
      }
      return files;
    },
  };
}

export type AttachmentsService = ReturnType<typeof attachmentsService>;
