// The fake Graph API's Instagram side (test/fakes/meta/instagram*.ts), without a server: the account routes on both
// logins with Meta's 190 for a wrong token, each of Meta's checks of a send with its error, the private reply once
// per comment, uploads, arranged answers per recipient and per path in Instagram's wording, the control endpoints,
// and every webhook builder's payload decoded by the real decoder to the expected fact (so fake and decoder agree),
// signed over the raw bytes received.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isRecord } from '../server/guards.js';
import { decodeInstagramWebhook, type InstagramFact } from '../server/channels/instagram/decode.js';
import {
  instagramWebhooks as ig,
  startFakeMeta,
  type FakeInstagramAccount,
  type FakeMeta,
} from './fakes/meta/index.js';

const SECRET = 'test-app-secret';
const IGSID = '1914016295355745';

const IG_LOGIN: FakeInstagramAccount = {
  login: 'instagram',
  igUserId: '17841405309211844',
  username: 'loja.demo',
  accessToken: 'ig-token',
};
const FB_LOGIN: FakeInstagramAccount = {
  login: 'facebook',
  igUserId: '17841400000000001',
  pageId: '104000000000001',
  username: 'loja.fb',
  accessToken: 'page-token',
};

interface Received {
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

let fake: FakeMeta;
let receiver: Server;
let received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  fake = await startFakeMeta({
    appSecret: SECRET,
    instagramWebhookUrl: `http://127.0.0.1:${port}/channels/instagram/webhook`,
    instagramAccounts: [{ ...IG_LOGIN }, { ...FB_LOGIN }],
  });
});

