// The WhatsApp Cloud provider (issue 35, section 4; server/channels/whatsapp-cloud/provider.ts) and the Graph API
// client under it, through real HTTP against a tiny loopback server in this file: an accepted send, a code of each
// row of Meta's error table, the answers that leave the outcome open (5xx, not JSON, 2xx without an id, a timeout,
// a reset after the request was written), a refused connection (sent again once), media uploaded then sent by id,
// the read receipt, and a contact's media fetched in two steps with the bearer token.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GraphClient, graphErrorOf, type GraphRequest, type GraphSettings } from '../server/channels/graph/client.js';
import type {
  ChannelConnection,
  ChannelDelivery,
  ChannelProvider,
  OutboundContent,
} from '../server/channels/provider.js';
import { ProviderRegistry } from '../server/channels/registry.js';
import {
  WhatsAppCloudProvider,
  type OutboundMediaSource,
  type WhatsAppCloudCredentials,
} from '../server/channels/whatsapp-cloud/provider.js';

const TOKEN = 'EAAG-secret-token-do-not-log-1234';
const PNID = '106540352242922';
const IMAGE = '7a0c7f4e-0000-4000-8000-000000000001';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

interface Recorded {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}
type Handler = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void;

let server: http.Server;
let base: string;
let recorded: Recorded[] = [];
let handle: Handler = (_req, _body, res) => res.end();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      recorded.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body,
      });
      handle(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${(address satisfies AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const json = (res: http.ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
};
const metaError = (code: number, message = `Meta says ${code}`) => ({
  error: { message, type: 'OAuthException', code, error_subcode: 2494010, fbtrace_id: 'AbCdEf123' },
});
const sent = (id = 'wamid.HBgLNTUxMTk5OTk5MDAwMRUCABEYEjQ') => ({
  messaging_product: 'whatsapp',
  contacts: [{ input: '5511999990001', wa_id: '5511999990001' }],
  messages: [{ id }],
});

/** A Graph client that counts its calls (a refused connection is sent again once, and only that). */
class CountingGraph extends GraphClient {
  calls = 0;
  override call(request: GraphRequest) {
    this.calls += 1;
    return super.call(request);
  }
}

let logLines: string[] = [];
let graphs: GraphClient[] = [];
let credentials: { phoneNumberId: string; accessToken: string } | undefined;

function providerOn(baseUrl: string, settings: Partial<GraphSettings> = {}) {
  const graph = new CountingGraph({ baseUrl, version: 'v23.0', ...settings });
  graphs.push(graph);
  const creds: WhatsAppCloudCredentials = { credentialsFor: () => Promise.resolve(credentials) };
  const media: OutboundMediaSource = {
    read: (_accountId, mediaId) =>
      mediaId === IMAGE
        ? Promise.resolve({ bytes: PNG, contentType: 'image/png', filename: 'photo.png' })
        : Promise.reject(new Error('no such media')),
  };
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  return { graph, provider: new WhatsAppCloudProvider<null>({ graph, credentials: creds, media, logger }) };
}

const connection: ChannelConnection = {
  id: 'conn-1',
  accountId: 'acct-1',
  channel: 'whatsapp',
  provider: 'whatsapp_cloud',
  phone: '+5511988887777',
  username: null,
};
const textContent: OutboundContent = { text: 'Oi!', attachments: [], template: null, form: 'text' };
const delivery = (
  content: OutboundContent = textContent,
  phone: string | null = '+5511999990001',
): ChannelDelivery => ({
  connection,
  recipient: { channel: 'whatsapp', phone },
  content,
  replyTo: null,
});
const now = new Date('2026-12-01T12:00:00Z');

beforeEach(() => {
  recorded = [];
  logLines = [];
  credentials = { phoneNumberId: PNID, accessToken: TOKEN };
});
afterEach(() => {
  for (const graph of graphs) graph.close();
  graphs = [];
  server.closeAllConnections();
  // The token never reaches a log line.
  expect(logLines.join('\n')).not.toContain(TOKEN);
});

describe('WhatsApp Cloud: deliver', () => {
  it('accepted: messages[0].id is the provider id; the request is Meta’s, with the bearer token', async () => {
    handle = (_req, _body, res) => json(res, 200, sent('wamid.OK1'));
    const { provider } = providerOn(base);
    expect(await provider.deliver(null, delivery(), now)).toEqual({
      outcome: 'accepted',
      providerMessageId: 'wamid.OK1',
    });
    expect(recorded).toHaveLength(1);
    const [request] = recorded;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`/v23.0/${PNID}/messages`);
    expect(request?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.contentType).toBe('application/json');
    expect(JSON.parse(request?.body.toString() ?? '')).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511999990001',
      type: 'text',
      text: { preview_url: false, body: 'Oi!' },
    });
  });

  it.each([
    [131047, 400, { outcome: 'window_closed' }],
    [131026, 400, { outcome: 'recipient_unavailable' }],
    [130429, 429, { outcome: 'provider_throttled' }],
    [131056, 400, { outcome: 'provider_throttled' }],
    [80007, 400, { outcome: 'provider_throttled' }],
    [4, 400, { outcome: 'provider_throttled' }],
    [
      132000,
      400,
      { outcome: 'template_refused', code: 'template_variables_mismatch', resync: false, providerCode: '132000' },
    ],
    [132001, 404, { outcome: 'template_refused', code: 'template_not_found', resync: true, providerCode: '132001' }],
    [
      132015,
      400,
      { outcome: 'template_refused', code: 'template_not_approved', resync: false, providerCode: '132015' },
    ],
    [
      132016,
      400,
      { outcome: 'template_refused', code: 'template_not_approved', resync: false, providerCode: '132016' },
    ],
    [190, 401, { outcome: 'authorization_lost' }],
    [0, 401, { outcome: 'authorization_lost' }],
    [10, 403, { outcome: 'authorization_lost' }],
    [200, 403, { outcome: 'authorization_lost' }],
    [131049, 400, { outcome: 'provider_rejected', providerMessage: 'Meta says 131049', providerCode: '131049' }],
    [131050, 400, { outcome: 'provider_rejected', providerMessage: 'Meta says 131050', providerCode: '131050' }],
    [368, 400, { outcome: 'provider_rejected', providerMessage: 'Meta says 368', providerCode: '368' }],
  ] as const)('Meta code %i (HTTP %i) through the real HTTP path', async (code, status, outcome) => {
    handle = (_req, _body, res) => json(res, status, metaError(code));
    const { provider, graph } = providerOn(base);
    expect(await provider.deliver(null, delivery(), now)).toEqual(outcome);
    expect(graph.calls).toBe(1);
    // Only our encoder's defects are logged at error.
    expect(logLines.filter((line) => line.includes('"level":50'))).toEqual([]);
  });

  it.each([100, 131008, 131009, 131051])(
    "Meta code %i: provider_rejected and an error log line with Meta's message (our encoder's defect)",
    async (code) => {
      handle = (_req, _body, res) => json(res, 400, metaError(code, `(#${code}) Invalid parameter`));
      const { provider } = providerOn(base);
      expect(await provider.deliver(null, delivery(), now)).toEqual({
        outcome: 'provider_rejected',
        providerMessage: `(#${code}) Invalid parameter`,
        providerCode: String(code),
      });
      const errors = logLines.map((line) => JSON.parse(line)).filter((line) => line.level === 50);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        connection_id: 'conn-1',
        provider_code: String(code),
        provider_message: `(#${code}) Invalid parameter`,
        fbtrace_id: 'AbCdEf123',
      });
    },
  );

  const unknown = { outcome: 'outcome_unknown', providerAccepted: false, providerMessageId: null };

  it.each([
    ['HTTP 500 with an error body', (res: http.ServerResponse) => json(res, 500, metaError(131000))],
    ['HTTP 503 not JSON', (res: http.ServerResponse) => res.writeHead(503).end('<html>busy</html>')],
    ['HTTP 200 not JSON', (res: http.ServerResponse) => res.writeHead(200).end('ok')],
    ['HTTP 400 not JSON', (res: http.ServerResponse) => res.writeHead(400).end('Bad Request')],
    [
      'HTTP 200 without messages[0].id',
      (res: http.ServerResponse) => json(res, 200, { messaging_product: 'whatsapp' }),
    ],
    ['HTTP 200 with an empty id', (res: http.ServerResponse) => json(res, 200, { messages: [{ id: '' }] })],
  ])('%s: outcome_unknown, provider_accepted false, not sent again', async (_, answer) => {
    handle = (_req, _body, res) => answer(res);
    const { provider, graph } = providerOn(base);
    expect(await provider.deliver(null, delivery(), now)).toEqual(unknown);
    expect(graph.calls).toBe(1);
    expect(recorded).toHaveLength(1);
  });

  it('an answer past the JSON bound is outcome_unknown', async () => {
    handle = (_req, _body, res) => json(res, 200, { ...sent(), padding: 'x'.repeat(4096) });
    const { provider } = providerOn(base, { jsonBodyLimit: 1024 });
    expect(await provider.deliver(null, delivery(), now)).toEqual(unknown);
  });

  it('a delay past the total timeout: outcome_unknown, not sent again', async () => {
    handle = (_req, _body, res) => {
      const timer = setTimeout(() => json(res, 200, sent()), 2_000);
      res.on('close', () => clearTimeout(timer));
    };
    const { provider, graph } = providerOn(base, { totalTimeoutMs: 300 });
    const started = Date.now();
    expect(await provider.deliver(null, delivery(), now)).toEqual(unknown);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(graph.calls).toBe(1);
    expect(recorded).toHaveLength(1);
  });

  it('a reset after the request was written: outcome_unknown, not sent again', async () => {
    handle = (req) => req.socket.destroy();
    const { provider, graph } = providerOn(base);
    expect(await provider.deliver(null, delivery(), now)).toEqual(unknown);
    expect(graph.calls).toBe(1);
    expect(recorded).toHaveLength(1);
  });

  it('a reset in the middle of the answer: outcome_unknown', async () => {
    handle = (req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '500' });
      res.write('{"messages":[{"id":"wamid.');
      setTimeout(() => req.socket.destroy(), 20);
    };
    const { provider } = providerOn(base);
    expect(await provider.deliver(null, delivery(), now)).toEqual(unknown);
  });

  it('a refused connection (nothing written) is sent again once, then outcome_unknown', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = closed.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { provider, graph } = providerOn(`http://127.0.0.1:${address.port}`);
    expect(await provider.deliver(null, delivery(), now)).toEqual(unknown);
    expect(graph.calls).toBe(2);
  });

  it('a contact without a number: recipient_unavailable, nothing sent', async () => {
    const { provider, graph } = providerOn(base);
    expect(await provider.deliver(null, delivery(textContent, null), now)).toEqual({
      outcome: 'recipient_unavailable',
    });
    expect(graph.calls).toBe(0);
  });

  it('a connection without credentials: authorization_lost, nothing sent', async () => {
    credentials = undefined;
    const { provider, graph } = providerOn(base);
    expect(await provider.deliver(null, delivery(), now)).toEqual({ outcome: 'authorization_lost' });
    expect(graph.calls).toBe(0);
  });
});

