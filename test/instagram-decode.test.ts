// Meta's Instagram webhook, decoded (issue 36, section 2): each kind's documented example
// (test/fixtures/instagram/, sources in its README) decodes to the full fact it states; junk never throws and is
// bounded; and what each fact becomes (server/channels/instagram/inbound.ts) follows the seeds: story replies and
// mentions, taps and their `button.source`, echoes, updates, deletes, comments, another app owning the thread.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DECODE_LIMITS,
  decodeInstagramWebhook,
  type InstagramFact,
  type InstagramMessageFact,
} from '../server/channels/instagram/decode.js';
import { decisionOf, lookupOf, mediaOf, threadOf, type InboundContext } from '../server/channels/instagram/inbound.js';
import { isObject } from '../server/channels/graph/read.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/instagram/${name}.json`, import.meta.url), 'utf8'));

const ACCOUNT = '17841405309211844';
const IGSID = '1914016295355745';
const MID =
  'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQxNDA1MzA5MjExODQ0OjM0MDI4MjM2Njg0MTcxMDMwMTI0NDI1OTA1MzAxNjYzNDc2OTQxNTozMjM2NzA2NzM4NzU3NjQ0NjI5NjM4NDk3NzU2MjA5NTQ4OAZDZD';
const REPLY_MID =
  'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQxNDA1MzA5MjExODQ0OjM0MDI4MjM2Njg0MTcxMDMwMTI0NDI1OTA1MzAxNjYzNDc2OTQxNTozMjM2NzA2NzM4NzU3NjQ0NjI5NjM4NDk3NzU2MjA5NTQ4NwZDZD';
const CDN = 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=18139494541428835&signature=AbxVr3hl2Uu0Xy';
/** The examples' `timestamp` 1761287294014 (milliseconds). */
const AT = '2025-10-24T06:28:14.014Z';
const THREAD = { accountId: ACCOUNT, contactId: IGSID, timestamp: AT };
const POST_TITLE =
  'Build a workspace that attracts talent and supports your team with solutions made for growing businesses.';

const message = (patch: Partial<InstagramMessageFact>): InstagramMessageFact => ({
  kind: 'message',
  ...THREAD,
  messageId: MID,
  echo: false,
  text: null,
  attachments: [],
  quickReply: null,
  replyTo: null,
  unsupported: false,
  ...patch,
});

const media = (type: 'image' | 'video' | 'audio' | 'file' | 'story_mention') =>
  message({ attachments: [{ type, url: CDN, mediaId: null, title: null }] });

const comment = (patch: Record<string, unknown>) => ({
  kind: 'comment',
  field: 'comments',
  accountId: ACCOUNT,
  from: { id: IGSID, username: 'sheena.nelson', igsid: null },
  parentId: null,
  timestamp: '2025-10-24T06:28:18.000Z',
  ...patch,
});

