/** Row mapping shared by the repositories: bigint columns may arrive as strings from some drivers. */
export const numOrNull = (v: number | null): number | null => (v === null ? null : Number(v));
