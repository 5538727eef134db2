import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
const env = { ...process.env, APP_ENV: 'development', LOG_LEVEL: process.env.LL ?? 'info', DATA_DIR: '/tmp/bx/data' + Date.now(), RESPONSE_VALIDATION: 'true' };
const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/http.ts', '--serve'], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const ready = await new Promise<any>((ok) => child.once('message', ok));
for (const path of (process.env.PATHS ?? '/v1/me,/v1/contacts?limit=0,/v1/me').split(',')) {
  const r = await autocannon({ url: ready.url + path, connections: 10, duration: 3, headers: { Authorization: `Bearer ${ready.apiKey}` } });
  console.log(path, Math.round(r.requests.average), r.latency.p50, r.latency.p99, JSON.stringify(r.statusCodeStats));
}
child.kill('SIGTERM');