describe('WhatsApp Cloud: media', () => {
  const imageContent: OutboundContent = {
    text: 'A foto',
    attachments: [
      { type: 'image', media_id: IMAGE, content_type: 'image/png', size: PNG.length, filename: null, expires_at: null },
    ],
    template: null,
    form: 'media',
  };

  it('uploads the media first (multipart), then sends it by the id Meta gave', async () => {
    handle = (req, _body, res) =>
      req.url?.endsWith('/media') ? json(res, 200, { id: 'meta-media-77' }) : json(res, 200, sent('wamid.IMG'));
    const { provider } = providerOn(base);
    expect(await provider.deliver(null, delivery(imageContent), now)).toEqual({
      outcome: 'accepted',
      providerMessageId: 'wamid.IMG',
    });
    expect(recorded.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST /v23.0/${PNID}/media`,
      `POST /v23.0/${PNID}/messages`,
    ]);
    const [upload, send] = recorded;
    expect(upload?.authorization).toBe(`Bearer ${TOKEN}`);
    const boundary = /boundary=(\S+)/.exec(upload?.contentType ?? '')?.[1];
    expect(upload?.contentType).toMatch(/^multipart\/form-data; boundary=/);
    const text = upload?.body.toString('latin1') ?? '';
    expect(text).toContain(
      `--${boundary}\r\nContent-Disposition: form-data; name="messaging_product"\r\n\r\nwhatsapp\r\n`,
    );
    expect(text).toContain('Content-Disposition: form-data; name="type"\r\n\r\nimage/png\r\n');
    expect(text).toContain(
      `Content-Disposition: form-data; name="file"; filename="photo.png"\r\nContent-Type: image/png\r\n\r\n${Buffer.from(PNG).toString('latin1')}\r\n--${boundary}--\r\n`,
    );
    expect(JSON.parse(send?.body.toString() ?? '')).toMatchObject({
      type: 'image',
      image: { id: 'meta-media-77', caption: 'A foto' },
    });
  });

  it('an upload Meta refuses ends the send before any message goes', async () => {
    handle = (_req, _body, res) => json(res, 401, metaError(190, 'Error validating access token'));
    const { provider } = providerOn(base);
    expect(await provider.deliver(null, delivery(imageContent), now)).toEqual({ outcome: 'authorization_lost' });
    expect(recorded.map((r) => r.url)).toEqual([`/v23.0/${PNID}/media`]);
  });

  it('an upload answered without an id: outcome_unknown, no message sent', async () => {
    handle = (_req, _body, res) => json(res, 200, {});
    const { provider } = providerOn(base);
    expect(await provider.deliver(null, delivery(imageContent), now)).toEqual({
      outcome: 'outcome_unknown',
      providerAccepted: false,
      providerMessageId: null,
    });
    expect(recorded).toHaveLength(1);
  });
});

describe('WhatsApp Cloud: read receipts and inbound media', () => {
  it('markRead posts Meta’s read body for the wamid', async () => {
    handle = (_req, _body, res) => json(res, 200, { success: true });
    const { provider } = providerOn(base);
    await provider.markRead({ connection, providerMessageId: 'wamid.IN1' });
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.url).toBe(`/v23.0/${PNID}/messages`);
    expect(recorded[0]?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(recorded[0]?.body.toString() ?? '')).toEqual({
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: 'wamid.IN1',
    });
  });

  it('markRead refused: an error that names Meta’s code, never the token', async () => {
    handle = (_req, _body, res) => json(res, 400, metaError(100, 'Invalid parameter'));
    const { provider } = providerOn(base);
    const error: unknown = await provider.markRead({ connection, providerMessageId: 'wamid.IN1' }).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toContain('code 100');
    expect(String(error)).not.toContain(TOKEN);
  });

  it('fetchInboundMedia: GET /{media-id}, then the bytes from its url, both with the bearer token', async () => {
    const bytes = Buffer.from('JPEG-BYTES');
    handle = (req, _body, res) => {
      if (req.url?.startsWith('/v23.0/'))
        return json(res, 200, {
          messaging_product: 'whatsapp',
          url: `${base}/lookaside/whatsapp_business/attachments/?mid=991`,
          mime_type: 'image/jpeg',
          sha256: 'ignored',
          file_size: bytes.length,
          id: '991',
        });
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(bytes);
    };
    const { provider } = providerOn(base);
    const media = await provider.fetchInboundMedia(connection, '991');
    expect(Buffer.from(media.bytes).toString()).toBe('JPEG-BYTES');
    expect(media.contentType).toBe('image/jpeg');
    expect(recorded.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET /v23.0/991?phone_number_id=${PNID}`,
      'GET /lookaside/whatsapp_business/attachments/?mid=991',
    ]);
    expect(recorded.map((r) => r.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  it('fetchInboundMedia: an expired media id is an error (the caller stores the attachment as missing)', async () => {
    handle = (_req, _body, res) => json(res, 404, metaError(100, 'Unsupported get request'));
    const { provider } = providerOn(base);
    await expect(provider.fetchInboundMedia(connection, '992')).rejects.toThrow(/code 100/);
  });

  it('a download reads at most its bound: one byte more is too_large, exactly the bound passes', async () => {
    handle = (req, _body, res) => res.end(Buffer.alloc(req.url === '/eleven' ? 11 : 10, 1));
    const graph = new GraphClient({ baseUrl: base, version: 'v23.0' });
    graphs.push(graph);
    expect(await graph.download({ url: `${base}/eleven`, token: TOKEN, limit: 10 })).toEqual({
      kind: 'too_large',
      limit: 10,
    });
    const exact = await graph.download({ url: `${base}/ten`, token: TOKEN, limit: 10 });
    expect(exact.kind === 'downloaded' && exact.bytes.length).toBe(10);
  });
});

describe('the Graph API client', () => {
  it("reads Meta's error body", async () => {
    handle = (_req, _body, res) =>
      json(res, 400, {
        error: {
          message: '(#131009) Parameter value is not valid',
          type: 'OAuthException',
          code: 131009,
          error_subcode: 2494010,
          error_data: { messaging_product: 'whatsapp', details: 'Button title length invalid' },
          fbtrace_id: 'Az8or2yhqkZfEZ-_4Qn_Bam',
        },
      });
    const graph = new GraphClient({ baseUrl: `${base}/`, version: 'v23.0' });
    graphs.push(graph);
    const answer = await graph.call({ method: 'GET', segments: ['a/b', 'c'], token: TOKEN });
    expect(recorded[0]?.url).toBe('/v23.0/a%2Fb/c');
    expect(answer.kind).toBe('answered');
    expect(answer.kind === 'answered' && graphErrorOf(answer.body)).toEqual({
      message: '(#131009) Parameter value is not valid',
      type: 'OAuthException',
      code: 131009,
      subcode: 2494010,
      details: 'Button title length invalid',
      fbtraceId: 'Az8or2yhqkZfEZ-_4Qn_Bam',
    });
  });
});

describe('the provider registry', () => {
  const answering = (providerMessageId: string, reads: string[]): ChannelProvider<null> => ({
    deliver: () => Promise.resolve({ outcome: 'accepted', providerMessageId }),
    markRead: (message) => {
      reads.push(message.providerMessageId);
      return Promise.resolve();
    },
  });

  it('hands each call to the provider the connection names', async () => {
    const reads: string[] = [];
    const sandbox: ChannelProvider<null> = { deliver: () => Promise.resolve({ outcome: 'provider_throttled' }) };
    const registry = new ProviderRegistry<null>({ sandbox, whatsapp_cloud: answering('wamid.R', reads) });
    expect(await registry.deliver(null, delivery(), now)).toEqual({
      outcome: 'accepted',
      providerMessageId: 'wamid.R',
    });
    const onSandbox = { ...connection, provider: 'sandbox' as const };
    expect(await registry.deliver(null, { ...delivery(), connection: onSandbox }, now)).toEqual({
      outcome: 'provider_throttled',
    });
    // The sandbox has no read receipts: nothing to tell.
    await registry.markRead({ connection: onSandbox, providerMessageId: 'x' });
    await registry.markRead({ connection, providerMessageId: 'wamid.IN' });
    expect(reads).toEqual(['wamid.IN']);
    await expect(registry.fetchInboundMedia(onSandbox, 'm')).rejects.toThrow(/inline/);
  });

  it('a connection naming a provider this process lacks is a wiring fault', async () => {
    const registry = new ProviderRegistry<null>({ sandbox: answering('s', []) });
    await expect(registry.deliver(null, delivery(), now)).rejects.toThrow(/no whatsapp_cloud provider/);
  });
});