afterAll(async () => {
  await fake.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

beforeEach(() => {
  fake.reset();
  received = [];
});

async function call(
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${fake.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed: unknown = await response.json();
  return { status: response.status, body: isRecord(parsed) ? parsed : {} };
}

/** Meta's `error` object of an answer. */
function errorOf(answer: { body: Record<string, unknown> }): Record<string, unknown> {
  const error = answer.body.error;
  if (!isRecord(error)) throw new Error(`no error in ${JSON.stringify(answer.body)}`);
  return error;
}

const sendIg = (body: unknown, token = IG_LOGIN.accessToken, id = IG_LOGIN.igUserId) =>
  call('POST', `/v23.0/${id}/messages`, token, body);

const text = (value: string, recipient: Record<string, string> = { id: IGSID }) => ({
  recipient,
  message: { text: value },
});

const button = (n: number) => ({ type: 'postback', title: `B${n}`, payload: `b${n}` });

describe('accounts', () => {
  it('answers /me with an Instagram Login token, and 190 for a wrong one', async () => {
    const me = await call('GET', '/v23.0/me?fields=user_id,username', IG_LOGIN.accessToken);
    expect(me).toEqual({
      status: 200,
      body: { user_id: IG_LOGIN.igUserId, username: 'loja.demo', id: IG_LOGIN.igUserId },
    });
    const wrong = await call('GET', '/v23.0/me?fields=user_id,username', 'nope');
    expect(wrong.status).toBe(401);
    expect(errorOf(wrong)).toMatchObject({ code: 190, type: 'OAuthException' });
    const none = await call('GET', '/v23.0/me?fields=user_id,username', undefined);
    expect(errorOf(none).code).toBe(190);
    const field = await call('GET', '/v23.0/me?fields=user_id,shoe_size', IG_LOGIN.accessToken);
    expect(errorOf(field)).toMatchObject({ code: 100 });
    expect(errorOf(field).error_data).toBeUndefined();
  });

  it("answers a Page's instagram_business_account with its Page token", async () => {
    const path = `/v23.0/${FB_LOGIN.pageId}?fields=instagram_business_account{username}`;
    const page = await call('GET', path, FB_LOGIN.accessToken);
    expect(page).toEqual({
      status: 200,
      body: { instagram_business_account: { username: 'loja.fb', id: FB_LOGIN.igUserId }, id: FB_LOGIN.pageId },
    });
    expect(errorOf(await call('GET', path, 'nope')).code).toBe(190);
    // Another account's known token cannot see the Page: Meta's unknown object.
    expect(errorOf(await call('GET', path, IG_LOGIN.accessToken))).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it('subscribes the app to known fields only, on the account, me, or the Page', async () => {
    const fields = 'messages,messaging_postbacks,message_reactions,message_edit,messaging_seen,comments,live_comments';
    for (const id of [IG_LOGIN.igUserId, 'me']) {
      const ok = await call('POST', `/v23.0/${id}/subscribed_apps?subscribed_fields=${fields}`, IG_LOGIN.accessToken);
      expect(ok).toEqual({ status: 200, body: { success: true } });
    }
    expect(fake.instagram(IG_LOGIN.igUserId).subscribedFields).toEqual(fields.split(','));
    const page = await call('POST', `/v23.0/${FB_LOGIN.pageId}/subscribed_apps`, FB_LOGIN.accessToken, {
      subscribed_fields: ['messages', 'messaging_postbacks'],
    });
    expect(page.status).toBe(200);
    expect(fake.instagram(FB_LOGIN.pageId).subscribedFields).toEqual(['messages', 'messaging_postbacks']);
    const listed = await call('GET', `/v23.0/${FB_LOGIN.pageId}/subscribed_apps`, FB_LOGIN.accessToken);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ subscribed_fields: ['messages', 'messaging_postbacks'] }),
    ]);
    const none = await call('POST', `/v23.0/me/subscribed_apps`, IG_LOGIN.accessToken);
    expect(errorOf(none)).toMatchObject({ code: 100, message: '(#100) The parameter subscribed_fields is required' });
    const bad = await call('POST', `/v23.0/me/subscribed_apps?subscribed_fields=messages,gossip`, IG_LOGIN.accessToken);
    expect(String(errorOf(bad).message)).toContain('subscribed_fields[1]');
    expect(errorOf(await call('POST', `/v23.0/me/subscribed_apps?subscribed_fields=messages`, 'nope')).code).toBe(190);
  });

  it('takes accounts added later and leaves WhatsApp paths alone', async () => {
    fake.addInstagramAccount({
      login: 'instagram',
      igUserId: '17841400000000099',
      username: 'late',
      accessToken: 't9',
    });
    const me = await call('GET', '/v23.0/me?fields=username', 't9');
    expect(me.body).toEqual({ username: 'late', id: '17841400000000099' });
    expect(errorOf(await call('GET', '/v23.0/1001', 'nope')).code).toBe(190);
  });
});

describe('sending', () => {
  it('accepts a text with an IG mid and records it', async () => {
    const answer = await sendIg(text('Olá!'));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ recipient_id: IGSID, message_id: expect.stringMatching(/^aWdf/) });
    expect(fake.instagramSent).toEqual([
      expect.objectContaining({
        id: answer.body.message_id,
        igUserId: IG_LOGIN.igUserId,
        recipient: { id: IGSID },
        recipientId: IGSID,
        kind: 'text',
      }),
    ]);
    // The same send through `me`, and through the Page with its token (Facebook Login).
    expect((await sendIg(text('again'), IG_LOGIN.accessToken, 'me')).status).toBe(200);
    expect((await sendIg(text('fb'), FB_LOGIN.accessToken, FB_LOGIN.pageId)).status).toBe(200);
    expect(fake.instagramSent.map((m) => m.igUserId)).toEqual([
      IG_LOGIN.igUserId,
      IG_LOGIN.igUserId,
      FB_LOGIN.igUserId,
    ]);
    expect(errorOf(await sendIg(text('x'), 'nope')).code).toBe(190);
  });

  const longText = 'a'.repeat(1001);
  const buttons = (count: number, text = 'Pick one') => ({
    recipient: { id: IGSID },
    message: {
      attachment: {
        type: 'template',
        payload: { template_type: 'button', text, buttons: Array.from({ length: count }, (_, i) => button(i)) },
      },
    },
  });
  const generic = (elements: unknown[]) => ({
    recipient: { id: IGSID },
    message: { attachment: { type: 'template', payload: { template_type: 'generic', elements } } },
  });
  const card = (title = 'Green shoe', extra: Record<string, unknown> = { subtitle: '€ 40' }) => ({ title, ...extra });

  it.each([
    ['no recipient', { message: { text: 'x' } }, 'recipient is required'],
    ['an id that is no IGSID', text('x', { id: 'ana' }), 'No matching user found'],
    ['both id and comment_id', text('x', { id: IGSID, comment_id: '1' }), 'exactly one of id or comment_id'],
    ['no message', { recipient: { id: IGSID } }, 'message is required'],
    ['text and attachment', { recipient: { id: IGSID }, message: { text: 'x', attachment: {} } }, 'either'],
    ['a text of 1001', text(longText), 'less than or equal to 1000'],
    ['4 buttons', buttons(4), 'at most 3 elements'],
    ['no buttons', buttons(0), 'buttons] is required'],
    ['a button text of 641', buttons(1, 'b'.repeat(641)), 'less than or equal to 640'],
    ['11 elements', generic(Array.from({ length: 11 }, () => card())), 'at most 10 elements'],
    ['a title of 81', generic([card('t'.repeat(81))]), 'less than or equal to 80'],
    ['a title alone', generic([card('Alone', {})]), 'Incomplete element data'],
    ['4 buttons on an element', generic([card('c', { buttons: [1, 2, 3, 4].map(button) })]), 'at most 3 elements'],
    [
      'a link button without url',
      generic([card('c', { buttons: [{ type: 'web_url', title: 'Go' }] })]),
      '[url] must be a valid URL',
    ],
    [
      'a media without url or id',
      { recipient: { id: IGSID }, message: { attachment: { type: 'image', payload: {} } } },
      'exactly one of url or attachment_id',
    ],
    [
      'an unknown attachment id',
      { recipient: { id: IGSID }, message: { attachment: { type: 'image', payload: { attachment_id: '42' } } } },
      'not a valid attachment id',
    ],
    [
      'a sticker',
      { recipient: { id: IGSID }, message: { attachment: { type: 'sticker', payload: { url: 'https://x/y' } } } },
      'must be one of',
    ],
  ])('refuses %s with code 100', async (_name, body, message) => {
    const answer = await sendIg(body);
    expect(answer.status).toBe(400);
    const error = errorOf(answer);
    expect(error).toMatchObject({ code: 100, type: 'OAuthException', fbtrace_id: expect.any(String) });
    expect(String(error.message)).toContain(message);
    expect(error.error_data).toBeUndefined();
    expect(fake.instagramSent).toEqual([]);
  });

  it('accepts the templates and media at their limits', async () => {
    const bodies = [
      text('é'.repeat(1000)),
      buttons(3, 'b'.repeat(640)),
      generic(Array.from({ length: 10 }, () => card('t'.repeat(80), { image_url: 'https://cdn.example/x.jpg' }))),
      generic([card('c', { buttons: [{ type: 'web_url', title: 'Go', url: 'https://example.com/t/1' }] })]),
      { recipient: { id: IGSID }, message: { attachment: { type: 'video', payload: { url: 'https://cdn/v.mp4' } } } },
    ];
    for (const body of bodies) expect((await sendIg(body)).status).toBe(200);
    expect(fake.instagramSent.map((m) => m.kind)).toEqual(['text', 'button', 'generic', 'generic', 'video']);
  });

  it('uploads by URL or bytes, and sends the attachment id from its own account only', async () => {
    const byUrl = await call('POST', `/v23.0/${IG_LOGIN.igUserId}/message_attachments`, IG_LOGIN.accessToken, {
      platform: 'instagram',
      message: { attachment: { type: 'image', payload: { url: 'https://cdn.example/a.jpg', is_reusable: true } } },
    });
    expect(byUrl.body).toEqual({ attachment_id: expect.stringMatching(/^\d+$/) });
    const form = new FormData();
    form.set('platform', 'instagram');
    form.set('message', JSON.stringify({ attachment: { type: 'file', payload: { is_reusable: true } } }));
    form.set('filedata', new Blob([Buffer.from('%PDF-1.4')], { type: 'application/pdf' }), 'a.pdf');
    const multipart = await fetch(`${fake.url}/v23.0/me/message_attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${IG_LOGIN.accessToken}` },
      body: form,
    });
    const uploaded: unknown = await multipart.json();
    const fileId = isRecord(uploaded) ? String(uploaded.attachment_id) : '';
    expect(fake.instagramAttachment(fileId)).toMatchObject({ type: 'file', file: { name: 'a.pdf', size: 8 } });
    const withId = (id: unknown) => ({
      recipient: { id: IGSID },
      message: { attachment: { type: 'image', payload: { attachment_id: id } } },
    });
    expect((await sendIg(withId(byUrl.body.attachment_id))).status).toBe(200);
    const other = await sendIg(withId(byUrl.body.attachment_id), FB_LOGIN.accessToken, FB_LOGIN.pageId);
    expect(String(errorOf(other).message)).toContain('not a valid attachment id');
    const empty = await call('POST', `/v23.0/me/message_attachments`, IG_LOGIN.accessToken, { platform: 'instagram' });
    expect(errorOf(empty).code).toBe(100);
  });

  it('takes one private reply per comment, to its author', async () => {
    await fake.sendInstagramWebhook(
      ig.comment(IG_LOGIN, {
        from: { id: '17841474524784050', username: 'ana', igsid: IGSID },
        commentId: '1786',
        text: 'Price?',
      }),
    );
    const first = await sendIg(text('Sent you the price!', { comment_id: '1786' }));
    expect(first.body).toEqual({ recipient_id: IGSID, message_id: expect.stringMatching(/^aWdf/) });
    expect(fake.instagramSent[0]?.recipient).toEqual({ comment_id: '1786' });
    const again = await sendIg(text('And again', { comment_id: '1786' }));
    expect(again.status).toBe(400);
    expect(errorOf(again)).toMatchObject({ code: 10900, message: 'Activity already replied to' });
    // A comment the fake did not send still takes one reply (to an IGSID made up).
    expect((await sendIg(text('Hi', { comment_id: '999' }))).body.recipient_id).toMatch(/^\d+$/);
    // A refused reply does not count as the one.
    fake.scriptInstagram('555', { kind: 'error', code: 10, subcode: 2534022 });
    expect((await sendIg(text('Hi', { comment_id: '555' }))).status).toBe(403);
    expect((await sendIg(text('Hi', { comment_id: '555' }))).status).toBe(200);
  });
});

