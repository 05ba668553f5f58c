/**
 * What bench/send.ts loads: POST /api/v1/send (text, an existing conversation,
 * through the simulator) with the rate limit lifted, and the node:http baseline
 * answering the same POST with a body the size of a send's answer.
 */
import { startBaseline, startBlueline, type LoadOptions, type Proc } from './harness.js';

export const sendBody = JSON.stringify({ phone: '+14155550142', body: 'benchmark message' });

const sendAnswer = JSON.stringify({ status: 'sent', message_id: 'msg_01JABCDEFGHJKMNPQRSTVWXYZ0', lead_id: '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a11', chat_id: '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a11', lead_created: false, convo_id: '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a12', phone_line_id: '6f1c6b43-8a57-4c53-9b0a-2f5b0e0f6a13' });

/**
 * The baseline gets the same request (POST, headers, body) as /send: the transport's ceiling for
 * this load, not a bodiless GET, which costs the load generator and the parser less.
 */
export async function startSendBaseline(port: number): Promise<{ proc: Proc; request: LoadOptions }> {
  const proc = await startBaseline(port, sendAnswer);
  const request = { url: proc.url, method: 'POST', headers: { authorization: 'Bearer sk_baseline', 'content-type': 'application/json' }, body: sendBody, server: proc.child };
  return { proc, request };
}

/** Blueline ready to take sends: rate limit lifted, the conversation created by a first send. */
export async function startSendTarget(port: number, env: Record<string, string>): Promise<{ proc: Proc; request: LoadOptions }> {
  const blueline = await startBlueline(port, env);
  try {
    const admin = { authorization: `Bearer ${blueline.demo.admin_token}`, 'content-type': 'application/json' };
    await fetch(`${blueline.url}/admin/v1/tenants/demo`, { method: 'PATCH', headers: admin, body: JSON.stringify({ rate_limit: { per_second: 1e6, burst: 1e6 } }) });
    const auth = { authorization: `Bearer ${blueline.demo.signing_secret}`, 'content-type': 'application/json' };
    const first = await fetch(`${blueline.url}/api/v1/send`, { method: 'POST', headers: auth, body: sendBody });
    if (first.status !== 200) throw new Error(`first send failed: ${first.status} ${await first.text()}`);
    return { proc: blueline, request: { url: `${blueline.url}/api/v1/send`, method: 'POST', headers: auth, body: sendBody, server: blueline.child } };
  } catch (err) {
    await blueline.stop();
    throw err;
  }
}