const CASES: [string, InstagramFact | Record<string, unknown>][] = [
  ['text', message({ text: 'Do you ship to Lisbon?' })],
  ['image', media('image')],
  ['video', media('video')],
  ['audio', media('audio')],
  ['file', media('file')],
  ['story-mention', media('story_mention')],
  [
    'ig-reel',
    message({
      attachments: [{ type: 'ig_reel', url: CDN, mediaId: '18040812345678901', title: 'Our autumn collection' }],
    }),
  ],
  [
    'post-share',
    message({
      attachments: [
        { type: 'share', url: CDN, mediaId: '18139494541428835', title: POST_TITLE },
        { type: 'ig_post', url: CDN, mediaId: '18139494541428835', title: POST_TITLE },
      ],
    }),
  ],
  ['quick-reply', message({ text: 'Yes, please', quickReply: 'confirm_order' })],
  ['reply-to-message', message({ text: 'This one', replyTo: { type: 'message', messageId: REPLY_MID } })],
  [
    'story-reply',
    message({ text: 'Love this look!', replyTo: { type: 'story', storyId: '17920304815254107', url: CDN } }),
  ],
  ['echo', message({ text: 'Yes, we ship to Portugal.', echo: true })],
  ['deleted', { kind: 'message_deleted', ...THREAD, messageId: MID }],
  ['unsupported', message({ unsupported: true })],
  ['postback', { kind: 'postback', ...THREAD, messageId: MID, title: 'Track my order', payload: 'track_order' }],
  ['reaction', { kind: 'reaction', ...THREAD, messageId: REPLY_MID, action: 'react', emoji: '❤️' }],
  ['unreaction', { kind: 'reaction', ...THREAD, messageId: REPLY_MID, action: 'unreact', emoji: null }],
  ['message-edit', { kind: 'message_edit', ...THREAD, messageId: MID, text: 'Do you ship to Porto?', editCount: 1 }],
  ['read', { kind: 'read', ...THREAD, messageId: REPLY_MID }],
  ['standby', { kind: 'standby', ...THREAD }],
  [
    'comment',
    comment({
      commentId: '17865799348089039',
      text: 'How much is the green one?',
      media: { id: '18023345678901234', productType: 'FEED', originalId: null, adId: null },
    }),
  ],
  [
    'comment-reply',
    comment({
      commentId: '17865799348089040',
      text: 'And the blue one?',
      media: { id: '18023345678901234', productType: 'REELS', originalId: null, adId: null },
      parentId: '17865799348089039',
    }),
  ],
  [
    'comment-ad',
    comment({
      commentId: '17919697626119712',
      text: 'Price?',
      from: { id: '17841474524784050', username: 'sheena.nelson', igsid: IGSID },
      media: {
        id: '18172143295349192',
        productType: 'AD',
        originalId: '18023345678901234',
        adId: '120211234567890123',
      },
    }),
  ],
  [
    'live-comment',
    comment({
      field: 'live_comments',
      commentId: '17865799348089041',
      text: 'Hello from Lisbon!',
      media: { id: '18045678901234567', productType: 'LIVE', originalId: null, adId: null },
    }),
  ],
  ['facebook-login-page', message({ text: 'Do you ship to Lisbon?' })],
];

describe("Meta's instagram webhook examples, decoded", () => {
  it.each(CASES)('%s', (name, fact) => {
    expect(decodeInstagramWebhook(fixture(name))).toEqual({ facts: [fact], skipped: [] });
  });

  it('an echo names the account by its sender and the contact by its recipient', () => {
    expect(decodeInstagramWebhook(fixture('echo')).facts[0]).toMatchObject({ accountId: ACCOUNT, contactId: IGSID });
  });

  it('several items and entries: every fact, in payload order', () => {
    const text = fixture('text');
    const comments = fixture('comment');
    const items = [read(text, 'entry', 0, 'messaging', 0), read(fixture('reaction'), 'entry', 0, 'messaging', 0)];
    const body = {
      object: 'instagram',
      entry: [
        { id: ACCOUNT, time: 1761287298065, messaging: items },
        read(comments, 'entry', 0),
        read(fixture('standby'), 'entry', 0),
      ],
    };
    const { facts, skipped } = decodeInstagramWebhook(body);
    expect(skipped).toEqual([]);
    expect(facts.map((f) => f.kind)).toEqual(['message', 'reaction', 'comment', 'standby']);
  });
});

/** A value down a path of keys and indexes (test helper over parsed JSON). */
function read(value: unknown, ...path: (string | number)[]): unknown {
  let at: unknown = value;
  for (const key of path) at = typeof at === 'object' && at !== null ? Reflect.get(at, key) : undefined;
  return at;
}

