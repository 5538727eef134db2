// InstagramProvider.deliver (issue 36 §3) against the fake Graph API on loopback, without an app: the host and the
// object each login sends through (Instagram Login: its own id on INSTAGRAM_GRAPH_BASE_URL; Facebook Login: the
// Page on GRAPH_API_BASE_URL, here told apart by the version each client was given), the bearer token, media by
// address or uploaded first, cards refused without an address for their image and with a title alone, the private
// reply by `comment_id` (once: Meta's 10900 is a plain refusal), the public reply (`POST /{comment_id}/replies`),
// the retry of a call that never connected, and the token in no log line.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GraphClient } from '../server/channels/graph/client.js';
import {
  InstagramProvider,
  type InstagramAccountCredentials,
  type MediaAddresses,
} from '../server/channels/instagram/provider.js';
import type { ChannelDelivery, OutboundContent, ReplyContext } from '../server/channels/provider.js';
import type { OutboundMediaSource } from '../server/channels/whatsapp-cloud/provider.js';
import { reachableFromInternet } from '../server/domain/channels/provider-ports.js';
import { startFakeMeta, type FakeInstagramAccount, type FakeMeta } from './fakes/meta/index.js';
import { buttonsCard, card, content, reply } from './outbound-content.js';

const IG: FakeInstagramAccount = {
  login: 'instagram',
  igUserId: '17841405309211844',
  username: 'loja.ig',
  accessToken: 'IGAA-secret-token-do-not-log-1',
};
const FB: FakeInstagramAccount = {
  login: 'facebook',
  igUserId: '17841400000000001',
  pageId: '104000000000001',
  username: 'loja.fb',
  accessToken: 'EAAG-secret-page-token-do-not-log-2',
};
const IGSID = '1914016295355745';
const COMMENT = '18009000000000001';
const IMAGE = '7a0c7f4e-0000-4000-8000-000000000001';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

let meta: FakeMeta;
let instagramGraph: GraphClient;
let facebookGraph: GraphClient;
let logged: string[];
let reads: string[];

const credentialsOf = (account: FakeInstagramAccount): InstagramAccountCredentials => ({
  login: account.login,
  igUserId: account.igUserId,
  pageId: account.pageId ?? null,
  accessToken: account.accessToken,
});

const media: OutboundMediaSource = {
  read(_accountId, mediaId) {
    reads.push(mediaId);
    return Promise.resolve({ bytes: PNG, contentType: 'image/png', filename: 'photo.png' });
  },
};

function provider(account: FakeInstagramAccount | undefined, addresses?: MediaAddresses) {
  const log = (...args: unknown[]) => void logged.push(JSON.stringify(args));
  return new InstagramProvider<unknown>({
    instagramGraph,
    facebookGraph,
    credentials: { credentialsFor: () => Promise.resolve(account && credentialsOf(account)) },
    media,
    ...(addresses ? { addresses } : {}),
    logger: { error: log, warn: log },
  });
}

const publicAddress: MediaAddresses = {
  addressOf: (_accountId, mediaId) => Promise.resolve(`https://api.example.com/media-download/${mediaId}`),
};

const delivery = (body: OutboundContent, replyTo: ReplyContext | null = null): ChannelDelivery => ({
  connection: {
    id: 'c1',
    accountId: 'a1',
    channel: 'instagram',
    provider: 'instagram_graph',
    phone: null,
    username: 'loja',
  },
  recipient: { channel: 'instagram', userId: IGSID },
  content: body,
  replyTo,
});

const text = (value: string) => content({ text: value });
const image = content({
  form: 'media',
  attachments: [
    { type: 'image', media_id: IMAGE, content_type: 'image/png', size: 11, filename: null, expires_at: null },
  ],
});
const cards = (withImage: boolean) =>
  content({
    form: 'cards',
    attachments: [{ type: 'cards', cards: [card('Shoes', 'Red', withImage ? IMAGE : null, [reply('buy', 'Buy')])] }],
  });
const NOW = new Date('2026-12-06T12:00:00Z');

beforeAll(async () => {
  meta = await startFakeMeta({ instagramAccounts: [IG, FB] });
  instagramGraph = new GraphClient({ baseUrl: meta.url, version: 'v23.0' });
  facebookGraph = new GraphClient({ baseUrl: meta.url, version: 'v22.0' });
});

afterAll(async () => {
  instagramGraph.close();
  facebookGraph.close();
  await meta.close();
});

beforeEach(() => {
  meta.reset();
  logged = [];
  reads = [];
});

