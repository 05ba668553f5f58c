/**
 * What a BlueBubbles line's driver knows of its server, apart from any one operation: its
 * server/info (re-asked at most every INFO_TTL_MS), whether it is up, whether the Private API
 * can be used, and its service epoch.
 *
 * Service epoch: BlueBubbles reports no start time or uptime, so the epoch is
 * `bb:<fingerprint>:<generation>`. The fingerprint hashes what server/info
 * says about the installation (computer, macOS and server versions, iMessage
 * account); the generation goes up whenever this process has seen evidence of
 * a restart since the last epoch was computed: the server was unreachable and
 * answers again, or the Private API helper reconnected. It lives in the
 * database through ctx.state, so every process reads the same epoch.
 *
 * Several processes see the same restart, each on its own: one restart is one
 * new generation. When a process first sees the evidence begin (the server
 * unreachable, the helper disconnected) it notes the epoch stored then; after
 * the restart it moves the epoch from that one to the next generation with a
 * compare-and-set, and if the stored epoch has already moved on since (another
 * process counted this restart) it takes that one instead of bumping again.
 */
import { createHash } from 'node:crypto';
import type { DriverContext } from '../types.js';
import { DriverFailure } from '../types.js';
import type { BBServerInfo } from './api-types.js';
import { BlueBubblesError, type BlueBubblesClient } from './client.js';
import type { BlueBubblesConfig } from './config.js';
import { isPrivateApiOff, isServerDown, isServerUnreachable, toDriverFailure, type Operation } from './errors.js';

/** How long a server/info answer is trusted for capabilities and method choice. */
export const INFO_TTL_MS = 30_000;
/** How often a line seen down is probed again before first-touch selection skips it. */
export const AVAILABILITY_RECHECK_MS = 5_000;

/** Changes BlueBubbles takes and then waits on Messages to confirm (driver.ts, CONFIRMED_*). */
const CONFIRMED_OPS: ReadonlySet<Operation> = new Set(['edit', 'react', 'participant']);

function fingerprint(info: BBServerInfo): string {
  const basis = JSON.stringify([info.computer_id ?? '', info.os_version ?? '', info.server_version ?? '', info.detected_imessage ?? '']);
  return createHash('sha256').update(basis).digest('hex').slice(0, 12);
}

function parseEpoch(epoch: string | undefined): { fp: string; gen: number } | undefined {
  const m = /^bb:([a-z0-9]+):(\d+)$/.exec(epoch ?? '');
  return m ? { fp: m[1]!, gen: Number(m[2]) } : undefined;
}