/** The text example with its one messaging item's `message` patched (undefined deletes a key). */
function messageWith(patch: Record<string, unknown>, itemPatch: Record<string, unknown> = {}): unknown {
  const body = structuredClone(fixture('text'));
  const item = read(body, 'entry', 0, 'messaging', 0);
  const current = read(item, 'message');
  if (!isObject(item) || !isObject(current)) throw new Error('no item');
  Object.assign(item, { message: { ...current, ...patch }, ...itemPatch });
  return body;
}

const ITEM_PATH = 'entry[0].messaging[0]';

describe('junk never throws, and is bounded', () => {
  it.each([
    ['null', null, ''],
    ['a number', 42, ''],
    ['an array', [{ object: 'instagram', entry: [] }], ''],
    ['another object', { object: 'whatsapp_business_account', entry: [] }, 'object'],
    ['no object', { entry: [] }, 'object'],
    ['no entry', { object: 'instagram' }, 'entry'],
    ['entry not a list', { object: 'instagram', entry: {} }, 'entry'],
  ])('%s: no fact, one skipped item', (_name, body, path) => {
    const { facts, skipped } = decodeInstagramWebhook(body);
    expect(facts).toEqual([]);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.path).toBe(path);
  });

  it("an empty entry, an unread field, a Page's changes, a handover: skipped with reasons", () => {
    const comments = read(fixture('comment'), 'entry', 0, 'changes', 0);
    const { facts, skipped } = decodeInstagramWebhook({
      object: 'instagram',
      entry: [
        { id: ACCOUNT },
        { id: ACCOUNT, changes: [{ field: 'mentions', value: { media_id: '1' } }, comments] },
        { id: ACCOUNT, messaging: [{ sender: { id: IGSID }, recipient: { id: ACCOUNT }, timestamp: 1, optin: {} }] },
      ],
    });
    expect(facts.map((f) => f.kind)).toEqual(['comment']);
    expect(skipped).toEqual([
      { path: 'entry[0]', reason: 'no messaging, standby or changes' },
      { path: 'entry[1].changes[0]', reason: 'field "mentions" is not read' },
      { path: 'entry[2].messaging[0]', reason: 'an opt-in: nothing was written' },
    ]);
    const page = decodeInstagramWebhook({ object: 'page', entry: [{ id: '1', changes: [comments] }] });
    expect(page).toEqual({
      facts: [],
      skipped: [{ path: 'entry[0].changes', reason: "a Page's changes: not the instagram account's" }],
    });
  });

  it.each([
    ['no mid', { mid: undefined }, {}, 'message.mid: not a non-empty string'],
    ['no sender', {}, { sender: undefined }, 'sender: not an object'],
    ['a recipient without id', {}, { recipient: {} }, 'recipient.id: not a non-empty string'],
    ['a timestamp that is no number', {}, { timestamp: 'yesterday' }, 'timestamp: not unix seconds or milliseconds'],
    [
      'a timestamp past year 9999',
      {},
      { timestamp: 999_999_999_999_999 },
      'timestamp: not unix seconds or milliseconds',
    ],
    ['no text and nothing else', { text: undefined }, {}, 'message: no text, attachment or is_unsupported'],
    ['a huge text', { text: 'a'.repeat(5_000_000) }, {}, 'message.text: longer than 4096 characters'],
    ['a huge mid', { mid: 'm'.repeat(300) }, {}, 'message.mid: longer than 256 characters'],
    ['attachments that are no list', { attachments: {} }, {}, 'message.attachments: not a list'],
    [
      '10,000 attachments',
      { attachments: Array.from({ length: 10_000 }, () => ({ type: 'image', payload: { url: CDN } })) },
      {},
      'message.attachments: more than 20 attachments',
    ],
    ['an attachment without type', { attachments: [{}] }, {}, 'message.attachments[0].type: not a non-empty string'],
    [
      'a story reply without id',
      { reply_to: { story: { url: CDN } } },
      {},
      'message.reply_to.story.id: not a non-empty string',
    ],
    ['a quick reply that is a list', { quick_reply: [] }, {}, 'message.quick_reply: not an object'],
    ['nothing in the item', {}, { message: undefined }, 'no message, postback, reaction, message_edit or read'],
  ])('a message with %s is skipped, its reason given', (_name, patch, itemPatch, reason) => {
    expect(decodeInstagramWebhook(messageWith(patch, itemPatch))).toEqual({
      facts: [],
      skipped: [{ path: ITEM_PATH, reason }],
    });
  });

  it('timestamps in seconds, and as strings of digits, are read', () => {
    expect(decodeInstagramWebhook(messageWith({}, { timestamp: 1761287294 })).facts[0]).toMatchObject({
      timestamp: '2025-10-24T06:28:14.000Z',
    });
    expect(decodeInstagramWebhook(messageWith({}, { timestamp: '1761287294014' })).facts[0]).toMatchObject({
      timestamp: AT,
    });
  });

  it('an attachment URL that is not https, or absent, is no URL: the message stands, its media missing', () => {
    const { facts } = decodeInstagramWebhook(
      messageWith({
        text: undefined,
        attachments: [
          { type: 'image', payload: { url: 'http://169.254.169.254/latest' } },
          { type: 'video', payload: { url: 'file:///etc/passwd' } },
          { type: 'story_mention' },
          { type: 'location', payload: { coordinates: {} } },
        ],
      }),
    );
    expect(facts).toEqual([
      message({
        attachments: [
          { type: 'image', url: null, mediaId: null, title: null },
          { type: 'video', url: null, mediaId: null, title: null },
          { type: 'story_mention', url: null, mediaId: null, title: null },
          { type: 'unsupported', metaType: 'location' },
        ],
      }),
    ]);
  });

  it("a shared post's long title is cut, not skipped", () => {
    const { facts } = decodeInstagramWebhook(
      messageWith({ attachments: [{ type: 'ig_post', payload: { url: CDN, title: 't'.repeat(5000) } }] }),
    );
    expect(facts[0]).toMatchObject({ attachments: [{ title: 't'.repeat(DECODE_LIMITS.title) }] });
  });

  it.each([
    ['a reaction of another action', { reaction: { mid: MID, action: 'wave' } }, 'reaction.action: "wave" is not read'],
    ['a reaction without mid', { reaction: { action: 'react', emoji: '👍' } }, 'reaction.mid: not a non-empty string'],
    ['an edit without text', { message_edit: { mid: MID, num_edit: 1 } }, 'message_edit.text: not a non-empty string'],
    [
      'an edit count of -1',
      { message_edit: { mid: MID, text: 'x', num_edit: -1 } },
      'message_edit.num_edit: not a count',
    ],
    ['a postback without title', { postback: { payload: 'x' } }, 'postback.title: not a non-empty string'],
  ])('%s is skipped, its reason given', (_name, itemPatch, reason) => {
    const body = messageWith({}, { message: undefined, ...itemPatch });
    expect(decodeInstagramWebhook(body)).toEqual({ facts: [], skipped: [{ path: ITEM_PATH, reason }] });
  });

  it('an edit count sent as a string (as the Messenger page shows it) is read', () => {
    const body = messageWith({}, { message: undefined, message_edit: { mid: MID, text: 'x', num_edit: '2' } });
    expect(decodeInstagramWebhook(body).facts[0]).toMatchObject({ kind: 'message_edit', editCount: 2 });
  });

  it.each([
    ['no from', { from: undefined }, 'value.from: not an object'],
    ['no username', { from: { id: IGSID } }, 'value.from.username: not a non-empty string'],
    ['no media', { media: undefined }, 'value.media: not an object'],
    ['no id', { id: undefined }, 'value.id: not a non-empty string'],
    ['a huge text', { text: 'a'.repeat(4097) }, 'value.text: longer than 4096 characters'],
  ])('a comment with %s is skipped, its reason given', (_name, patch, reason) => {
    const body = structuredClone(fixture('comment'));
    const change = read(body, 'entry', 0, 'changes', 0);
    const value = read(change, 'value');
    if (!isObject(change) || !isObject(value)) throw new Error('no change');
    change.value = { ...value, ...patch };
    expect(decodeInstagramWebhook(body)).toEqual({
      facts: [],
      skipped: [{ path: 'entry[0].changes[0]', reason }],
    });
  });

  it('a comment with a bad entry.time keeps the comment, without its time', () => {
    const body = structuredClone(fixture('comment'));
    const entry = read(body, 'entry', 0);
    if (!isObject(entry)) throw new Error('no entry');
    entry.time = 'soon';
    expect(decodeInstagramWebhook(body).facts[0]).toMatchObject({ kind: 'comment', timestamp: null });
  });

  it(`10,000 messaging items: at most ${DECODE_LIMITS.items} items read, the rest named once, quickly`, () => {
    const item = read(fixture('text'), 'entry', 0, 'messaging', 0);
    const body = {
      object: 'instagram',
      entry: [{ id: ACCOUNT, messaging: Array.from({ length: 10_000 }, () => item) }],
    };
    const started = Date.now();
    const { facts, skipped } = decodeInstagramWebhook(body);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(facts).toHaveLength(DECODE_LIMITS.items - 1);
    expect(skipped).toEqual([{ path: 'entry[0].messaging[999]', reason: 'over 1000 items: not read' }]);
  });

  it('10,000 junk entries: bounded facts and skipped items', () => {
    const { facts, skipped } = decodeInstagramWebhook({
      object: 'instagram',
      entry: Array.from({ length: 10_000 }, () => null),
    });
    expect(facts).toEqual([]);
    expect(skipped).toHaveLength(DECODE_LIMITS.items + 1);
  });

  it('deep junk everywhere does not throw', () => {
    const shapes: unknown[] = [null, 0, '', 'x', [], {}, [null], { a: 1 }, true, 1e20];
    for (const a of shapes)
      for (const b of shapes) {
        const thread = { sender: { id: b }, recipient: a, timestamp: b };
        const body = {
          object: 'instagram',
          entry: [
            {
              id: a,
              time: b,
              messaging: [
                b,
                { ...thread, message: { mid: 'm', text: b, attachments: a, reply_to: b, quick_reply: a } },
                {
                  sender: { id: '1' },
                  recipient: { id: '2' },
                  timestamp: 1,
                  message: { mid: 'm', attachments: [a, b] },
                },
                { ...thread, postback: a, reaction: b },
                { sender: { id: '1' }, recipient: { id: '2' }, timestamp: 1, reaction: a, message_edit: b, read: a },
              ],
              standby: [a, { ...thread, message: b }],
              changes: [b, { field: 'comments', value: { id: a, from: b, media: a, text: b } }],
            },
          ],
        };
        expect(() => decodeInstagramWebhook(body)).not.toThrow();
      }
  });
});