describe('deliver: the host, the object and the token', () => {
  it('Instagram Login sends on the Instagram host by the account id, with its token as a bearer', async () => {
    const result = await provider(IG).deliver(undefined, delivery(text('Olá')), NOW);
    expect(result).toMatchObject({ outcome: 'accepted', providerMessageId: expect.any(String) });
    const [request] = meta.requestsTo('/messages', 'POST');
    expect(request?.path).toBe(`/v23.0/${IG.igUserId}/messages`);
    expect(request?.headers.authorization).toBe(`Bearer ${IG.accessToken}`);
    expect(request?.body).toEqual({ recipient: { id: IGSID }, message: { text: 'Olá' } });
    expect(meta.instagramSent.map((m) => m.id)).toEqual([result.outcome === 'accepted' && result.providerMessageId]);
  });

  it("Facebook Login sends on the Facebook host by the Page's id, with the Page token", async () => {
    const result = await provider(FB).deliver(undefined, delivery(buttonsCard('Pick', [reply('a', 'A')])), NOW);
    expect(result.outcome).toBe('accepted');
    const [request] = meta.requestsTo('/messages', 'POST');
    expect(request?.path).toBe(`/v22.0/${FB.pageId}/messages`);
    expect(request?.headers.authorization).toBe(`Bearer ${FB.accessToken}`);
    expect(meta.instagramSent[0]?.kind).toBe('button');
  });

  it('no credentials: authorization_lost without a call; a contact without an IGSID: recipient_unavailable', async () => {
    expect(await provider(undefined).deliver(undefined, delivery(text('x')), NOW)).toEqual({
      outcome: 'authorization_lost',
    });
    const noId = { ...delivery(text('x')), recipient: { channel: 'instagram' as const, userId: null } };
    expect(await provider(IG).deliver(undefined, noId, NOW)).toEqual({ outcome: 'recipient_unavailable' });
    expect(meta.requests).toEqual([]);
  });
});

describe('deliver: media and cards', () => {
  it('a media with an address Meta can fetch goes by its url, nothing uploaded', async () => {
    expect((await provider(IG, publicAddress).deliver(undefined, delivery(image), NOW)).outcome).toBe('accepted');
    expect(meta.requestsTo('/message_attachments')).toEqual([]);
    expect(meta.requestsTo('/messages')[0]?.body).toMatchObject({
      message: { attachment: { type: 'image', payload: { url: `https://api.example.com/media-download/${IMAGE}` } } },
    });
    expect(reads).toEqual([]);
  });

  it('without an address (PUBLIC_BASE_URL not public) the media is uploaded first, then sent by its attachment_id', async () => {
    expect((await provider(IG).deliver(undefined, delivery(image), NOW)).outcome).toBe('accepted');
    const [upload] = meta.requestsTo('/message_attachments', 'POST');
    expect(upload?.path).toBe(`/v23.0/${IG.igUserId}/message_attachments`);
    expect(reads).toEqual([IMAGE]);
    const sent = meta.instagramSent[0]?.body;
    const attachmentId = JSON.stringify(sent).match(/"attachment_id":"(\d+)"/)?.[1] ?? '';
    expect(meta.instagramAttachment(attachmentId)).toMatchObject({ igUserId: IG.igUserId, type: 'image' });
  });

  it('a failed upload is the send outcome and no message is sent (Meta 190: authorization_lost; lost: provider_unavailable)', async () => {
    meta.scriptPath(`${IG.igUserId}/message_attachments`, { kind: 'error', code: 190 });
    expect(await provider(IG).deliver(undefined, delivery(image), NOW)).toEqual({ outcome: 'authorization_lost' });
    meta.scriptPath(`${IG.igUserId}/message_attachments`, { kind: 'reset', midAnswer: true });
    expect(await provider(IG).deliver(undefined, delivery(image), NOW)).toEqual({ outcome: 'provider_unavailable' });
    expect(meta.requestsTo('/messages')).toEqual([]);
  });

  it("cards go with their image's address; without one they are refused before any call, saying why", async () => {
    expect((await provider(IG, publicAddress).deliver(undefined, delivery(cards(true)), NOW)).outcome).toBe('accepted');
    expect(meta.instagramSent[0]?.kind).toBe('generic');
    meta.reset();
    const refused = await provider(IG).deliver(undefined, delivery(cards(true)), NOW);
    expect(refused).toMatchObject({
      outcome: 'provider_rejected',
      providerMessage: expect.stringContaining('PUBLIC_BASE_URL'),
    });
    expect(meta.requests).toEqual([]);
  });

  it('a card with its title alone is refused before any call (Meta refuses it)', async () => {
    const titleOnly = content({
      form: 'cards',
      attachments: [{ type: 'cards', cards: [card('Only a title', null, null, [])] }],
    });
    const refused = await provider(IG).deliver(undefined, delivery(titleOnly), NOW);
    expect(refused).toMatchObject({
      outcome: 'provider_rejected',
      providerMessage: expect.stringContaining('title alone'),
    });
    expect(meta.requests).toEqual([]);
    // Cards without images need no address.
    expect((await provider(IG).deliver(undefined, delivery(cards(false)), NOW)).outcome).toBe('accepted');
  });
});

