/**
 * BlueBubbles failures in the driver contract's terms (DriverFailure kinds),
 * per operation. What BlueBubbles answers (from its routers and middleware):
 *   401  AuthMiddleware: missing/wrong password
 *   400  validators (BadRequest), and "Selected message does not exist!"
 *   404  NotFound: "Message does not exist!", "Chat does not exist!"
 *   500  IMessageError ("iMessage Error"): a send/edit/react failed in Messages,
 *        and PrivateApiMiddleware: "Please make sure you have completed the setup for the
 *        Private API, and your helper is connected!" with checkPrivateApiStatus' "iMessage
 *        Private API is not enabled!" / "iMessage Private API Helper is not connected!"
 *        (helpers/utils.ts), or PrivateApiAction's "… BlueBubblesHelper is not running!"
 *        (privateApi/apis/index.ts). Only these say the Private API is off: other failures
 *        name it too ("Failed to create chat via the Private API!", "A message is required
 *        when creating chats with the Private API!", "Failed to invoke Private API action:
 *        X! Required fields are missing.") and are ordinary failures of the request.
 *   500  ErrorMiddleware ("Server Error"): any other exception in a controller,
 *        e.g. ChatInterface's "Chat is not a group chat!"
 *   500  AttachmentRouter.download's ServerError "Attachment does not exist in disk!": the row
 *        is in chat.db but the file is not on the Mac yet (still coming from iCloud); it may
 *        arrive, so a download's 5xx may pass (routers/attachmentRouter.ts). A row that is not
 *        there at all is a 404 only with force=false: by default, with the Private API on, the
 *        router "force-downloads" it and fails on the null row with a 500 (inbound.ts asks so)
 *   504  its own request/response timeouts
 * A proxy in front of the Mac (ngrok, Cloudflare) answers 502/503/530 pages
 * that are not the envelope: the Mac is not reachable.
 */
import { DriverFailure } from '../types.js';
import { BlueBubblesError } from './client.js';

/** What the driver was doing; decides how an ambiguous failure reads. */
export type Operation = 'send' | 'upload' | 'edit' | 'react' | 'participant' | 'create_group' | 'lookup' | 'download' | 'info' | 'webhook' | 'query';

const PRIVATE_API_OFF = /Private API is not enabled|Private API Helper is not connected|completed the setup for the Private API|BlueBubblesHelper is not running/i;
const NEEDS_NEWER_MACOS = /only supported on macos|not supported by the connected messages helper/i;
const DOES_NOT_EXIST = /does not exist|not found/i;

/**
 * A message's attachment the Mac cannot serve yet (download 5xx: still coming from iCloud). The
 * line is up; the message is retried (line_down), and catch-up waits for it, for a while.
 */
export class AttachmentNotOnMac extends DriverFailure {
  constructor(message: string) {
    super('line_down', message);
  }
}

/**
 * True when the Private API refused a send because Messages has no chat under that guid (the
 * helper's getIMChatFromGuid, BlueBubblesHelper.m): it checks before sending, so nothing went out.
 */
export function isNoSuchChat(err: unknown): boolean {
  return err instanceof BlueBubblesError && err.kind === 'http' && err.details.envelope === true && /Chat does not exist in IMChatRegistry/i.test(err.serverText);
}

/** True when the failure says the Private API is off or its helper is not connected. */
export function isPrivateApiOff(err: unknown): boolean {
  return err instanceof BlueBubblesError && err.kind === 'http' && PRIVATE_API_OFF.test(err.serverText);
}

/**
 * True when the failure means the server itself could not be reached or did not answer in time
 * (not: it refused the request). A Mac that accepts connections but never answers (our timeout,
 * or BlueBubbles' own 504 GatewayTimeout envelope) is as down as one that refuses them.
 */
export function isServerDown(err: unknown): boolean {
  if (!(err instanceof BlueBubblesError)) return false;
  if (err.kind === 'network' || err.kind === 'timeout') return true;
  if (err.kind !== 'http') return false;
  const status = err.details.status ?? 0;
  return err.details.envelope ? status === 504 : status >= 500;
}

