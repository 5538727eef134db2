// The fake Graph API (test/fakes/meta/) itself: the token check, template paging, each of Meta's checks of a
// messages body with its error code, the arranged answers, media upload and download, the webhooks' payloads and
// their signature (verified with node:crypto over the raw bytes received), the control endpoints and
// `npm run fake:meta`. The server's own tests rely on these behaviours; a fake that drifted would let them pass.
import { spawn } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isRecord } from '../server/guards.js';
import { startFakeMeta, type FakeMeta, type FakeNumber, type FakeTemplate } from './fakes/meta/index.js';

const SECRET = 'test-app-secret';
const CONTACT = '+5511987654321';

const template = (name: string, language: string, status: FakeTemplate['status'], text: string): FakeTemplate => ({
  name,
  language,
  status,
  category: 'UTILITY',
  components: [{ type: 'BODY', text }],
});

const A: FakeNumber = {
  phoneNumberId: '1001',
  wabaId: 'W1',
  accessToken: 'token-a',
  displayPhoneNumber: '+1 555-010-0001',
  verifiedName: 'Loja A',
  templates: [
    template('welcome', 'en_US', 'APPROVED', 'Hello {{1}}'),
    template('order_update', 'pt_BR', 'APPROVED', 'Olá {{1}}, pedido {{2}}; {{1}} de novo'),
    template('spring_sale', 'en_US', 'PAUSED', 'Sale'),
    template('old_offer', 'en_US', 'DISABLED', 'Old'),
    template('new_offer', 'en_US', 'PENDING', 'New'),
  ],
};
// Same WABA as A (its template is listed with A's), its own token.
const B: FakeNumber = {
  ...A,
  phoneNumberId: '1002',
  accessToken: 'token-b',
  templates: [template('b_only', 'en_US', 'APPROVED', 'B')],
};
// Another business altogether.
const C: FakeNumber = { ...A, phoneNumberId: '3003', wabaId: 'W3', accessToken: 'token-c', templates: [] };

/** A webhook receiver on loopback: records raw bytes and headers, answers 200. */
interface Received {
  raw: Buffer;
  headers: IncomingHttpHeaders;
}
const received: Received[] = [];
let receiver: Server;
let webhookUrl = '';
let fake: FakeMeta;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ raw: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('EVENT_RECEIVED');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  webhookUrl = `http://127.0.0.1:${isRecord(address) ? String(address.port) : '0'}/channels/whatsapp/webhook`;
  fake = await startFakeMeta({ appSecret: SECRET, webhookUrl, numbers: [A, B, C] });
});

