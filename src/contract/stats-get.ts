import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from './common.js';
import { operation } from './operation.js';

export const DailyCount = Type.Object({
  date: Type.String({ format: 'date', description: "the project's local calendar date (its timezone, as for the daily caps' today); a day is 23 or 25 hours when clocks change" }),
  phone_line_id: Nullable(Type.String()),
  sent: Type.Integer(),
  received: Type.Integer(),
  failed: Type.Integer(),
});

export const StatsResponse = Type.Object({
  days: Type.Integer(),
  daily: Type.Array(DailyCount, { description: "one row per local day (the project's timezone) and line with any message, oldest first; the last `days` local days, today included" }),
  first_touches_today: Type.Object({
    used: Type.Integer(),
    cap: Type.Integer({ description: 'the daily first-touch cap' }),
    per_line: Type.Array(Type.Object({ phone_line_id: Type.String(), used: Type.Integer(), limit: Type.Integer() })),
  }),
  webhooks: Type.Object({
    delivered: Type.Integer({ description: 'events delivered in the period' }),
    failed: Type.Integer(),
    pending: Type.Integer(),
    success_rate: Nullable(Type.Number({ description: 'delivered / (delivered + failed); null without either' })),
    oldest_pending_at: Nullable(DateTime()),
  }),
});
export type StatsResponse = Static<typeof StatsResponse>;

export const getStats = operation({
  operationId: 'getStats',
  method: 'GET',
  path: '/api/v1/stats',
  summary: 'Daily message counts by line and direction, first touches today, webhook delivery health',
  tags: ['stats'],
  auth: 'tenant',
  query: Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 30 })) }, { additionalProperties: false }),
  responses: { 200: StatsResponse },
  errors: [],
});