describe('what each fact becomes (inbound.ts)', () => {
  const decoded = (name: string): InstagramFact => {
    const fact = decodeInstagramWebhook(fixture(name)).facts[0];
    if (fact === undefined) throw new Error(`${name} holds a fact`);
    return fact;
  };
  const NONE: InboundContext = { found: null, iceBreaker: false };
  const foundBy = (senderType: string): InboundContext => ({
    found: { id: 'our-message-id', senderType },
    iceBreaker: false,
  });

  it("a text: a message from the contact's IGSID, no username, Meta's time", () => {
    expect(decisionOf(decoded('text'), NONE)).toEqual({
      action: 'record',
      inbound: {
        providerMessageId: MID,
        type: 'message',
        from: { instagram_id: IGSID, username: null },
        text: 'Do you ship to Lisbon?',
        media: [],
        post: null,
        reply_to_message_id: null,
        button: null,
        parent_comment_id: null,
        is_unsupported: false,
        created_at: AT,
      },
    });
  });

  it.each([
    ['image', 'image', 'image'],
    ['video', 'video', 'video'],
    ['audio', 'audio', 'audio'],
    ['file', 'file', 'file'],
    ['ig-reel', 'video', 'ig_reel'],
  ])('%s: a message whose %s is fetched from its URL', (name, type, metaType) => {
    expect(decisionOf(decoded(name), NONE)).toMatchObject({
      action: 'record',
      inbound: { type: 'message', text: null, media: [{ type, url: CDN, metaType }], is_unsupported: false },
    });
  });

  it('a shared post: one image, the ig_post (its share twin is left out)', () => {
    expect(decisionOf(decoded('post-share'), NONE)).toMatchObject({
      inbound: { media: [{ type: 'image', url: CDN, metaType: 'ig_post' }] },
    });
    expect(mediaOf([{ type: 'share', url: CDN, mediaId: '1', title: null }])).toEqual([
      { type: 'image', url: CDN, metaType: 'share' },
    ]);
  });

  it('a story reply: story_message, the story as its post, the text', () => {
    expect(decisionOf(decoded('story-reply'), NONE)).toMatchObject({
      inbound: {
        type: 'story_message',
        text: 'Love this look!',
        post: { type: 'story', id: '17920304815254107', url: CDN },
      },
    });
  });

  it('a story mention: story_mention, the story as its post and its media', () => {
    expect(decisionOf(decoded('story-mention'), NONE)).toMatchObject({
      inbound: {
        type: 'story_mention',
        text: null,
        post: { type: 'story', id: null, url: CDN },
        media: [{ type: 'image', url: CDN, metaType: 'story_mention' }],
      },
    });
  });

  it('a reply to a message: the message the domain found', () => {
    const fact = decoded('reply-to-message');
    expect(lookupOf(fact)).toEqual({ replyToMid: REPLY_MID, buttonPayload: null });
    expect(decisionOf(fact, foundBy('user'))).toMatchObject({
      inbound: { reply_to_message_id: 'our-message-id', button: null },
    });
  });

  it.each([
    ['api', false, 'api'],
    ['workflow', false, 'workflow'],
    ['user', false, 'other'],
    [null, true, 'ice_breaker'],
    [null, false, 'other'],
  ])('a postback on a message sent by %s (ice breaker %s): source %s, text the title', (sender, iceBreaker, source) => {
    const fact = decoded('postback');
    expect(lookupOf(fact)).toEqual({ replyToMid: null, buttonPayload: 'track_order' });
    const context: InboundContext = sender === null ? { found: null, iceBreaker } : foundBy(sender);
    expect(decisionOf(fact, context)).toMatchObject({
      action: 'record',
      inbound: {
        type: 'message',
        text: 'Track my order',
        reply_to_message_id: sender === null ? null : 'our-message-id',
        button: { id: 'track_order', title: 'Track my order', source },
      },
    });
  });

  it("a quick reply: a tap whose id is the payload, source from the button's message", () => {
    const fact = decoded('quick-reply');
    expect(lookupOf(fact)).toEqual({ replyToMid: null, buttonPayload: 'confirm_order' });
    expect(decisionOf(fact, foundBy('workflow'))).toMatchObject({
      inbound: { text: 'Yes, please', button: { id: 'confirm_order', title: 'Yes, please', source: 'workflow' } },
    });
  });

  it.each(['unsupported'])('%s: is_unsupported, no text, no media', (name) => {
    expect(decisionOf(decoded(name), NONE)).toMatchObject({
      action: 'record',
      inbound: { text: null, media: [], is_unsupported: true },
    });
  });

  it('only attachments of types not read: is_unsupported', () => {
    const fact = message({ attachments: [{ type: 'unsupported', metaType: 'location' }] });
    expect(decisionOf(fact, NONE)).toMatchObject({ inbound: { media: [], is_unsupported: true } });
  });

  it("an echo: the account's message, for the domain to store unless its mid is ours", () => {
    expect(decisionOf(decoded('echo'), NONE)).toEqual({
      action: 'account_message',
      message: {
        providerMessageId: MID,
        contactId: IGSID,
        text: 'Yes, we ship to Portugal.',
        media: [],
        is_unsupported: false,
        created_at: AT,
      },
    });
  });

  it('a reaction and its removal, an edit: updates; an unsend: a delete; a read: nothing', () => {
    expect(decisionOf(decoded('reaction'), NONE)).toEqual({
      action: 'update',
      providerMessageId: REPLY_MID,
      change: { type: 'reaction', emoji: '❤️', at: AT },
    });
    expect(decisionOf(decoded('unreaction'), NONE)).toMatchObject({ change: { type: 'reaction', emoji: null } });
    expect(decisionOf(decoded('message-edit'), NONE)).toEqual({
      action: 'update',
      providerMessageId: MID,
      change: { type: 'edit', text: 'Do you ship to Porto?', at: AT },
    });
    expect(decisionOf(decoded('deleted'), NONE)).toEqual({ action: 'delete', providerMessageId: MID });
    expect(decisionOf(decoded('read'), NONE)).toMatchObject({ action: 'ignore' });
  });

  it('an edit count of 0: nothing changed', () => {
    const fact = { kind: 'message_edit' as const, ...THREAD, messageId: MID, text: 'x', editCount: 0 };
    expect(decisionOf(fact, NONE)).toMatchObject({ action: 'ignore' });
  });

  it('standby: the thread is taken; any other thread item gives it back, a comment does not', () => {
    expect(decisionOf(decoded('standby'), NONE)).toEqual({
      action: 'thread_taken',
      accountId: ACCOUNT,
      contactId: IGSID,
    });
    expect(threadOf(decoded('standby'))).toBeNull();
    expect(threadOf(decoded('comment'))).toBeNull();
    for (const name of ['text', 'echo', 'reaction', 'read', 'postback'])
      expect(threadOf(decoded(name))).toEqual({ accountId: ACCOUNT, contactId: IGSID });
  });

  it('a comment: comment, the post, the author with username; a reply keeps its parent', () => {
    expect(decisionOf(decoded('comment'), NONE)).toEqual({
      action: 'record',
      inbound: {
        providerMessageId: '17865799348089039',
        type: 'comment',
        from: { instagram_id: IGSID, username: 'sheena.nelson' },
        text: 'How much is the green one?',
        media: [],
        post: { type: 'feed', id: '18023345678901234', url: null },
        reply_to_message_id: null,
        button: null,
        parent_comment_id: null,
        is_unsupported: false,
        created_at: '2025-10-24T06:28:18.000Z',
      },
    });
    expect(decisionOf(decoded('comment-reply'), NONE)).toMatchObject({
      inbound: { parent_comment_id: '17865799348089039' },
    });
  });

  it("an ad's comment: the author's thread id, the organic post the ad copies", () => {
    expect(decisionOf(decoded('comment-ad'), NONE)).toMatchObject({
      inbound: {
        providerMessageId: '17919697626119712',
        from: { instagram_id: IGSID, username: 'sheena.nelson' },
        post: { type: 'feed', id: '18023345678901234' },
      },
    });
  });

  it('a live comment: live_comment on the live', () => {
    expect(decisionOf(decoded('live-comment'), NONE)).toMatchObject({
      inbound: { type: 'live_comment', post: { type: 'live', id: '18045678901234567' } },
    });
  });

  it("the account's own comment: nothing", () => {
    const fact = decoded('comment');
    if (fact.kind !== 'comment') throw new Error('a comment');
    expect(decisionOf({ ...fact, from: { ...fact.from, id: ACCOUNT } }, NONE)).toMatchObject({ action: 'ignore' });
  });
});
