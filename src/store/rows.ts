/** Row mapping shared by the repositories: bigint columns may arrive as strings from some drivers. */
export const numOrNull = (v: number | null): number | null => (v === null ? null : Number(v));

/** A write refused by a unique constraint, in either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
