/** Group creations whose outcome is not recorded yet: written before the line is called, removed once settled. */
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';
import { numOrNull } from './rows.js';

export type GroupCreation = Omit<DB['group_creations'], 'handles'> & { handles: string[] };

const toCreation = (r: DB['group_creations']): GroupCreation => ({
  ...r,
  handles: JSON.parse(r.handles) as string[],
  reserved_at: Number(r.reserved_at),
  previous_first_touch_at: numOrNull(r.previous_first_touch_at),
  created_at: Number(r.created_at),
});

export function groupCreationsRepo(db: Kysely<DB>) {
  return {
    async insert(g: GroupCreation): Promise<void> {
      await db.insertInto('group_creations').values({ ...g, handles: JSON.stringify(g.handles) }).execute();
    },

    /** The oldest first. */
    async pending(limit: number): Promise<GroupCreation[]> {
      const rows = await db.selectFrom('group_creations').selectAll().orderBy('created_at').orderBy('id').limit(limit).execute();
      return rows.map(toCreation);
    },

    /** The unsettled creation made under this idempotency key, if any. */
    async byKey(tenantId: string, key: string): Promise<GroupCreation | undefined> {
      const r = await db.selectFrom('group_creations').selectAll().where('tenant_id', '=', tenantId).where('idempotency_key', '=', key).executeTakeFirst();
      return r && toCreation(r);
    },

    /** Settles it; false when it was settled already (by its request or a sweep, in any process). */
    async remove(id: string): Promise<boolean> {
      const r = await db.deleteFrom('group_creations').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}

export type GroupCreationsRepo = ReturnType<typeof groupCreationsRepo>;