afterAll(async () => {
  await fake.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

beforeEach(() => {
  fake.reset();
  received.length = 0;
});

interface Answer {
  status: number;
  json: Record<string, unknown>;
  text: string;
}

/** A Graph call on the fake: `/v23.0/<path>` with A's token (or `token`; null: none). */
async function graph(
  path: string,
  init: { method?: string; body?: unknown; token?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const token = init.token === undefined ? A.accessToken : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | FormData | undefined;
  if (init.body instanceof FormData) body = init.body;
  else if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  const response = await fetch(`${fake.url}/v23.0/${path}`, { method: init.method ?? 'GET', headers, body });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) json = parsed;
  } catch {
    // not JSON: the test reads `text`
  }
  return { status: response.status, json, text };
}

const send = (body: Record<string, unknown>, from = A) =>
  graph(`${from.phoneNumberId}/messages`, {
    method: 'POST',
    body: { messaging_product: 'whatsapp', to: CONTACT, ...body },
    token: from.accessToken,
  });

/** The `error` of a Graph answer. */
const errorOf = (answer: Answer): Record<string, unknown> => (isRecord(answer.json.error) ? answer.json.error : {});

/** The Graph error answer's shape, as Meta's: type, code, `(#code)` message, error_data and a trace id. */
function expectMetaError(answer: Answer, code: number, status = 400) {
  expect(answer.status).toBe(status);
  const error = errorOf(answer);
  expect(error).toMatchObject({ type: 'OAuthException', code, fbtrace_id: expect.any(String) });
  if (code !== 190) {
    expect(error.message).toMatch(new RegExp(`^\\(#${code}\\) `));
    expect(error.error_data).toEqual({ messaging_product: 'whatsapp', details: expect.any(String) });
  }
  return error;
}

/** The first message id of a send's answer. */
function wamidOf(answer: Answer): string {
  const messages = answer.json.messages;
  const first: unknown = Array.isArray(messages) ? messages[0] : undefined;
  return isRecord(first) && typeof first.id === 'string' ? first.id : '';
}

/** The first change's value of a webhook payload. */
function valueOf(payload: unknown): Record<string, unknown> {
  const entry = isRecord(payload) && Array.isArray(payload.entry) ? payload.entry[0] : undefined;
  const change = isRecord(entry) && Array.isArray(entry.changes) ? entry.changes[0] : undefined;
  return isRecord(change) && isRecord(change.value) ? change.value : {};
}

/** Its first message. */
function messageOf(payload: unknown): Record<string, unknown> {
  const messages = valueOf(payload).messages;
  return Array.isArray(messages) && isRecord(messages[0]) ? messages[0] : {};
}

async function upload(bytes: Buffer, type: string, number = A): Promise<Answer> {
  const form = new FormData();
  form.set('messaging_product', 'whatsapp');
  form.set('type', type);
  form.set('file', new Blob([bytes], { type }), 'photo.jpg');
  return graph(`${number.phoneNumberId}/media`, { method: 'POST', body: form, token: number.accessToken });
}

describe('the token', () => {
  it('answers the number with its token: the fields asked and the id', async () => {
    const answer = await graph('1001?fields=display_phone_number,verified_name');
    expect(answer).toMatchObject({
      status: 200,
      json: { display_phone_number: '+1 555-010-0001', verified_name: 'Loja A', id: '1001' },
    });
    expect(Object.keys(answer.json).sort()).toEqual(['display_phone_number', 'id', 'verified_name']);
    // Meta takes the token as a parameter too.
    expect((await graph(`1001?access_token=${A.accessToken}`, { token: null })).status).toBe(200);
    expect(fake.requests[0]).toMatchObject({
      method: 'GET',
      path: '/v23.0/1001',
      query: { fields: 'display_phone_number,verified_name' },
    });
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer token-a');
  });

  it('refuses a missing or wrong token with 401 and code 190 (OAuthException)', async () => {
    for (const token of [null, 'wrong', '']) {
      const answer = await graph('1001?fields=display_phone_number', { token });
      expectMetaError(answer, 190, 401);
      expect(errorOf(answer).error_data).toBeUndefined();
    }
    expectMetaError(await send({ type: 'text', text: { body: 'hi' } }, { ...A, accessToken: 'wrong' }), 190, 401);
  });

  it("answers another business's token with Meta's unknown object (100, subcode 33) and an unknown field with 100", async () => {
    const answer = await graph('1001', { token: C.accessToken });
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code: 100, error_subcode: 33, type: 'GraphMethodException' });
    expect(errorOf(await graph('999999', { token: A.accessToken }))).toMatchObject({ code: 100, error_subcode: 33 });
    expectMetaError(await graph('1001?fields=display_phone_number,color'), 100);
    expect((await graph('1001/messages', { token: B.accessToken, method: 'POST', body: {} })).status).toBe(400);
  });
});

