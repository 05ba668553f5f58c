/**
 * An idempotency record in progress names its owner (the request holding the claim) and how
 * long the claim is good for (its lease, renewed while the request runs), and lists the messages
 * its request recorded, written with each message in one transaction. A retry that finds the
 * lease past knows the owner is gone, and from those messages what it did
 * (domain/messaging/idempotency.ts).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('lease_until', 'bigint').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('message_ids', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('message_ids').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('lease_until').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('owner').execute();
}
