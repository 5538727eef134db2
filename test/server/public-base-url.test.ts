// No link is built from the request's Host header in production: PUBLIC_BASE_URL is required there, and every
// link the API hands out or stores (upload links, a message's media `url`, in its answer and in its event) is
// on it whatever Host a client sends. On every engine of the run.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import { loadConfig } from '../../server/config.js';
import { engines, startTestApp, type TestApp } from './harness.js';
import type { SchemaConnection, SchemaMedia, SchemaMessage } from '../../generated/api.js';
import type { SchemaSandboxInboundResult } from '../../generated/admin-api.js';
import { firstMedia } from './http-helpers.js';

const TOKEN = 'admin-token-for-base-url-tests-0123456789';
const PUBLIC = 'https://api.example.com';
const FORGED = 'attacker.example';

describe('configuration in production', () => {
  const production = {
    APP_ENV: 'production',
    DATABASE_URL: 'postgres://db/x',
    ADMIN_TOKEN: TOKEN,
    CHANNEL_CREDENTIALS_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
  };

  it('refuses to start without PUBLIC_BASE_URL, and takes an http(s) one', () => {
    expect(() => loadConfig(production)).toThrow(/PUBLIC_BASE_URL: required when APP_ENV=production/);
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: 'ftp://files.example.com' })).toThrow(/PUBLIC_BASE_URL/);
    expect(loadConfig({ ...production, PUBLIC_BASE_URL: PUBLIC }).publicBaseUrl).toBe(PUBLIC);
  });
});

/** A request with the Host header given (fetch sets its own). */
function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const url = new URL(path, baseUrl);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: url.pathname,
        headers: { ...headers, ...(payload ? { 'Content-Type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => ok({ status: res.statusCode!, body: text ? (JSON.parse(text) as unknown) : undefined }));
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}

describe.each(engines)('links in production on %s, whatever the Host header', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, {
      env: {
        APP_ENV: 'production',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused',
        ADMIN_TOKEN: TOKEN,
        PUBLIC_BASE_URL: PUBLIC,
        CHANNEL_CREDENTIALS_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
        SANDBOX_ENABLED: 'true',
      },
    });
  });
  afterAll(async () => t?.close());

  it('are on PUBLIC_BASE_URL: upload links, media urls of messages and of their stored events', async () => {
    const me = await t.account();
    const forged = { Host: FORGED, 'X-Forwarded-Host': FORGED };
    const asKey = { ...forged, Authorization: `Bearer ${me.apiKey}` };
    const asAdmin = { ...forged, Authorization: `Bearer ${TOKEN}` };

    const media = await send(t.baseUrl, 'POST', '/v1/media', asKey, { content_type: 'image/png' });
    expect(media.status).toBe(201);
    expect((media.body as SchemaMedia).upload_url).toMatch(new RegExp(`^${PUBLIC}/media-upload/`));

    const connection = await send(t.baseUrl, 'POST', `${ADMIN_PREFIX}/accounts/${me.accountId}/connections`, asAdmin, {
      channel: 'instagram',
      name: 'Loja IG',
      username: 'loja.base.url',
    });
    expect(connection.status).toBe(201);
    const { id: connectionId } = connection.body as SchemaConnection;
    const inbound = await send(
      t.baseUrl,
      'POST',
      `${ADMIN_PREFIX}/sandbox/connections/${connectionId}/inbound`,
      asAdmin,
      {
        from: { instagram_id: '17841400000000042', username: 'ana.souza', name: 'Ana Souza' },
        attachment: { type: 'image', content_type: 'image/jpeg', size: 2048 },
      },
    );
    expect(inbound.status).toBe(201);
    const { message } = inbound.body as SchemaSandboxInboundResult;
    const url = `${PUBLIC}/v1/media/${firstMedia(message).media_id}/content`;
    expect(firstMedia(message).url).toBe(url);

    const read = await send(t.baseUrl, 'GET', `/v1/messages/${message.id}`, asKey);
    expect(firstMedia(read.body as SchemaMessage).url).toBe(url);

    const event = await t.database.db
      .selectFrom('events')
      .select('data')
      .where('account_id', '=', me.accountId)
      .where('type', '=', 'message.received')
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(event.data)).toContain(url);
    expect(JSON.stringify(event.data)).not.toContain(FORGED);
  });
});