describe('templates', () => {
  it('pages them (2 by default): a client reads every page by following paging.next', async () => {
    const names: string[] = [];
    let next: string | undefined = `${fake.url}/v23.0/W1/message_templates`;
    let pages = 0;
    while (next) {
      const response = await fetch(next, { headers: { authorization: `Bearer ${A.accessToken}` } });
      const page: unknown = await response.json();
      if (!isRecord(page) || !Array.isArray(page.data) || !isRecord(page.paging)) throw new Error('not a page');
      expect(page.data.length).toBeLessThanOrEqual(2);
      for (const item of page.data) if (isRecord(item) && typeof item.name === 'string') names.push(item.name);
      expect(page.paging.cursors).toEqual({ before: expect.any(String), after: expect.any(String) });
      next = typeof page.paging.next === 'string' ? page.paging.next : undefined;
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(names).toEqual(['welcome', 'order_update', 'spring_sale', 'old_offer', 'new_offer', 'b_only']);
  });

  it('lists each as Meta does, honours limit, after and status, and refuses a cursor it never gave', async () => {
    const all = await graph('W1/message_templates?limit=10');
    expect(all.json.data).toHaveLength(6);
    expect(isRecord(all.json.paging) && all.json.paging.next).toBeFalsy();
    expect(Array.isArray(all.json.data) && all.json.data[0]).toEqual({
      name: 'welcome',
      parameter_format: 'POSITIONAL',
      language: 'en_US',
      status: 'APPROVED',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hello {{1}}' }],
      id: expect.stringMatching(/^\d+$/),
    });
    const first = await graph('W1/message_templates?limit=1');
    const after =
      isRecord(first.json.paging) && isRecord(first.json.paging.cursors) ? String(first.json.paging.cursors.after) : '';
    const second = await graph(`W1/message_templates?limit=1&after=${after}`);
    expect(second.json.data).toMatchObject([{ name: 'order_update' }]);
    const approved = await graph('W1/message_templates?limit=10&status=APPROVED');
    expect(Array.isArray(approved.json.data) && approved.json.data.length).toBe(3);
    expectMetaError(await graph('W1/message_templates?after=bogus'), 100);
    expectMetaError(await graph('W1/message_templates', { token: 'wrong' }), 190, 401);
  });
});

const buttons = (...titles: string[]) =>
  titles.map((title, index) => ({ type: 'reply', reply: { id: `b${index}`, title } }));
const interactiveButtons = (list: unknown[]) => ({
  type: 'interactive',
  interactive: { type: 'button', body: { text: 'Choose' }, action: { buttons: list } },
});
const linkButton = (display_text: string, url?: string) => ({
  type: 'interactive',
  interactive: {
    type: 'cta_url',
    body: { text: 'See' },
    action: { name: 'cta_url', parameters: { display_text, url } },
  },
});
const card = (index: number, action: Record<string, unknown>, type = 'cta_url') => ({
  card_index: index,
  type,
  header: { type: 'image', image: { link: 'https://example.com/a.jpg' } },
  body: { text: `Card ${index}` },
  action,
});
const linkCard = (index: number) =>
  card(index, { name: 'cta_url', parameters: { display_text: 'Buy', url: 'https://example.com' } });
const carousel = (cards: unknown[]) => ({
  type: 'interactive',
  interactive: { type: 'carousel', body: { text: 'Offers' }, action: { cards } },
});
const templateSend = (name: string, language: string, parameters: string[]) => ({
  type: 'template',
  template: {
    name,
    language: { code: language },
    components: [{ type: 'body', parameters: parameters.map((text) => ({ type: 'text', text })) }],
  },
});

const refused: [string, Record<string, unknown>, number][] = [
  ['no messaging_product', { messaging_product: undefined, text: { body: 'x' } }, 100],
  ['another messaging_product', { messaging_product: 'sms', text: { body: 'x' } }, 100],
  ['no recipient', { to: undefined, text: { body: 'x' } }, 131008],
  ['an unknown type', { type: 'hologram', hologram: {} }, 100],
  ['a text without body', { type: 'text', text: {} }, 131008],
  ['a text over 4096 characters', { type: 'text', text: { body: 'x'.repeat(4097) } }, 100],
  ['4 reply buttons', interactiveButtons(buttons('a', 'b', 'c', 'd')), 131009],
  ['no reply button', interactiveButtons([]), 131009],
  ['a button title of 21 characters', interactiveButtons(buttons('x'.repeat(21))), 131009],
  [
    'two buttons with one id',
    interactiveButtons([...buttons('a'), { type: 'reply', reply: { id: 'b0', title: 'b' } }]),
    131009,
  ],
  [
    'two buttons with one title',
    interactiveButtons([...buttons('a'), { type: 'reply', reply: { id: 'z', title: 'a' } }]),
    131009,
  ],
  [
    'interactive without body',
    { type: 'interactive', interactive: { type: 'button', action: { buttons: buttons('a') } } },
    131008,
  ],
  ['a link button text of 21 characters', linkButton('x'.repeat(21), 'https://example.com'), 131009],
  ['a link button without url', linkButton('Open'), 131009],
  ['a link button to a non-http url', linkButton('Open', 'javascript:alert(1)'), 131009],
  ['a carousel of 1 card', carousel([linkCard(0)]), 131009],
  ['a carousel of 11 cards', carousel(Array.from({ length: 11 }, (_, i) => linkCard(i))), 131009],
  ['a carousel with cards out of order', carousel([linkCard(1), linkCard(0)]), 131009],
  [
    'a carousel mixing button kinds',
    carousel([
      linkCard(0),
      card(1, { buttons: [{ type: 'quick_reply', quick_reply: { id: 'q', title: 'Q' } }] }, 'button'),
    ]),
    131009,
  ],
  ['an unknown template', templateSend('nope', 'en_US', []), 132001],
  ['a template in a language it lacks', templateSend('welcome', 'pt_BR', ['Ana']), 132001],
  ['a paused template', templateSend('spring_sale', 'en_US', []), 132015],
  ['a pending template', templateSend('new_offer', 'en_US', []), 132015],
  ['a disabled template', templateSend('old_offer', 'en_US', []), 132016],
  ['a template with too few parameters', templateSend('order_update', 'pt_BR', ['Ana']), 132000],
  ['a template with too many parameters', templateSend('welcome', 'en_US', ['Ana', 'extra']), 132000],
  ['a template parameter without text', templateSend('welcome', 'en_US', ['']), 131008],
  ['an image id never uploaded', { type: 'image', image: { id: '123456789' } }, 100],
  ['an image with neither id nor link', { type: 'image', image: { caption: 'x' } }, 131008],
  ['an audio with a caption', { type: 'audio', audio: { link: 'https://example.com/a.ogg', caption: 'x' } }, 131009],
  ['a reply context without message id', { type: 'text', text: { body: 'x' }, context: {} }, 131009],
];

const named = refused.map(([name, body, code]): [string, Record<string, unknown>, number] => [
  `${name}: 400, code ${code}`,
  body,
  code,
]);

describe("Meta's checks of a messages body: what it refuses", () => {
  it.each(named)('refuses %s', async (_name, body, code) => {
    expectMetaError(await send(body), code);
    expect(fake.sent).toEqual([]);
  });

  it("counts a template's distinct placeholders (Olá {{1}}, pedido {{2}}; {{1}} again: 2)", async () => {
    expect((await send(templateSend('order_update', 'pt_BR', ['Ana', '123']))).status).toBe(200);
  });

  it("refuses media uploaded to another number (the id is that number's)", async () => {
    const id = String((await upload(Buffer.from('jpeg'), 'image/jpeg', B)).json.id);
    expectMetaError(await send({ type: 'image', image: { id } }), 100);
    expect((await send({ type: 'image', image: { id } }, B)).status).toBe(200);
  });
});

describe("Meta's checks of a messages body: what it accepts", () => {
  it("accepts Meta's forms at their limits and answers contacts and a wamid", async () => {
    const image = String((await upload(Buffer.from('jpeg-bytes'), 'image/jpeg')).json.id);
    const quick = (i: number) =>
      card(i, { buttons: [{ type: 'quick_reply', quick_reply: { id: `q${i}`, title: 'Quero' } }] }, 'button');
    const accepted = [
      { type: 'text', text: { body: 'Olá', preview_url: false } },
      { text: { body: 'type defaults to text' } },
      { type: 'text', text: { body: 'a reply' }, context: { message_id: 'wamid.abc' } },
      { type: 'text', text: { body: 'Chatwoot sends a null context' }, context: null },
      interactiveButtons(buttons('1'.repeat(20), 'Não 😮', 'c')),
      linkButton('y'.repeat(20), 'https://example.com/track?id=1'),
      carousel(Array.from({ length: 10 }, (_, i) => linkCard(i))),
      carousel([quick(0), { ...quick(1), header: { type: 'image', image: { id: image } } }]),
      templateSend('welcome', 'en_US', ['Ana']),
      { type: 'image', image: { id: image, caption: 'Foto' } },
      { type: 'document', document: { link: 'https://example.com/a.pdf', filename: 'a.pdf', caption: 'PDF' } },
      { type: 'sticker', sticker: { id: image } },
    ];
    for (const body of accepted) {
      const answer = await send(body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      expect(answer.json).toMatchObject({
        messaging_product: 'whatsapp',
        contacts: [{ input: CONTACT, wa_id: '5511987654321' }],
      });
      expect(wamidOf(answer)).toMatch(/^wamid\.[A-Za-z0-9+/]+=*$/);
    }
    expect(fake.sent.map((m) => m.type)).toEqual(accepted.map((b) => b.type ?? 'text'));
    expect(new Set(fake.sent.map((m) => m.id)).size).toBe(accepted.length);
    expect(fake.requestsTo('/messages', 'POST')[0]?.body).toMatchObject({ messaging_product: 'whatsapp', to: CONTACT });
  });

  it('accepts a read receipt ({status: read, message_id}) with {success: true} and refuses one without id', async () => {
    const answer = await graph('1001/messages', {
      method: 'POST',
      body: { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.in1' },
    });
    expect(answer).toMatchObject({ status: 200, json: { success: true } });
    expect(fake.reads).toMatchObject([{ phoneNumberId: '1001', messageId: 'wamid.in1' }]);
    const bad = await graph('1001/messages', {
      method: 'POST',
      body: { messaging_product: 'whatsapp', status: 'read' },
    });
    expectMetaError(bad, 131008);
  });

  it('answers a body that is not JSON as Meta does (100) and a body past the bound with 413', async () => {
    const response = await fetch(`${fake.url}/v23.0/1001/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${A.accessToken}`, 'content-type': 'application/json' },
      body: '{"messaging_product":',
    });
    expect(response.status).toBe(400);
    const small = await startFakeMeta({ numbers: [A], maxBodyBytes: 1024 });
    try {
      const big = await fetch(`${small.url}/v23.0/1001/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${A.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messaging_product: 'whatsapp', to: CONTACT, text: { body: 'x'.repeat(2000) } }),
      });
      expect(big.status).toBe(413);
    } finally {
      await small.close();
    }
  });
});

const text = { type: 'text', text: { body: 'hi' } };

describe('arranged answers: Meta errors and HTTP answers', () => {
  it("answers a recipient's arranged Meta errors in order, then the usual answer", async () => {
    fake.script(CONTACT, { kind: 'error', code: 131047 });
    fake.script('5511987654321', { kind: 'error', code: 131026, message: 'custom', status: 400 });
    const first = await send(text);
    const error = expectMetaError(first, 131047);
    expect(error.message).toBe('(#131047) Re-engagement message');
    expect(isRecord(error.error_data) && error.error_data.details).toMatch(/24 hours/);
    expect(errorOf(await send(text))).toMatchObject({ code: 131026, message: 'custom' });
    expect((await send(text)).status).toBe(200);
    // Another recipient was never affected.
    fake.script(CONTACT, { kind: 'error', code: 131047 });
    expect((await send({ ...text, to: '+5511900000000' })).status).toBe(200);
  });

  it('keeps a sticky answer until the scripts are cleared; 190 answers 401, 10 and 200 answer 403', async () => {
    fake.script(CONTACT, { kind: 'error', code: 130429 }, { sticky: true });
    expectMetaError(await send(text), 130429);
    expectMetaError(await send(text), 130429);
    fake.clearScripts();
    expect((await send(text)).status).toBe(200);
    fake.script(CONTACT, { kind: 'error', code: 190 });
    fake.script(CONTACT, { kind: 'error', code: 10 });
    fake.script(CONTACT, { kind: 'error', code: 200 });
    expect((await send(text)).status).toBe(401);
    expect((await send(text)).status).toBe(403);
    expect((await send(text)).status).toBe(403);
  });

  it('answers an HTTP 500, a 200 that is not JSON, and a 200 without messages[0].id, accepting nothing', async () => {
    fake.script(CONTACT, { kind: 'http', status: 500, body: 'Internal Server Error' });
    fake.script(CONTACT, { kind: 'http', status: 200, body: '<html>oops</html>' });
    fake.script(CONTACT, { kind: 'no_message_id' });
    expect(await send(text)).toMatchObject({ status: 500, text: 'Internal Server Error' });
    const notJson = await send(text);
    expect(notJson).toMatchObject({ status: 200, text: '<html>oops</html>', json: {} });
    const empty = await send(text);
    expect(empty.status).toBe(200);
    expect(wamidOf(empty)).toBe('');
    expect(fake.sent).toEqual([]);
  });
});

describe('arranged answers: delays', () => {
  it('delays past a timeout, then answers', async () => {
    fake.script(CONTACT, { kind: 'delay', ms: 400 });
    const started = Date.now();
    const call = fetch(`${fake.url}/v23.0/1001/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${A.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messaging_product: 'whatsapp', to: CONTACT, ...text }),
      signal: AbortSignal.timeout(100),
    });
    await expect(call).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(400);
    await fake.idle();
    // The delayed answer was given (Meta took the message: the outcome is unknown to a client that gave up).
    expect(fake.sent).toHaveLength(1);
    fake.script(CONTACT, { kind: 'delay', ms: 50, then: { kind: 'error', code: 131026 } });
    expectMetaError(await send(text), 131026);
  });
});