export function serverState(ctx: DriverContext, client: BlueBubblesClient | undefined, cfg: BlueBubblesConfig | undefined, invalid: () => DriverFailure) {
  let info: BBServerInfo | undefined;
  let infoAt = 0;
  let lastAttemptAt = 0;
  let refreshing: Promise<BBServerInfo> | undefined;
  /** The server refused a Private API call since the last info: treat it as off until asked again. */
  let privateApiRefused = false;
  /** Evidence of a restart since the last epoch was computed. */
  let restartSeen = false;
  /**
   * The epoch stored when the latest evidence of a restart began (read then, in the background):
   * the one this restart replaces. `unknown` when it could not be read (the restart then replaces
   * whatever is stored when it is counted).
   */
  let restartBase: Promise<{ epoch: string | undefined } | 'unknown'> | undefined;
  /** Seen down (unreachable, or not answering in time) and not answered since: what available() goes by. */
  let sawDown = false;
  /** Seen unreachable since it last answered: evidence of a restart (a slow answer is not). */
  let sawUnreachable = false;
  /** serviceEpoch() calls run one after another. */
  let epochChain: Promise<unknown> = Promise.resolve();

  /** Evidence of a restart begins: note the epoch stored now (the one a restart would replace). */
  function restartMayBegin() {
    restartBase = ctx.state.serviceEpoch(ctx.lineId).then(
      (epoch) => ({ epoch }),
      () => 'unknown' as const,
    );
  }

  function noteFailure(err: unknown, op?: Operation) {
    // A change BlueBubbles took and is waiting on Messages for says nothing of the server's health.
    const waitedOnMessages = op !== undefined && CONFIRMED_OPS.has(op) && err instanceof BlueBubblesError && err.kind === 'timeout';
    if (isServerDown(err) && !waitedOnMessages) sawDown = true;
    if (isServerUnreachable(err) && !sawUnreachable) {
      sawUnreachable = true;
      restartMayBegin();
    }
    if (isPrivateApiOff(err)) {
      privateApiRefused = true;
      infoAt = 0;
    }
  }

  function observe(next: BBServerInfo) {
    if (sawUnreachable) restartSeen = true;
    sawDown = false;
    sawUnreachable = false;
    if (info && info.helper_connected === false && next.helper_connected === true) restartSeen = true;
    if (next.helper_connected === false && info?.helper_connected !== false) restartMayBegin();
    info = next;
    infoAt = Date.now();
    privateApiRefused = false;
  }

  function refresh(): Promise<BBServerInfo> {
    if (!client) return Promise.reject(invalid());
    if (refreshing) return refreshing;
    lastAttemptAt = Date.now();
    refreshing = (async () => {
      try {
        const env = await client.request<BBServerInfo>('GET', '/api/v1/server/info');
        const next = env.data && typeof env.data === 'object' ? env.data : {};
        observe(next);
        return next;
      } catch (err) {
        noteFailure(err);
        throw toDriverFailure(err, 'info');
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  }

  const refreshQuietly = () => {
    refresh().catch(() => {
      /* reported by the next operation */
    });
  };

  async function ensureInfo(): Promise<BBServerInfo> {
    if (info && Date.now() - infoAt < INFO_TTL_MS) return info;
    return refresh();
  }

  function privateApiOn(): boolean {
    if (!cfg || cfg.privateApi === false || privateApiRefused) return false;
    if (info) return info.private_api === true && info.helper_connected === true;
    return cfg.privateApi === true;
  }

  async function computeEpoch(): Promise<string> {
    let now: BBServerInfo | undefined;
    try {
      now = await refresh();
    } catch (err) {
      if (!(err instanceof DriverFailure)) throw err;
    }
    const stored = await ctx.state.serviceEpoch(ctx.lineId);
    const prev = parseEpoch(stored);
    let epoch: string;
    let restarted = false;
    let base: typeof restartBase;
    if (!now) {
      // Unreachable: keep what we have; the restart shows once it answers again.
      if (prev) return stored!;
      epoch = 'bb:unreachable:1';
    } else {
      const fp = fingerprint(now);
      restarted = restartSeen;
      restartSeen = false;
      base = restartBase;
      if (restarted) restartBase = undefined;
      if (!prev) epoch = `bb:${fp}:1`;
      else if (prev.fp !== fp) epoch = `bb:${fp}:${prev.gen + 1}`;
      else if (restarted && (await replacedSince(base, stored))) epoch = stored!; // another process counted this restart
      else if (restarted) epoch = `bb:${fp}:${prev.gen + 1}`;
      else epoch = stored!;
    }
    if (epoch === stored) return epoch;
    try {
      // From the epoch read above only: if another process named one since, it stands (the same restart, seen there too).
      return (await ctx.state.replaceServiceEpoch(ctx.lineId, stored, epoch, ctx.now())).epoch;
    } catch (err) {
      if (restarted) {
        // keep the evidence for the next try
        restartSeen = true;
        restartBase ??= base;
      }
      throw err;
    }
  }

  /** The stored epoch moved on after the restart's evidence began: another process has counted the restart. */
  async function replacedSince(base: typeof restartBase, stored: string | undefined): Promise<boolean> {
    const was = await base;
    return was !== undefined && was !== 'unknown' && was.epoch !== stored;
  }

  return {
    noteFailure,
    refresh,
    refreshQuietly,
    ensureInfo,
    privateApiOn,
    info: () => info,

    /** Before a send that works either way: a down server stops it; any other info failure just means AppleScript. */
    async ensureInfoForSend(): Promise<void> {
      if (!client) throw invalid();
      try {
        await ensureInfo();
      } catch (err) {
        if (err instanceof DriverFailure && err.kind === 'line_down') throw err;
      }
    },

    async requirePrivateApi(what: string): Promise<void> {
      if (!client) throw invalid();
      if (cfg!.privateApi === false) throw new DriverFailure('unsupported', `${what} needs the BlueBubbles Private API, which this line's driver_config turns off`);
      const now = await ensureInfo();
      if (privateApiOn()) return;
      const why = now.private_api !== true ? 'the Private API is not enabled in BlueBubbles Server' : 'the Private API helper is not connected to BlueBubbles Server';
      throw new DriverFailure('unsupported', `${what} needs the BlueBubbles Private API: ${why}`);
    },

    /**
     * Up unless the server was seen down (unreachable, or not answering within timeout_ms) and has
     * not answered since; while down it is asked again at most every health_recheck_ms, so a Mac
     * that hangs costs one timeout per recheck, not one per first touch.
     */
    async available(): Promise<boolean> {
      if (!client) return false;
      if (!sawDown && info && Date.now() - infoAt < INFO_TTL_MS) return true;
      const recheck = typeof ctx.config.health_recheck_ms === 'number' ? ctx.config.health_recheck_ms : AVAILABILITY_RECHECK_MS;
      if (sawDown && Date.now() - lastAttemptAt < recheck) return false;
      try {
        await refresh();
        return true;
      } catch {
        return false;
      }
    },

    /** Whether the Private API can be used, from the cached info (capabilities() is synchronous); a stale one is re-asked in the background. */
    privateApiNow(): boolean {
      if (!refreshing && Date.now() - Math.max(infoAt, lastAttemptAt) >= INFO_TTL_MS) refreshQuietly();
      return privateApiOn();
    },

    serviceEpoch(): Promise<string> {
      // One at a time per driver, so two callers never compute different generations.
      const next = epochChain.then(computeEpoch, computeEpoch);
      epochChain = next.catch(() => undefined);
      return next;
    },
  };
}

export type ServerState = ReturnType<typeof serverState>;