describe('arranged answers', () => {
  it.each<[{ code: number; subcode?: number }, number, string]>([
    [{ code: 10, subcode: 2534022 }, 403, '(#10) This message is sent outside of allowed window.'],
    [{ code: 10, subcode: 2018278 }, 403, '(#10) This message is sent outside of allowed window.'],
    [{ code: 551 }, 400, "(#551) This person isn't available right now."],
    [{ code: 100, subcode: 2018001 }, 400, '(#100) No matching user found'],
    [{ code: 613 }, 400, '(#613) Calls to this api have exceeded the rate limit.'],
    [{ code: 4 }, 400, '(#4) Application request limit reached'],
    [{ code: 32 }, 400, '(#32) Page request limit reached'],
    [{ code: 190 }, 401, 'Invalid OAuth access token - Cannot parse access token'],
    [{ code: 10 }, 403, '(#10) Application does not have permission for this action'],
    [{ code: 200 }, 403, '(#200) Permissions error'],
    [{ code: 230 }, 403, '(#230) Requires pages_messaging permission to manage the object'],
    [{ code: 1 }, 500, 'An unknown error has occurred.'],
    [{ code: 2 }, 503, 'An unexpected error has occurred. Please retry your request later.'],
    [{ code: 1200 }, 400, '(#1200) Temporary send message failure. Please try again later'],
  ])('answers %o per recipient with Meta’s body', async (error, status, message) => {
    fake.scriptInstagram(IGSID, { kind: 'error', ...error });
    const answer = await sendIg(text('x'));
    expect(answer.status).toBe(status);
    expect(errorOf(answer)).toMatchObject({ code: error.code, message });
    expect(errorOf(answer).error_subcode).toBe(error.subcode);
    expect(errorOf(answer).error_data).toBeUndefined();
    // Once, then the usual answer; nothing recorded for the refused one.
    expect((await sendIg(text('x'))).status).toBe(200);
    expect(fake.instagramSent).toHaveLength(1);
  });

  it('plays sticky answers, delays, resets and path scripts', async () => {
    fake.scriptInstagram(IGSID, { kind: 'error', code: 613 }, { sticky: true });
    expect(errorOf(await sendIg(text('1'))).code).toBe(613);
    expect(errorOf(await sendIg(text('2'))).code).toBe(613);
    fake.clearScripts();
    fake.scriptInstagram(IGSID, { kind: 'delay', ms: 30, then: { kind: 'error', code: 551 } });
    expect(errorOf(await sendIg(text('3'))).code).toBe(551);
    fake.scriptInstagram(IGSID, { kind: 'delay', ms: 20, then: { kind: 'no_message_id' } });
    expect(await sendIg(text('3b'))).toEqual({ status: 200, body: { recipient_id: IGSID } });
    fake.scriptInstagram(IGSID, { kind: 'reset', midAnswer: false });
    await expect(sendIg(text('4'))).rejects.toThrow();
    fake.scriptInstagram(IGSID, { kind: 'http', status: 502, body: '<html>Bad gateway</html>' });
    const gateway = await fetch(`${fake.url}/v23.0/me/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${IG_LOGIN.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(text('5')),
    });
    expect(gateway.status).toBe(502);
    fake.scriptPath('me/subscribed_apps', { kind: 'delay', ms: 20 });
    const late = await call('POST', `/v23.0/me/subscribed_apps?subscribed_fields=gossip`, IG_LOGIN.accessToken);
    expect(errorOf(late).code).toBe(100);
    fake.scriptPath('me', { kind: 'error', code: 190 });
    expect(errorOf(await call('GET', '/v23.0/me?fields=user_id,username', IG_LOGIN.accessToken)).code).toBe(190);
    expect((await call('GET', '/v23.0/me?fields=user_id,username', IG_LOGIN.accessToken)).status).toBe(200);
    fake.scriptPath(`${FB_LOGIN.pageId}/subscribed_apps`, { kind: 'error', code: 200 });
    const denied = await call(
      'POST',
      `/v23.0/${FB_LOGIN.pageId}/subscribed_apps?subscribed_fields=messages`,
      FB_LOGIN.accessToken,
    );
    expect(errorOf(denied)).toMatchObject({ code: 200, message: '(#200) Permissions error' });
    expect(fake.instagramSent).toEqual([]);
  });
});

/** The bytes received were signed with the app secret, and decode to the facts. */
function decodedDelivery(index = 0): InstagramFact[] {
  const delivery = received[index];
  if (!delivery) throw new Error('no delivery');
  const expected = `sha256=${createHmac('sha256', SECRET).update(delivery.raw).digest('hex')}`;
  expect(delivery.headers['x-hub-signature-256']).toBe(expected);
  const decoded = decodeInstagramWebhook(JSON.parse(delivery.raw.toString('utf8')));
  expect(decoded.skipped).toEqual([]);
  return decoded.facts;
}

describe('webhooks', () => {
  const account = IG_LOGIN;
  const from = IGSID;
  const mid = ig.newMid(account.igUserId);
  const thread = { accountId: account.igUserId, contactId: IGSID };

  it.each<[string, ig.InstagramWebhookPayload, Partial<InstagramFact> & Record<string, unknown>]>([
    ['text', ig.text(account, { from, text: 'Oi', mid }), { kind: 'message', messageId: mid, text: 'Oi', ...thread }],
    [
      'reply to a message',
      ig.text(account, { from, text: 'this', replyToMid: mid }),
      { kind: 'message', replyTo: { type: 'message', messageId: mid } },
    ],
    ...(['image', 'video', 'audio', 'file'] as const).map(
      (type): [string, ig.InstagramWebhookPayload, Record<string, unknown>] => [
        type,
        ig.attachment(account, { from, type }),
        { kind: 'message', attachments: [expect.objectContaining({ type, url: expect.stringMatching(/^https:/) })] },
      ],
    ),
    [
      'post share',
      ig.postShare(account, { from, mediaId: '18139494541428835', title: 'Autumn' }),
      {
        kind: 'message',
        attachments: [
          expect.objectContaining({ type: 'share', mediaId: '18139494541428835', title: 'Autumn' }),
          expect.objectContaining({ type: 'ig_post', mediaId: '18139494541428835' }),
        ],
      },
    ],
    [
      'reel',
      ig.attachment(account, { from, type: 'ig_reel', mediaId: '1804', title: 'Reel' }),
      { kind: 'message', attachments: [expect.objectContaining({ type: 'ig_reel', mediaId: '1804' })] },
    ],
    [
      'story mention',
      ig.storyMention(account, { from }),
      { kind: 'message', attachments: [expect.objectContaining({ type: 'story_mention' })] },
    ],
    [
      'an expired story mention (no payload)',
      ig.storyMention(account, { from, url: null }),
      { kind: 'message', attachments: [expect.objectContaining({ type: 'story_mention', url: null })] },
    ],
    [
      'story reply',
      ig.storyReply(account, { from, text: 'Love it', storyId: '1792' }),
      { kind: 'message', text: 'Love it', replyTo: expect.objectContaining({ type: 'story', storyId: '1792' }) },
    ],
    [
      'quick reply',
      ig.quickReply(account, { from, text: 'Yes', payload: 'yes' }),
      { kind: 'message', quickReply: 'yes' },
    ],
    [
      'postback',
      ig.postback(account, { from, title: 'Track', payload: 'track_order' }),
      { kind: 'postback', title: 'Track', payload: 'track_order', ...thread },
    ],
    [
      'reaction',
      ig.reaction(account, { from, messageMid: mid, emoji: '😍' }),
      { kind: 'reaction', messageId: mid, action: 'react', emoji: '😍' },
    ],
    [
      'unreaction',
      ig.reaction(account, { from, messageMid: mid, action: 'unreact' }),
      { kind: 'reaction', action: 'unreact', emoji: null },
    ],
    [
      'edit',
      ig.messageEdit(account, { from, messageMid: mid, text: 'Porto?' }),
      { kind: 'message_edit', messageId: mid, text: 'Porto?', editCount: 1 },
    ],
    ['unsend', ig.deleted(account, { from, messageMid: mid }), { kind: 'message_deleted', messageId: mid }],
    ['unsupported', ig.unsupported(account, { from }), { kind: 'message', unsupported: true }],
    [
      'echo',
      ig.echo(account, { from, text: 'We ship', mid }),
      { kind: 'message', echo: true, messageId: mid, ...thread },
    ],
    ['read', ig.read(account, { from, messageMid: mid }), { kind: 'read', messageId: mid }],
    ['standby', ig.standby(account, { from }), { kind: 'standby', ...thread }],
    [
      'comment',
      ig.comment(account, { from: { id: from, username: 'ana' }, commentId: '1786', mediaId: '1802', text: 'Price?' }),
      {
        kind: 'comment',
        field: 'comments',
        accountId: account.igUserId,
        commentId: '1786',
        text: 'Price?',
        from: { id: from, username: 'ana', igsid: null },
        media: { id: '1802', productType: 'FEED', originalId: null, adId: null },
      },
    ],
    [
      'comment reply on a reel',
      ig.comment(account, { from: { id: from, username: 'ana' }, parentId: '1786', productType: 'REELS', text: 'ok' }),
      { kind: 'comment', parentId: '1786', media: expect.objectContaining({ productType: 'REELS' }) },
    ],
    [
      'ad comment',
      ig.comment(account, {
        from: { id: '1784', username: 'ana', igsid: from },
        productType: 'AD',
        ad: { adId: '1202', title: 'Sale', originalMediaId: '1802' },
        text: 'Price?',
      }),
      {
        kind: 'comment',
        from: { id: '1784', username: 'ana', igsid: from },
        media: expect.objectContaining({ productType: 'AD', adId: '1202', originalId: '1802' }),
      },
    ],
    [
      'live comment',
      ig.liveComment(account, { from: { id: from, username: 'ana' }, text: 'Hello!' }),
      { kind: 'comment', field: 'live_comments', media: expect.objectContaining({ productType: 'LIVE' }) },
    ],
    [
      'Facebook Login (a Page delivery)',
      ig.onPage(ig.text(FB_LOGIN, { from, text: 'via page' }), FB_LOGIN.pageId ?? ''),
      { kind: 'message', text: 'via page', accountId: FB_LOGIN.igUserId },
    ],
  ])('%s: signed, and decodes to its fact', async (_name, payload, fact) => {
    const result = await fake.sendInstagramWebhook(payload);
    expect(result).toEqual({ status: 200, body: 'ok' });
    expect(received[0]?.headers['user-agent']).toBe('facebookexternalua');
    expect(decodedDelivery()).toEqual([expect.objectContaining(fact)]);
  });

  it('batches payloads into one delivery', async () => {
    await fake.sendInstagramWebhook(ig.batch(ig.text(account, { from, text: 'a' }), ig.standby(account, { from })));
    expect(decodedDelivery().map((f) => f.kind)).toEqual(['message', 'standby']);
  });

  it('sends from the control endpoints: a DM, a tap, a quick reply, a comment, a live comment', async () => {
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${fake.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    expect((await post('/_fake/instagram/inbound', { from, text: 'Oi!' })).status).toBe(200);
    await post('/_fake/instagram/inbound', { from, text: 'Track', postback_payload: 'track' });
    await post('/_fake/instagram/inbound', { from, text: 'Yes', quick_reply_payload: 'yes' });
    await post('/_fake/instagram/comment', { from, username: 'ana', text: 'Price?', comment_id: '4242' });
    await post('/_fake/instagram/comment', { from, username: 'ana', text: 'Live!', live: true });
    const facts = received.map((_, i) => decodedDelivery(i)[0]);
    expect(facts).toEqual([
      expect.objectContaining({ kind: 'message', text: 'Oi!' }),
      expect.objectContaining({ kind: 'postback', payload: 'track' }),
      expect.objectContaining({ kind: 'message', quickReply: 'yes' }),
      expect.objectContaining({ kind: 'comment', field: 'comments', commentId: '4242' }),
      expect.objectContaining({ kind: 'comment', field: 'live_comments' }),
    ]);
    expect((await post('/_fake/instagram/inbound', { from })).status).toBe(400);
    expect((await post('/_fake/instagram/comment', { from, ig_user_id: '404' })).status).toBe(400);
    // A private reply to the comment sent from here reaches its author.
    expect((await sendIg(text('Hi', { comment_id: '4242' }))).body.recipient_id).toBe(from);
    const scripted = await post('/_fake/instagram/script', { recipient: from, answer: { kind: 'error', code: 551 } });
    expect(scripted.status).toBe(200);
    expect(errorOf(await sendIg(text('x'))).code).toBe(551);
    const sent = await fetch(`${fake.url}/_fake/instagram/sent`).then((r) => r.json());
    expect(sent).toEqual({ messages: [expect.objectContaining({ recipient: { comment_id: '4242' } })] });
  });
});

describe('npm run fake:meta', () => {
  it('starts the demo instagram account and prints how to connect it', async () => {
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
          if (match?.[1] && output.includes('_fake/instagram/sent')) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${output}`)));
      });
      expect(output).toContain(`INSTAGRAM_GRAPH_BASE_URL=${url}`);
      expect(output).toContain('"login":"instagram","ig_user_id":"17841405309211844"');
      expect(output).toContain('username must be loja.demo');
      expect(output).toContain('http://127.0.0.1:3000/channels/instagram/webhook');
      const me = await fetch(`${url}/v23.0/me?fields=user_id,username`, {
        headers: { authorization: 'Bearer fake-meta-demo-ig-token' },
      });
      expect(await me.json()).toEqual({ user_id: '17841405309211844', username: 'loja.demo', id: '17841405309211844' });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
