/**
 * Reserved recipients that force outcomes in the simulator, like test card
 * numbers in a payment sandbox. Anything else behaves like a happy iPhone.
 */
export const SIMULATOR_RECIPIENTS = {
  /** Every send fails: 502 / 4001, retryable. */
  unreachable: '+15005550001',
  /** Accepted (`sent`) but never delivered or read. */
  undelivered: '+15005550002',
  /** Adding this handle to a group is rejected: 502 / 4001. */
  rejectsParticipantAdd: '+15005550003',
  /** The line acts as down for this recipient: 503 / 3002. */
  lineDown: '+15005550004',
  /** Removing this handle from a group is rejected: 502 / 4001. */
  rejectsParticipantRemove: '+15005550005',
  /**
   * A send (or a group creation with this member) that never reaches the device and whose answer
   * never comes: 503 / 3002 as a line that timed out, `sending` until reconciliation fails it (no group).
   */
  stallsBeforeDevice: '+15005550006',
  /** A send (or a group creation with this member) the device gets but whose answer never comes: 503 / 3002, then `sent` (the group recorded). */
  stallsAfterDevice: '+15005550007',
  /** Accepted (`sent`), then the device reports it failed (`failed`, 4001) where a delivery receipt would come. */
  failsAfterSend: '+15005550008',
} as const;
