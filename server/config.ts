// Every setting of the server, read from the environment once at start and validated. Defaults run the
// embedded mode (PGlite in ./data, sandbox channels on). The comment above each setting is its documentation:
// `npm run generate` writes it into .env.example.
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const KEY_HINT = 'must be 32 random bytes in base64 (make one with `openssl rand -base64 32`)';

/** 32 bytes in base64 (standard or url-safe, padded or not): an AES-256 key, nothing shorter, longer or mangled. */
function isKey32(value: string): boolean {
  const bytes = Buffer.from(value, 'base64');
  const standard = bytes.toString('base64');
  const urlSafe = bytes.toString('base64url');
  return bytes.length === 32 && [standard, standard.replace(/=/g, ''), urlSafe, `${urlSafe}=`].includes(value);
}

/** A comma-separated list, without blanks (a trailing comma, spaces after the commas). */
function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

/** An http(s) URL without the trailing slashes (paths are joined to it with one). */
function withoutTrailingSlash(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

const schema = z
  .object({
    // development: the demo account and the banner; production: every setting production needs is required.
    APP_ENV: z.enum(['development', 'test', 'production']).default('development'),
    // The address to listen on (0.0.0.0: every interface).
    HOST: z.string().min(1).default('127.0.0.1'),
    // The port to listen on (0: any free port, printed in the banner).
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    // The base of every link the API hands out or stores (attachment urls in messages and events, upload and
    // download links). Required in production: links are never built from the request's Host header there.
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    // The embedded database (DATA_DIR/pglite), the generated admin token and channel credentials key, and the
    // demo API key.
    DATA_DIR: z.string().min(1).default('./data'),
    // PostgreSQL instead of the embedded database, e.g. postgres://user:password@host:5432/db.
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
    // Connections of each process to PostgreSQL (the job workers hold at most half of them).
    DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    // PostgreSQL plans each statement once per connection (named, prepared statements). Turn it off behind a
    // pooler that hands one session's statements to another (PgBouncer in transaction mode before 1.21).
    DB_NAMED_STATEMENTS: bool.default(true),
    // PostgreSQL's statement_timeout on every pooled connection (0: none).
    DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
    // PostgreSQL's idle_in_transaction_session_timeout on every pooled connection (0: none).
    DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
    // A request not answered by then gets 503 service_unavailable, and its database work is refused and rolled
    // back. Long: a send to a slow channel or a webhook test waits on the other side.
    REQUEST_DEADLINE_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
    // Bearer token of the admin API (/admin/v1/…), 24 characters or more; unset outside production: one is
    // generated into DATA_DIR/admin-token.
    ADMIN_TOKEN: z.string().min(24).optional(),
    // Checks each answer against the spec (catches contract drift): default true, false in production.
    RESPONSE_VALIDATION: bool.optional(),
    // Benchmarks only (it measures what request validation costs); refused in production.
    REQUEST_VALIDATION: bool.default(true),
    // How long an API key once checked is trusted without reading the database (a revoked key: up to that).
    KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(30),
    // Express `trust proxy`: how many proxies in front of the server set X-Forwarded-For (0: none, the
    // client connects directly). Behind a balancer, set it, or every caller shares the balancer's IP.
    TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
    // Requests one client address may make per minute, before any key is checked (403 above it).
    EDGE_IP_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
    // Requests per second this process serves at most, all callers together (429 above it).
    GLOBAL_RPS_CEILING: z.coerce.number().int().min(1).default(1000),
    // Meta's webhook posts (/channels/…) per second this process takes at most, counted apart from the API's
    // calls (429 above it; Meta retries): three numbers at Meta's upgraded 1,000 messages a second.
    CHANNEL_WEBHOOK_RPS_CEILING: z.coerce.number().int().min(1).default(3000),
    // Server processes on one PostgreSQL (node:cluster): set it to the machine's cores. PGlite: 1 (one process
    // owns the data directory).
    WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
    // Whether this process runs the job workers (webhook deliveries, automation runs, timers).
    WORKERS: bool.default(true),
    // Jobs one worker runs at once: the automations' jobs and the other background work (webhook attempts have
    // slots of their own, WEBHOOK_DELIVERY_CONCURRENCY).
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(32),
    // Webhook attempts one process runs at once, in slots of their own (an attempt waits on its receiver, not on
    // the database, so the automations' jobs keep WORKER_CONCURRENCY whatever the receivers do).
    WEBHOOK_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
    // How often an idle worker looks for due jobs it was not told of.
    WORKER_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(250),
    // Days a job that gave up (no attempt left; its error is logged) is kept for inspection before the hourly
    // retention job deletes it. A job that finished is deleted as it finishes.
    FAILED_JOB_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7),
    // pino log level.
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    // auto: one readable line per entry when stdout is a terminal outside production, JSON lines otherwise.
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
    // The sandbox (act as contacts and channels, move the clock): default on in embedded mode only.
    SANDBOX_ENABLED: bool.optional(),
    // Where GET /docs finds the reference pages `npm run docs` builds (index.html, admin.html); /docs is served
    // only while the sandbox is on (development).
    DOCS_DIR: z.string().min(1).default('./docs'),
    // Development only: webhook receivers on http, on any port and on loopback or private addresses (default on
    // in embedded development mode only; refused with APP_ENV=production).
    WEBHOOK_DEV_TARGETS: bool.optional(),
    // Development only: invoke blocks may call http, any port and loopback or private addresses (default on in
    // embedded development mode only; refused with APP_ENV=production).
    INVOKE_DEV_TARGETS: bool.optional(),
    // Per endpoint: webhook deliveries in flight at once.
    WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(100).default(5),
    // Per endpoint: attempts started per minute beyond WEBHOOK_MAX_IN_FLIGHT (0: no pacing).
    WEBHOOK_PACE_PER_MINUTE: z.coerce.number().int().min(0).default(100),
    // Automation runs one contact may start per hour, by triggers and through the API (run_limit_reached).
    RUNS_PER_CONTACT_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(20),
    // WhatsApp Cloud API: the Meta app's secret, which signs every webhook Meta sends (X-Hub-Signature-256).
    // Unset: the webhook route, /channels/whatsapp/webhook, answers 404.
    META_APP_SECRET: z.string().min(1).max(256).optional(),
    // WhatsApp Cloud API: the verify token typed into the Meta app's webhook settings; Meta's subscription check
    // (GET /channels/whatsapp/webhook) sends it as hub.verify_token. Unset: no subscription check succeeds.
    META_VERIFY_TOKEN: z.string().min(1).max(256).optional(),
    // Where the Graph API is (http or https, trailing slash dropped): Meta's, or `npm run fake:meta` on loopback
    // to play a provider round trip without Meta. Configuration only, never per connection.
    GRAPH_API_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://graph.facebook.com'),
    // Where Instagram's Graph API is for accounts connected with Instagram Login (Facebook Login goes through
    // GRAPH_API_BASE_URL with a Page token): Meta's, or `npm run fake:meta`. Configuration only.
    INSTAGRAM_GRAPH_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://graph.instagram.com'),
    // Tests and local play only: an Instagram attachment's CDN URL (lookaside.fbsbx.com, …) is fetched from this
    // origin instead, its path and query kept (`npm run fake:meta` serves them). Unset: the URL Meta sent.
    INSTAGRAM_CDN_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    // The Graph API version every call names (pinned: a new one is adopted on purpose, after its changes are read).
    GRAPH_API_VERSION: z
      .string()
      .regex(/^v\d{1,3}\.\d{1,3}$/, 'must be a Graph API version like v23.0')
      .default('v23.0'),
    // The key that seals channel access tokens at rest (AES-256-GCM), 32 random bytes in base64; make one with
    // `openssl rand -base64 32`. Required in production; unset outside it: one is generated into
    // DATA_DIR/channel-credentials-key (to move to this setting, set it to that file's content). Losing it loses
    // every stored token (each number is connected again).
    CHANNEL_CREDENTIALS_KEY: z.string().trim().refine(isKey32, KEY_HINT).optional(),
    // Previous CHANNEL_CREDENTIALS_KEY values, comma-separated: tokens sealed under them still open (each sealed
    // token names its key's id); new ones are sealed under CHANNEL_CREDENTIALS_KEY.
    CHANNEL_CREDENTIALS_OLD_KEYS: z
      .string()
      .max(4096)
      .refine((value) => listOf(value).every(isKey32), `each entry ${KEY_HINT}`)
      .optional(),
  })
  .transform((env) => ({
    env: env.APP_ENV,
    host: env.HOST,
    port: env.PORT,
    publicBaseUrl: env.PUBLIC_BASE_URL,
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    dbPoolSize: env.DB_POOL_SIZE,
    dbNamedStatements: env.DB_NAMED_STATEMENTS,
    dbStatementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
    dbIdleInTransactionTimeoutMs: env.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    requestDeadlineMs: env.REQUEST_DEADLINE_MS,
    adminToken: env.ADMIN_TOKEN,
    // Response validation catches contract drift; it costs throughput, so production turns it off by default.
    responseValidation: env.RESPONSE_VALIDATION ?? env.APP_ENV !== 'production',
    requestValidation: env.REQUEST_VALIDATION,
    keyCacheSeconds: env.KEY_CACHE_SECONDS,
    trustProxy: env.TRUST_PROXY,
    edgeIpLimitPerMinute: env.EDGE_IP_LIMIT_PER_MINUTE,
    globalRpsCeiling: env.GLOBAL_RPS_CEILING,
    channelWebhookRpsCeiling: env.CHANNEL_WEBHOOK_RPS_CEILING,
    webConcurrency: env.WEB_CONCURRENCY,
    workers: env.WORKERS,
    workerConcurrency: env.WORKER_CONCURRENCY,
    webhookDeliveryConcurrency: env.WEBHOOK_DELIVERY_CONCURRENCY,
    workerPollMs: env.WORKER_POLL_MS,
    failedJobRetentionDays: env.FAILED_JOB_RETENTION_DAYS,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    // The sandbox acts as contacts and channels: on by default in embedded mode only.
    sandboxEnabled: env.SANDBOX_ENABLED ?? env.DATABASE_URL === undefined,
    docsDir: env.DOCS_DIR,
    // The strict webhook URL rules (https, port 443, public addresses only) hold unless this is on; it is on
    // by default in the embedded development mode only, so a developer can receive events on localhost.
    webhookDevTargets: env.WEBHOOK_DEV_TARGETS ?? (env.DATABASE_URL === undefined && env.APP_ENV === 'development'),
    // The invoke block's address rules (public addresses only) hold unless this is on; on by default in the
    // embedded development mode only, so a developer can call a receiver on localhost.
    invokeDevTargets: env.INVOKE_DEV_TARGETS ?? (env.DATABASE_URL === undefined && env.APP_ENV === 'development'),
    webhookMaxInFlight: env.WEBHOOK_MAX_IN_FLIGHT,
    webhookPacePerMinute: env.WEBHOOK_PACE_PER_MINUTE,
    runsPerContactPerHour: env.RUNS_PER_CONTACT_PER_HOUR,
    metaAppSecret: env.META_APP_SECRET,
    metaVerifyToken: env.META_VERIFY_TOKEN,
    graphApiBaseUrl: withoutTrailingSlash(env.GRAPH_API_BASE_URL),
    instagramGraphBaseUrl: withoutTrailingSlash(env.INSTAGRAM_GRAPH_BASE_URL),
    instagramCdnBaseUrl:
      env.INSTAGRAM_CDN_BASE_URL === undefined ? undefined : withoutTrailingSlash(env.INSTAGRAM_CDN_BASE_URL),
    graphApiVersion: env.GRAPH_API_VERSION,
    // Base64, checked above; the keyring (start/data-dir.ts) decodes them, with the generated key when unset.
    channelCredentialsKey: env.CHANNEL_CREDENTIALS_KEY,
    channelCredentialsOldKeys: listOf(env.CHANNEL_CREDENTIALS_OLD_KEYS),
  }));

