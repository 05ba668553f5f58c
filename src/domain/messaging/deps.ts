import type { Clock } from '../../clock.js';
import type { Store } from '../../store/index.js';
import type { DriverRegistry } from '../../drivers/registry.js';
import type { OutboundFile } from '../../drivers/types.js';
import type { StatusEvents } from './status-events.js';

/**
 * Where outbound media and staged voice notes come from (the media area
 * implements it): ids resolve to driver files, or fail with 5001/5004.
 */
export interface MediaSource {
  /** Uploaded attachments of the tenant, in order; throws 5001/5004 with attachment_index. */
  attachments(tenantId: string, ids: string[], indexes?: number[]): Promise<OutboundFile[]>;
  /** A staged voice note usable on `lineId` now; throws 5001 when unknown, expired, elsewhere or stale. */
  voiceNote(tenantId: string, lineId: string, voiceNoteId: string): Promise<OutboundFile>;
  /**
   * Runs the send that uses up a staged voice note (5001 if already used). A failure gives it
   * back, unless `mayHaveGoneOut(err)`: then it stays used until reconciliation decides (canGiveBackVoiceNote).
   */
  useVoiceNote<T>(voiceNoteId: string, send: () => Promise<T>, mayHaveGoneOut?: (err: unknown) => boolean): Promise<T>;
  /** Whether the voice note of a send reconciliation is failing (it never left) is still usable, so it can be given back. */
  canGiveBackVoiceNote(tenantId: string, voiceNoteId: string): Promise<boolean>;
}

/** Wakes the reconciliation sweep (reconcile.ts) when a send or group creation left unsettled can be settled. */
export interface SettleWakeup {
  /** Sweep at `atMs` (business time) at the latest. */
  settleAt(atMs: number): void;
}

export interface MessagingDeps {
  store: Store;
  clock: Clock;
  drivers: DriverRegistry;
  media: MediaSource;
  /** Absent where nothing sweeps (the sweep at start, then every minute, still settles everything). */
  settling?: SettleWakeup;
  /** Records message.sent (and a group's late failure) for the projects that subscribe to them. */
  statusEvents?: StatusEvents;
}
