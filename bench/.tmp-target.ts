import { startSendTarget } from './lib/send-target.js';
import fs from 'node:fs';
const t = await startSendTarget(19100, {});
const h = t.request.headers as Record<string, string>;
fs.writeFileSync('/tmp/fb/target.lua', `wrk.method = "POST"\nwrk.body = ${JSON.stringify(t.request.body)}\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = ${JSON.stringify(h.authorization)}\n`);
console.log('PID', t.proc.child.pid);
await new Promise((r) => setTimeout(r, 600_000));