describe('deliver: comments', () => {
  const privateReply: ReplyContext = { kind: 'comment_private_reply', messageId: 'm1', providerMessageId: COMMENT };

  it('a private reply goes to recipient.comment_id, once: a second is refused (10900, provider_rejected)', async () => {
    expect((await provider(IG).deliver(undefined, delivery(text('Hi'), privateReply), NOW)).outcome).toBe('accepted');
    expect(meta.requestsTo('/messages')[0]?.body).toMatchObject({ recipient: { comment_id: COMMENT } });
    const second = await provider(IG).deliver(undefined, delivery(text('Again'), privateReply), NOW);
    expect(second).toEqual({
      outcome: 'provider_rejected',
      providerMessage: 'Activity already replied to',
      providerCode: '10900',
    });
  });

  it("a public reply is POST /{comment_id}/replies with the text, on the account's host; accepted with the reply's id", async () => {
    const publicReply: ReplyContext = { kind: 'comment_public_reply', messageId: 'm1', providerMessageId: COMMENT };
    const result = await provider(FB).deliver(undefined, delivery(text('Thanks!'), publicReply), NOW);
    expect(result).toMatchObject({ outcome: 'accepted', providerMessageId: expect.stringMatching(/^\d+$/) });
    const [request] = meta.requestsTo('/replies', 'POST');
    expect(request?.path).toBe(`/v22.0/${COMMENT}/replies`);
    expect(request?.body).toEqual({ message: 'Thanks!' });
    expect(request?.headers.authorization).toBe(`Bearer ${FB.accessToken}`);
    expect(meta.instagramSent).toEqual([]);
    meta.scriptPath(`${COMMENT}/replies`, { kind: 'error', code: 613 });
    expect(await provider(IG).deliver(undefined, delivery(text('x'), publicReply), NOW)).toEqual({
      outcome: 'provider_throttled',
    });
  });
});

describe('deliver: answers', () => {
  it('a 200 without message_id, a timeout or a reset after the write: outcome_unknown, not accepted', async () => {
    meta.scriptInstagram(IGSID, { kind: 'no_message_id' });
    expect(await provider(IG).deliver(undefined, delivery(text('x')), NOW)).toEqual({
      outcome: 'outcome_unknown',
      providerAccepted: false,
      providerMessageId: null,
    });
    meta.scriptInstagram(IGSID, { kind: 'reset', midAnswer: true });
    expect((await provider(IG).deliver(undefined, delivery(text('x')), NOW)).outcome).toBe('outcome_unknown');
  });

  it('a call that never connected is sent again once; refused twice it is provider_unavailable', async () => {
    const dead = new GraphClient({ baseUrl: 'http://127.0.0.1:1', version: 'v23.0' });
    const calls: string[] = [];
    const counting = new Proxy(dead, {
      get(target, name, receiver) {
        if (name === 'call') calls.push('call');
        return Reflect.get(target, name, receiver);
      },
    });
    const p = new InstagramProvider<unknown>({
      instagramGraph: counting,
      facebookGraph,
      credentials: { credentialsFor: () => Promise.resolve(credentialsOf(IG)) },
      media,
      logger: { error: () => {}, warn: () => {} },
    });
    expect(await p.deliver(undefined, delivery(text('x')), NOW)).toEqual({ outcome: 'provider_unavailable' });
    expect(calls).toHaveLength(2);
    dead.close();
  });

  it('the token is in no log line', async () => {
    meta.scriptInstagram(IGSID, { kind: 'http', status: 502, body: '<html>bad gateway</html>' });
    expect((await provider(IG).deliver(undefined, delivery(text('x')), NOW)).outcome).toBe('outcome_unknown');
    meta.scriptPath(`${IG.igUserId}/message_attachments`, { kind: 'error', code: 2 });
    await provider(IG).deliver(undefined, delivery(image), NOW);
    expect(logged.length).toBeGreaterThan(1);
    expect(logged.join('\n')).not.toContain(IG.accessToken);
  });
});

describe('reachableFromInternet (PUBLIC_BASE_URL)', () => {
  it.each([
    [undefined, false],
    ['http://127.0.0.1:3000', false],
    ['http://localhost:3000', false],
    ['https://api.localhost', false],
    ['http://10.0.0.5', false],
    ['http://192.168.1.20:8080', false],
    ['http://[::1]:3000', false],
    ['https://service.internal', false],
    ['ftp://api.example.com', false],
    ['https://api.example.com', true],
    ['http://203.0.113.9', false],
    ['http://8.8.8.8', true],
  ])('%s → %s', (url, expected) => {
    expect(reachableFromInternet(url)).toBe(expected);
  });
});
