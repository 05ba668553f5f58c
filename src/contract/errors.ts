/**
 * The error answers of an operation, by HTTP status: what its auth mode and body can fail
 * with everywhere, plus the codes it declares. One place, so OpenAPI, the route's
 * serializer and the contract tests agree.
 */
import type { TSchema } from 'typebox';
import { ERROR_CODES, type ErrorCode } from '../errors/registry.js';
import type { ErrorRef, OperationSpec } from './operation.js';
import { ErrorEnvelope, SendFailure } from './common.js';

const AUTH_ERRORS: Record<OperationSpec['auth'], readonly ErrorRef[]> = {
  tenant: [2012, 2004, 2013, 2001, 2005, 2007],
  'tenant-header': [2012, 2004, 2013, 2001, 2005, 2007],
  'bearer-only': [2012, 2004, 2005, 2007],
  admin: [2012, 2004],
  none: [],
};

/** Bodies are JSON (1004), within the route's limit (413) and of its media type (415). */
const BODY_ERRORS: readonly ErrorRef[] = [1004, { code: 1002, status: 413 }, { code: 1002, status: 415 }];

/** Every operation validates its input (1002) and may fail unexpectedly (3001). */
const ALWAYS: readonly ErrorRef[] = [1002, 3001];

const statusOf = (ref: ErrorRef) => (typeof ref === 'object' ? ref.status : ERROR_CODES[ref].http);
const codeOfRef = (ref: ErrorRef) => (typeof ref === 'object' ? ref.code : ref);

/** The codes an operation can answer with, grouped by HTTP status. */
export function errorCodesByStatus(op: OperationSpec): Map<number, ErrorCode[]> {
  const refs = [...ALWAYS, ...AUTH_ERRORS[op.auth], ...(op.body ? BODY_ERRORS : []), ...(op.rateLimited ? [1007 as const] : []), ...op.errors];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const ref of refs) {
    const status = statusOf(ref);
    const list = byStatus.get(status) ?? [];
    if (!list.includes(codeOfRef(ref))) list.push(codeOfRef(ref));
    byStatus.set(status, list);
  }
  return byStatus;
}

/** Response schemas for the error statuses: the envelope, or /send's flat shape. */
export function errorResponses(op: OperationSpec): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const [status, codes] of errorCodesByStatus(op)) {
    out[status] = op.errorShape === 'send' ? SendFailure(codes) : ErrorEnvelope(codes);
  }
  return out;
}
