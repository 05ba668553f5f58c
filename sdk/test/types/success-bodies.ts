/**
 * Type-level checks of the SDK's success types, compiled by the project's type check
 * (`tsc -p tsconfig.json`) and by sdk/test/types.test.ts: a call whose only success is 202
 * (the simulator's inbound) has its body's type, not `never`, and so does every operation
 * whose 2xx answer is JSON.
 */
import type { Blueline, Res, paths } from '@blueline/sdk';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** The 202-only operation: its body, as the contract declares it. */
export type InboundAccepted = Assert<Equal<Res<'/admin/v1/lines/{id}/simulate/inbound', 'post'>, { ok: true; guid: string }>>;

/** 200 and 201 bodies as before: /send (200), POST /chats (200 or 201, one shape), creating a tenant (201). */
export type SendTyped = Assert<Equal<Res<'/api/v1/send', 'post'>['status'], 'sent'>>;
export type ChatCreatedTyped = Assert<Equal<Res<'/api/v1/chats', 'post'>['chat']['id'], string>>;
export type TenantCreatedTyped = Assert<Equal<Res<'/admin/v1/tenants', 'post'>['tenant']['slug'], string>>;

/** Whether a responses object declares a JSON body for a 2xx status. */
type HasJsonSuccess<R> = true extends {
  [S in keyof R]: S extends 200 | 201 | 202 | 203 | 206 ? (R[S] extends { content: { 'application/json': unknown } } ? true : false) : false;
}[keyof R]
  ? true
  : false;
/** "method path" of every operation with a JSON 2xx answer whose `Res` is nevertheless `never`. */
type UntypedSuccesses = {
  [P in keyof paths & string]: {
    [M in Method & keyof paths[P]]: paths[P][M] extends { responses: infer R }
      ? HasJsonSuccess<R> extends true
        ? [Res<P, M>] extends [never]
          ? `${M} ${P}`
          : never
        : never
      : never;
  }[Method & keyof paths[P]];
}[keyof paths & string];
export type EveryJsonSuccessIsTyped = Assert<Equal<UntypedSuccesses, never>>;

/** What a user writes: the simulator's answer read without a cast. */
export async function simulateInbound(client: Blueline, lineId: string): Promise<string> {
  const accepted = await client.admin.simulatorInbound(lineId, { from: '+14155550100', text: 'hello' });
  const ok: true = accepted.ok;
  return `${String(ok)} ${accepted.guid}`;
}