/** True when the server could not be reached at all (refused, reset, a proxy's page): evidence it may have restarted. */
export function isServerUnreachable(err: unknown): boolean {
  if (!(err instanceof BlueBubblesError)) return false;
  if (err.kind === 'network') return true;
  return err.kind === 'http' && !err.details.envelope && (err.details.status ?? 0) >= 500;
}

/** Connection errors after the request may have reached the Mac (not: it refused to connect). */
const CUT_MID_REQUEST = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

export function toDriverFailure(err: unknown, op: Operation): unknown {
  if (err instanceof DriverFailure || !(err instanceof BlueBubblesError)) return err;
  const msg = err.message;
  // A send (or group creation) whose answer never came may have happened: only the Mac can tell later.
  if ((op === 'send' || op === 'create_group') && (err.kind === 'timeout' || (err.kind === 'network' && CUT_MID_REQUEST.has(String(err.details.code))) || (err.kind === 'http' && err.details.envelope && err.details.status === 504))) {
    return new DriverFailure('ambiguous', `${msg}; ${op === 'send' ? 'the message may have gone out' : 'the group may have been created'}`);
  }
  // A change BlueBubbles took waits on Messages' confirmation (driver.ts, CONFIRMED_*): past even that, it may still happen.
  if ((op === 'edit' || op === 'react' || op === 'participant') && err.kind === 'timeout') {
    return new DriverFailure('ambiguous', `${msg}; Messages may still make the change, or may have refused it`);
  }
  switch (err.kind) {
    case 'network':
    case 'timeout':
    case 'redirect':
    case 'bad_response':
      return new DriverFailure('line_down', msg);
  }
  const status = err.details.status ?? 0;
  const text = err.serverText;
  if (status === 401 || status === 403) {
    return new DriverFailure('line_down', `BlueBubbles refused the server password (${status}); check driver_config.password`);
  }
  if (!err.details.envelope) {
    // Not BlueBubbles talking: a proxy page, or a route this server version lacks.
    if (status === 404 || status === 405) return new DriverFailure('unsupported', `${msg}; this BlueBubbles Server version may not offer it`);
    return new DriverFailure(status >= 500 ? 'line_down' : 'rejected', msg);
  }
  if (PRIVATE_API_OFF.test(text)) {
    return new DriverFailure('unsupported', `needs the BlueBubbles Private API, which is off or its helper is not connected (${text})`);
  }
  if (NEEDS_NEWER_MACOS.test(text)) return new DriverFailure('unsupported', msg);
  if (status === 504) return new DriverFailure('line_down', msg);
  const missing = status === 404 || DOES_NOT_EXIST.test(text);
  switch (op) {
    case 'send':
    case 'upload':
    case 'create_group':
      // The message did not go out: an unknown chat or recipient, or Messages refused it.
      if (status >= 500 || missing) return new DriverFailure('unreachable', msg);
      return new DriverFailure('rejected', msg);
    case 'edit':
    case 'react':
    case 'participant':
      if (missing) return new DriverFailure('not_found', msg);
      return new DriverFailure('rejected', msg);
    case 'download':
      // Only a 404 says the attachment is not there at all. A 500 ("Attachment does not exist in
      // disk!") is a file still on its way from iCloud: the Mac may recover, so it is retried.
      if (status >= 500) return new AttachmentNotOnMac(msg);
      if (missing) return new DriverFailure('not_found', msg);
      return new DriverFailure('rejected', msg);
    case 'lookup':
      if (missing) return new DriverFailure('not_found', msg);
      return new DriverFailure(status >= 500 ? 'line_down' : 'rejected', msg);
    case 'info':
    case 'webhook':
    case 'query':
      return new DriverFailure(status >= 500 ? 'line_down' : 'rejected', msg);
  }
}