describe('arranged answers: the network, and failures after the answer', () => {
  it('resets the connection after reading the request: in the middle of the answer, or before any byte', async () => {
    fake.script(CONTACT, { kind: 'reset' });
    fake.script(CONTACT, { kind: 'reset', midAnswer: false });
    await expect(send(text)).rejects.toThrow();
    await expect(send(text)).rejects.toThrow();
    // Both requests were read whole before the reset.
    expect(fake.requestsTo('/messages')).toHaveLength(2);
    expect(fake.requestsTo('/messages').every((r) => isRecord(r.body) && r.body.to === CONTACT)).toBe(true);
    expect((await send(text)).status).toBe(200);
  });

  it('accepts, then fails later: a signed failed status with errors[0] for the wamid it answered', async () => {
    fake.script(CONTACT, { kind: 'fail_later', code: 131049, details: 'ecosystem' });
    const answer = await send(text);
    expect(answer.status).toBe(200);
    await fake.idle();
    expect(received).toHaveLength(1);
    const payload: unknown = JSON.parse(received[0]?.raw.toString('utf8') ?? '');
    expect(payload).toMatchObject({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'W1',
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { display_phone_number: '15550100001', phone_number_id: '1001' },
                statuses: [
                  {
                    id: wamidOf(answer),
                    status: 'failed',
                    recipient_id: '5511987654321',
                    errors: [
                      {
                        code: 131049,
                        title: expect.any(String),
                        message: expect.any(String),
                        error_data: { details: 'ecosystem' },
                      },
                    ],
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    expect(fake.deliveries[0]?.result).toEqual({ status: 200, body: 'EVENT_RECEIVED' });
  });

  it('answers an arranged error on a path (error 10 reading the number), once', async () => {
    fake.scriptPath('1001', { kind: 'error', code: 10 });
    expectMetaError(await graph('1001?fields=display_phone_number'), 10, 403);
    expect((await graph('1001?fields=display_phone_number')).status).toBe(200);
    fake.scriptPath('/W1/message_templates/', { kind: 'http', status: 502, body: 'Bad Gateway' });
    expect((await graph('W1/message_templates')).status).toBe(502);
  });
});

describe('media', () => {
  it('takes an upload (multipart) and serves it back through the short-lived URL, to the owner token only', async () => {
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const uploaded = await upload(bytes, 'image/jpeg');
    expect(uploaded).toMatchObject({ status: 200, json: { id: expect.stringMatching(/^\d{15,16}$/) } });
    const id = String(uploaded.json.id);
    expect(fake.requestsTo('/1001/media')[0]?.body).toEqual({
      fields: { messaging_product: 'whatsapp', type: 'image/jpeg' },
      file: { name: 'photo.jpg', type: 'image/jpeg', size: bytes.length },
    });
    const described = await graph(id);
    expect(described.json).toEqual({
      messaging_product: 'whatsapp',
      url: expect.stringContaining(`${fake.url}/whatsapp_business/attachments/?mid=${id}`),
      mime_type: 'image/jpeg',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      file_size: bytes.length,
      id,
    });
    const url = String(described.json.url);
    const withToken = await fetch(url, { headers: { authorization: `Bearer ${A.accessToken}` } });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await withToken.arrayBuffer())).toEqual(bytes);
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${C.accessToken}` } })).status).toBe(401);
    expect(
      (await fetch(url.replace(/hash=[^&]+/, 'hash=forged'), { headers: { authorization: `Bearer ${A.accessToken}` } }))
        .status,
    ).toBe(404);
    expect(errorOf(await graph(id, { token: C.accessToken }))).toMatchObject({ code: 100, error_subcode: 33 });
    expect((await graph(id, { method: 'DELETE' })).json).toEqual({ success: true });
    expect(errorOf(await graph(id))).toMatchObject({ code: 100 });
  });

  it('serves what a test registered as a contact’s media (the id a webhook carries)', async () => {
    const id = fake.registerMedia({ bytes: Buffer.from('voice'), mimeType: 'audio/ogg' });
    const described = await graph(id);
    expect(described.json).toMatchObject({ id, mime_type: 'audio/ogg', file_size: 5 });
    const bytes = await fetch(String(described.json.url), { headers: { authorization: `Bearer ${A.accessToken}` } });
    expect(await bytes.text()).toBe('voice');
  });

  it('refuses an upload without file, of another product, or of a type WhatsApp does not take', async () => {
    expectMetaError(await upload(Buffer.from('GIF89a'), 'image/gif'), 131053);
    const noFile = new FormData();
    noFile.set('messaging_product', 'whatsapp');
    expectMetaError(await graph('1001/media', { method: 'POST', body: noFile }), 100);
    const other = new FormData();
    other.set('messaging_product', 'sms');
    other.set('file', new Blob([Buffer.from('x')], { type: 'image/png' }), 'x.png');
    expectMetaError(await graph('1001/media', { method: 'POST', body: other }), 100);
  });
});

const w = () => fake.webhooks;

describe('webhook payloads', () => {
  it("builds Meta's inbound text exactly", () => {
    const payload = w().text(A, {
      from: '+55 11 98765-4321',
      name: 'Ana',
      text: 'Oi',
      id: 'wamid.in1',
      timestamp: 1749416383,
    });
    expect(payload).toEqual({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'W1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550100001', phone_number_id: '1001' },
                contacts: [{ profile: { name: 'Ana' }, wa_id: '5511987654321' }],
                messages: [
                  {
                    from: '5511987654321',
                    id: 'wamid.in1',
                    timestamp: '1749416383',
                    type: 'text',
                    text: { body: 'Oi' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
  });
});

describe('webhook payloads: every inbound kind', () => {
  it('builds every inbound kind with its content and, for a tap, the context of our message', () => {
    const from = { from: CONTACT, name: 'Ana' };
    const context = { from: '15550100001', id: 'wamid.ours' };
    expect(
      messageOf(w().buttonReply(A, { ...from, buttonId: 'yes', title: 'Sim', contextId: 'wamid.ours' })),
    ).toMatchObject({
      context,
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'yes', title: 'Sim' } },
    });
    expect(
      messageOf(w().listReply(A, { ...from, rowId: 'r1', title: 'Row', description: 'd', contextId: 'wamid.ours' })),
    ).toMatchObject({
      context,
      interactive: { type: 'list_reply', list_reply: { id: 'r1', title: 'Row', description: 'd' } },
    });
    expect(
      messageOf(w().templateButton(A, { ...from, payload: 'STOP', text: 'Parar', contextId: 'wamid.ours' })),
    ).toMatchObject({
      context,
      type: 'button',
      button: { payload: 'STOP', text: 'Parar' },
    });
    for (const kind of ['image', 'video', 'audio', 'document', 'sticker'] as const) {
      const caption = kind === 'audio' || kind === 'sticker' ? undefined : 'Legenda';
      const message = messageOf(
        w().media(A, {
          ...from,
          kind,
          mediaId: '42',
          mimeType: 'x/y',
          caption,
          filename: kind === 'document' ? 'a.pdf' : undefined,
        }),
      );
      expect(message).toMatchObject({ type: kind, [kind]: { id: '42', mime_type: 'x/y', sha256: expect.any(String) } });
      expect(isRecord(message[kind]) ? message[kind].caption : 'no content').toBe(caption);
    }
    expect(messageOf(w().unsupported(A, from))).toMatchObject({ type: 'unsupported', errors: [{ code: 131051 }] });
    expect(messageOf(w().unsupported(A, { ...from, type: 'poll' }))).toMatchObject({ type: 'poll' });
    expect(messageOf(w().reaction(A, { ...from, messageId: 'wamid.ours', emoji: '👍' }))).toMatchObject({
      type: 'reaction',
      reaction: { message_id: 'wamid.ours', emoji: '👍' },
    });
    expect(messageOf(w().text(A, { ...from, text: 'x' })).id).toMatch(/^wamid\./);
  });
});

describe('webhook payloads: statuses', () => {
  it('builds statuses: sent, delivered, read with conversation and pricing; failed with errors[0]', () => {
    for (const status of ['sent', 'delivered', 'read'] as const) {
      const value = valueOf(w().status(A, { messageId: 'wamid.ours', recipient: CONTACT, status }));
      expect(value.statuses).toMatchObject([
        { id: 'wamid.ours', status, recipient_id: '5511987654321', conversation: {}, pricing: {} },
      ]);
      expect(value.contacts).toBeUndefined();
    }
    const failed = valueOf(
      w().status(A, { messageId: 'wamid.ours', recipient: CONTACT, status: 'failed', error: { code: 131026 } }),
    );
    expect(failed.statuses).toMatchObject([
      {
        status: 'failed',
        errors: [
          {
            code: 131026,
            title: 'Message undeliverable',
            message: 'Message undeliverable',
            error_data: { details: expect.any(String) },
          },
        ],
      },
    ]);
    const both = w().batch(w().text(A, { from: CONTACT, text: 'a' }), w().text(B, { from: CONTACT, text: 'b' }));
    expect(both.entry).toHaveLength(2);
  });
});

describe('signed webhooks', () => {
  it('sends a payload as Meta writes it, signed over the raw bytes (X-Hub-Signature-256) with the app secret', async () => {
    const payload = fake.webhooks.text(A, { from: CONTACT, name: 'José', text: 'Olá 😮 a/b' });
    const result = await fake.sendWebhook(payload);
    expect(result).toEqual({ status: 200, body: 'EVENT_RECEIVED' });
    const got = received[0];
    if (!got) throw new Error('nothing received');
    const raw = got.raw.toString('utf8');
    // Meta escapes non-ASCII and slashes: a receiver that re-serializes before checking gets another signature.
    expect(raw).toContain('Ol\\u00e1 \\ud83d\\ude2e a\\/b');
    expect(raw).not.toContain('á');
    expect(JSON.parse(raw)).toEqual(payload);
    const expected = `sha256=${createHmac('sha256', SECRET).update(got.raw).digest('hex')}`;
    expect(got.headers['x-hub-signature-256']).toBe(expected);
    expect(fake.sign(got.raw)).toBe(expected);
    expect(got.headers['content-type']).toBe('application/json');
    expect(createHmac('sha256', SECRET).update(JSON.stringify(payload)).digest('hex')).not.toBe(expected.slice(7));
  });

  it('sends raw bytes unsigned, wrongly signed, or signed under another secret (bad input for the server)', async () => {
    await fake.sendRawWebhook('{"object":', { signature: null });
    await fake.sendRawWebhook('{}', { signature: 'sha256=00' });
    await fake.sendRawWebhook('{}', { secret: 'other' });
    expect(received.map((r) => r.headers['x-hub-signature-256'])).toEqual([
      undefined,
      'sha256=00',
      `sha256=${createHmac('sha256', 'other').update('{}').digest('hex')}`,
    ]);
    expect(received[0]?.raw.toString()).toBe('{"object":');
  });

  it('sends the statuses asked for after every accepted message (statusesAfterSend)', async () => {
    const other = await startFakeMeta({
      appSecret: SECRET,
      webhookUrl,
      numbers: [A],
      statusesAfterSend: ['sent', 'delivered'],
    });
    try {
      const response = await fetch(`${other.url}/v23.0/1001/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${A.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messaging_product: 'whatsapp', to: CONTACT, text: { body: 'x' } }),
      });
      expect(response.status).toBe(200);
      await other.idle();
      const statuses = received.map((r) => valueOf(JSON.parse(r.raw.toString())).statuses);
      expect(statuses).toMatchObject([
        [{ id: other.sent[0]?.id, status: 'sent' }],
        [{ id: other.sent[0]?.id, status: 'delivered' }],
      ]);
    } finally {
      await other.close();
    }
  });
});

