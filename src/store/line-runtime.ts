/**
 * Runtime state kept for each line in the database (so every process agrees): its
 * messaging service's epoch and the reservation of its last first touch. The rate buckets
 * (rate-buckets.ts) and the simulator's device log (simulator-log.ts) have their own stores.
 */
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/** What a first-touch reservation writes into a new row's (not null) epoch column: no epoch named yet. */
const NO_EPOCH_YET = 'initial';

export function lineRuntimeRepo(db: Kysely<DB>) {
  /** The epoch the line's service last named; none while the row holds only the placeholder a first-touch reservation wrote. */
  async function serviceEpoch(lineId: string): Promise<string | undefined> {
    const r = await db.selectFrom('line_state').select('service_epoch').where('line_id', '=', lineId).executeTakeFirst();
    return r && r.service_epoch !== NO_EPOCH_YET ? r.service_epoch : undefined;
  }

  return {
    serviceEpoch,

    async setServiceEpoch(lineId: string, epoch: string, nowMs: number): Promise<void> {
      await db
        .insertInto('line_state')
        .values({ line_id: lineId, service_epoch: epoch, last_first_touch_at: null, updated_at: nowMs })
        .onConflict((oc) => oc.column('line_id').doUpdateSet({ service_epoch: epoch, updated_at: nowMs }))
        .execute();
    },

    /**
     * Writes `epoch` only if the line's stored epoch is still `expected` (undefined: none yet, or
     * the first-touch placeholder), then reads it back: `epoch` and `wrote` when this call wrote
     * it, else the epoch another process wrote first. Atomic in both dialects, so two processes
     * naming a line's next epoch at once agree on one.
     */
    async replaceServiceEpoch(lineId: string, expected: string | undefined, epoch: string, nowMs: number): Promise<{ epoch: string; wrote: boolean }> {
      let wrote: boolean;
      if (expected === undefined) {
        const r = await db
          .insertInto('line_state')
          .values({ line_id: lineId, service_epoch: epoch, last_first_touch_at: null, updated_at: nowMs })
          .onConflict((oc) => oc.column('line_id').doUpdateSet({ service_epoch: epoch, updated_at: nowMs }).where('line_state.service_epoch', '=', NO_EPOCH_YET))
          .executeTakeFirst();
        wrote = Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
      } else {
        const r = await db
          .updateTable('line_state')
          .set({ service_epoch: epoch, updated_at: nowMs })
          .where('line_id', '=', lineId)
          .where('service_epoch', '=', expected)
          .executeTakeFirst();
        wrote = Number(r.numUpdatedRows) === 1;
      }
      if (wrote) return { epoch, wrote };
      return { epoch: (await serviceEpoch(lineId)) ?? epoch, wrote };
    },

    async lastFirstTouch(lineId: string): Promise<number | null> {
      const r = await db.selectFrom('line_state').select('last_first_touch_at').where('line_id', '=', lineId).executeTakeFirst();
      return r?.last_first_touch_at == null ? null : Number(r.last_first_touch_at);
    },

    /**
     * Reserves the line for a first touch at `nowMs` if its last one is at least
     * `gapMs` ago. Atomic in both dialects, so two processes can't both win.
     */
    async reserveFirstTouch(lineId: string, nowMs: number, gapMs: number): Promise<boolean> {
      await db
        .insertInto('line_state')
        .values({ line_id: lineId, service_epoch: NO_EPOCH_YET, last_first_touch_at: null, updated_at: nowMs })
        .onConflict((oc) => oc.column('line_id').doNothing())
        .execute();
      const r = await db
        .updateTable('line_state')
        .set({ last_first_touch_at: nowMs, updated_at: nowMs })
        .where('line_id', '=', lineId)
        .where((eb) => eb.or([eb('last_first_touch_at', 'is', null), eb('last_first_touch_at', '<=', nowMs - gapMs)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    /** Gives back a reservation made at `reservedAtMs` that sent nothing: the line's last first touch is `previousMs` again. */
    async releaseFirstTouch(lineId: string, reservedAtMs: number, previousMs: number | null): Promise<void> {
      await db
        .updateTable('line_state')
        .set({ last_first_touch_at: previousMs })
        .where('line_id', '=', lineId)
        .where('last_first_touch_at', '=', reservedAtMs)
        .execute();
    },
  };
}

export type LineRuntimeRepo = ReturnType<typeof lineRuntimeRepo>;
