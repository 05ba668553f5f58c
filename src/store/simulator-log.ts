/** The simulator driver's device log: what each simulated line's device was asked to do. */
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import { columnsOf, preparedInsert } from './prepared.js';

const insertDeviceLogQ = preparedInsert('simulator_sent', columnsOf<DB['simulator_sent']>({ id: true, line_id: true, entry: true, created_at: true }));

export function simulatorLogRepo(db: Kysely<DB>) {
  return {
    async append(id: string, lineId: string, entry: unknown, nowMs: number): Promise<void> {
      await insertDeviceLogQ(db, { id, line_id: lineId, entry: JSON.stringify(entry), created_at: nowMs });
    },

    /**
     * The line's first entry since `sinceMs` made under `ref` (a message id, written as "ref" in
     * the entry); the LIKE narrows, the parsed entry decides.
     */
    async findByRef(lineId: string, ref: string, sinceMs: number): Promise<Record<string, unknown> | undefined> {
      const rows = await db
        .selectFrom('simulator_sent')
        .select(['entry'])
        .where('line_id', '=', lineId)
        .where('created_at', '>=', sinceMs)
        .where('entry', 'like', `%${JSON.stringify(ref).slice(1, -1)}%`)
        .orderBy('id')
        .execute();
      for (const r of rows) {
        const entry = JSON.parse(r.entry) as Record<string, unknown>;
        if (entry.ref === ref) return entry;
      }
      return undefined;
    },

    /** The line's entries, newest first. */
    async recent(lineId: string, limit = 200): Promise<{ id: string; entry: unknown; created_at: number }[]> {
      const rows = await db.selectFrom('simulator_sent').selectAll().where('line_id', '=', lineId).orderBy('id', 'desc').limit(limit).execute();
      return rows.map((r) => ({ id: r.id, entry: JSON.parse(r.entry), created_at: Number(r.created_at) }));
    },
  };
}

export type SimulatorLogRepo = ReturnType<typeof simulatorLogRepo>;