export type Config = z.output<typeof schema>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  // Every problem at once: an operator fixes them in one go, not one per start.
  const problems = crossChecks(config);
  if (problems.length) throw new ConfigError(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return config;
}

/** The rules between settings, each a line `NAME: why`. */
function crossChecks(config: Config): string[] {
  const production = config.env === 'production';
  const problems: string[] = [];
  if (production && !config.databaseUrl) problems.push('DATABASE_URL: required when APP_ENV=production');
  if (config.webConcurrency > 1 && !config.databaseUrl)
    problems.push('WEB_CONCURRENCY: above 1 needs DATABASE_URL (one process owns an embedded database)');
  if (production && !config.requestValidation)
    problems.push('REQUEST_VALIDATION: cannot be false when APP_ENV=production');
  if (production && !config.adminToken) problems.push('ADMIN_TOKEN: required when APP_ENV=production');
  if (production && !config.publicBaseUrl) problems.push('PUBLIC_BASE_URL: required when APP_ENV=production');
  if (production && !config.channelCredentialsKey)
    problems.push(
      'CHANNEL_CREDENTIALS_KEY: required when APP_ENV=production (32 random bytes in base64: `openssl rand -base64 32`)',
    );
  if (production && config.webhookDevTargets)
    problems.push('WEBHOOK_DEV_TARGETS: cannot be true when APP_ENV=production');
  if (production && config.invokeDevTargets)
    problems.push('INVOKE_DEV_TARGETS: cannot be true when APP_ENV=production');
  return problems;
}