describe('the control endpoints (/_fake/…)', () => {
  const control = async (path: string, body?: unknown) => {
    const response = await fetch(`${fake.url}/_fake/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json: unknown = await response.json();
    return { status: response.status, json: isRecord(json) ? json : {} };
  };

  it('sends a signed inbound text to the server and answers what the server said', async () => {
    const answer = await control('inbound', { from: CONTACT, name: 'Ana', text: 'Oi!' });
    expect(answer.status).toBe(200);
    expect(answer.json.webhook).toEqual({ status: 200, body: 'EVENT_RECEIVED' });
    const got = received[0];
    expect(got?.headers['x-hub-signature-256']).toBe(
      `sha256=${createHmac('sha256', SECRET)
        .update(got?.raw ?? '')
        .digest('hex')}`,
    );
    expect(messageOf(JSON.parse(got?.raw.toString() ?? '{}'))).toMatchObject({ type: 'text', text: { body: 'Oi!' } });
    const elsewhere = await control('inbound', {
      from: CONTACT,
      text: 'x',
      to_webhook_url: 'http://127.0.0.1:1/nowhere',
    });
    expect(elsewhere.status).toBe(502);
    expect((await control('inbound', { text: 'no sender' })).status).toBe(400);
    expect((await control('inbound', 'not json')).status).toBe(400);
  });

  it('arranges an answer, sends a failed status for an accepted message, and lists the requests recorded', async () => {
    expect((await control('script', { to: CONTACT, answer: { kind: 'error', code: 131047 } })).status).toBe(200);
    expectMetaError(await send({ text: { body: 'x' } }), 131047);
    expect((await control('script', { to: CONTACT, answer: { kind: 'bogus' } })).status).toBe(400);
    const accepted = await send({ text: { body: 'y' } });
    const status = await control('status', { message_id: wamidOf(accepted), status: 'failed', error_code: 131026 });
    expect(status.status).toBe(200);
    expect(valueOf(JSON.parse(received[0]?.raw.toString() ?? '{}')).statuses).toMatchObject([
      { id: wamidOf(accepted), status: 'failed', recipient_id: '5511987654321', errors: [{ code: 131026 }] },
    ]);
    const requests = await control('requests');
    expect(Array.isArray(requests.json.requests) && requests.json.requests.length).toBe(2);
    expect((await control('requests?path=/templates')).json.requests).toEqual([]);
    expect((await control('sent')).json.messages).toMatchObject([{ id: wamidOf(accepted), to: CONTACT }]);
  });
});

describe('npm run fake:meta', () => {
  it('starts the demo number and prints what to set', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/fake-meta.ts'], {
      env: { ...process.env, FAKE_META_PORT: '0', META_APP_SECRET: 'demo-secret' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (match?.[1] && output.includes('_fake/requests')) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${output}`)));
      });
      expect(output).toContain('META_APP_SECRET=demo-secret');
      expect(output).toContain(`GRAPH_API_BASE_URL=${url}`);
      const number = await fetch(`${url}/v23.0/106540352242922?fields=display_phone_number,verified_name`, {
        headers: { authorization: 'Bearer fake-meta-demo-token' },
      });
      expect(await number.json()).toEqual({
        display_phone_number: '+55 11 93000-1234',
        verified_name: 'Loja Demo',
        id: '106540352242922',
      });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
