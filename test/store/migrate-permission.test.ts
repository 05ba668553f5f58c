/**
 * An operator whose role does not own the database (PostgreSQL 15+ lets only the owner create
 * tables in `public`) is told that the migrations could not start, and why, not "migration ?".
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { asPgAdmin as asAdmin, createPgDatabase } from '../support/stores.js';

let database: Awaited<ReturnType<typeof createPgDatabase>>;
const role = `r_${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  database = await createPgDatabase();
  await asAdmin(`create role ${role} login password 'not-the-owner'`);
  // As PostgreSQL 15+ has it by default: only the owner creates in public (older servers granted it to all).
  await asAdmin('revoke create on schema public from public', database.url);
});
afterAll(async () => {
  await database?.drop();
  await asAdmin(`drop role if exists ${role}`);
});

it('says the migrations could not start, with the server\'s reason, when the role may not create tables', async () => {
  const url = new URL(database.url);
  url.username = role;
  url.password = 'not-the-owner';
  const opening = openStore({ databaseUrl: url.toString(), masterKey: randomBytes(32) });
  await expect(opening).rejects.toThrow(/^migrations could not start \(the migrations table and its lock\): permission denied for schema public/);
});
