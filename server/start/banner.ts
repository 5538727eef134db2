// What `npm start` prints once it listens: where, on which database, and outside production the demo account,
// its key, the admin token's place, the console's address; a warning when a development convenience is on and
// others can reach the server.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import type { OffsetClock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../store/database.js';
import { adminToken } from './data-dir.js';

/**
 * The development conveniences that are on: each lets whoever reaches the server act beyond an API key's
 * reach (the sandbox acts as contacts and channels, dev targets let webhooks reach this machine's network).
 */
export function devConveniences(config: Config): string[] {
  return [
    ...(config.sandboxEnabled ? ['SANDBOX_ENABLED'] : []),
    ...(config.webhookDevTargets ? ['WEBHOOK_DEV_TARGETS'] : []),
    ...(config.invokeDevTargets ? ['INVOKE_DEV_TARGETS'] : []),
  ];
}

/** The banner's one-line warning when a development convenience is on and others can reach the server. */
function exposureWarning(config: Config): string[] {
  const on = devConveniences(config);
  if (on.length === 0 || isLoopback(config.host)) return [];
  return [
    `  WARNING: listening on ${config.host}, not loopback, with development conveniences on (${on.join(', ')}): ` +
      `set ${on.map((name) => `${name}=false`).join(' ')} or HOST=127.0.0.1`,
  ];
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (!isIP(host)) return false;
  const address = ipaddr.process(host);
  return address.range() === 'loopback';
}

/** Where the demo key is kept: one file per database, so switching engines never prints a foreign key. */
function demoKeyFile(config: Config): string {
  if (!config.databaseUrl) return join(config.dataDir, 'demo-api-key');
  const url = new URL(config.databaseUrl);
  const id = createHash('sha256').update(`${url.host}${url.pathname}`).digest('hex').slice(0, 12);
  return join(config.dataDir, `demo-api-key.postgres-${id}`);
}

/** What `npm start` prints: where it listens, and outside production the demo account (created if need be). */
export async function banner(
  config: Config,
  database: Database,
  clock: OffsetClock,
  baseUrl: string,
): Promise<string[]> {
  const lines = [
    `Engagement Platform API listening on ${baseUrl} (${database.engine === 'pglite' ? `embedded database in ${resolve(config.dataDir)}` : 'PostgreSQL'})`,
    // /docs is a development aid, on with the sandbox (server/http/description.ts); the description is always served.
    config.sandboxEnabled
      ? `  reference: ${baseUrl}/docs (build it with npm run docs); description: ${baseUrl}/openapi.json`
      : `  reference: npm run docs, then open docs/index.html; description: ${baseUrl}/openapi.json`,
  ];
  if (config.webConcurrency > 1) lines.push(`  ${config.webConcurrency} API processes (WEB_CONCURRENCY)`);
  lines.push(...exposureWarning(config));
  // A demo account outside production, on either engine: `npm start` and `DATABASE_URL=… npm start` both
  // print a working key. Imported here: its fake names come from a development dependency, absent in production.
  if (config.env !== 'production') {
    const { ensureDemoAccount } = await import('../console/demo.js');
    const demo = await ensureDemoAccount(database.db, clock, config.dataDir, demoKeyFile(config));
    lines.push(
      `  demo account ${demo.accountId}${demo.created ? ' (created now)' : ''}`,
      `  demo API key (every scope): ${demo.apiKey}`,
      `  try: curl -H 'Authorization: Bearer ${demo.apiKey}' ${baseUrl}/v1/me`,
      `  admin token: ${config.adminToken ? 'ADMIN_TOKEN' : join(resolve(config.dataDir), 'admin-token')}`,
      `  sandbox: ${config.sandboxEnabled ? `on (act as contacts and channels: ${baseUrl}/admin/v1/sandbox/…)` : 'off (SANDBOX_ENABLED)'}`,
      // The token rides in the fragment: a browser never sends it to a server, so it reaches no request log.
      `  console: ${config.sandboxEnabled ? `${baseUrl}/console#token=${encodeURIComponent(adminToken(config))}&account=${demo.accountId}` : 'off (SANDBOX_ENABLED)'}`,
      `  webhook receivers: ${config.webhookDevTargets ? 'http and loopback allowed (WEBHOOK_DEV_TARGETS)' : 'https, port 443, public addresses only'}`,
    );
  }
  return lines;
}
