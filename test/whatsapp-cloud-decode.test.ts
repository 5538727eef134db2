// Meta's WhatsApp Cloud API webhook, decoded (issue 35, section 3): each kind's documented example
// (test/fixtures/whatsapp-cloud/, sources in its README) decodes to the full fact it states; junk never throws and
// is bounded; and the mapping to what the domain records (server/channels/whatsapp-cloud/inbound.ts) follows the
// seeds: a tap's `button.source`, `is_unsupported`, reactions ignored.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DECODE_LIMITS,
  decodeWhatsAppWebhook,
  type WhatsAppContent,
  type WhatsAppMediaType,
  type WhatsAppMessageFact,
} from '../server/channels/whatsapp-cloud/decode.js';
import { isObject } from '../server/channels/whatsapp-cloud/read.js';
import { inboundButtonOf, inboundOf, phoneOfWaId, STATUS_RANK } from '../server/channels/whatsapp-cloud/inbound.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/whatsapp-cloud/${name}.json`, import.meta.url), 'utf8'));

const PHONE_NUMBER_ID = '106540352242922';
const WAMID = 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=';
const CONTEXT_WAMID = 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=';
/** Meta's example `timestamp` "1739321024". */
const AT = '2025-02-12T00:43:44.000Z';
const SHEENA = { waId: '16505551234', name: 'Sheena Nelson' };

/** The fact of the examples' one message, with its content (and `replyTo` when it answers ours). */
const message = (content: WhatsAppContent, replyTo: string | null = null): WhatsAppMessageFact => ({
  kind: 'message',
  phoneNumberId: PHONE_NUMBER_ID,
  from: SHEENA,
  messageId: WAMID,
  timestamp: AT,
  replyTo,
  content,
});

const media = (
  mediaType: WhatsAppMediaType,
  mediaId: string,
  mimeType: string,
  caption: string | null,
  filename: string | null = null,
): WhatsAppContent => ({ type: 'media', mediaType, mediaId, mimeType, caption, filename });

describe("Meta's webhook examples, decoded", () => {
  it.each([
    ['text', message({ type: 'text', text: 'Does it come in another color?' })],
    [
      'interactive-button-reply',
      message({ type: 'button_reply', id: 'cancel-button', title: 'Cancel' }, CONTEXT_WAMID),
    ],
    [
      'interactive-list-reply',
      message(
        {
          type: 'list_reply',
          id: 'priority_express',
          title: 'Priority Mail Express',
          description: 'Next Day to 2 Days',
        },
        CONTEXT_WAMID,
      ),
    ],
    [
      'button-template-quick-reply',
      message({ type: 'template_button', payload: 'Unsubscribe', text: 'Unsubscribe' }, CONTEXT_WAMID),
    ],
    ['image', message(media('image', '1003383421387256', 'image/jpeg', 'Is this the one you meant?'))],
    ['video', message(media('video', '1166846181421424', 'video/mp4', 'Here is how it looks in my garden'))],
    ['audio', message(media('audio', '1013859600285441', 'audio/ogg; codecs=opus', null))],
    [
      'document',
      message(
        media('document', '1003383421387257', 'application/pdf', 'Lucky Shrub Invoice', 'lucky-shrub-invoice.pdf'),
      ),
    ],
    ['sticker', message(media('sticker', '1234567890987654', 'image/webp', null))],
    ['unsupported', message({ type: 'unsupported', metaType: 'poll_update' })],
    ['unknown-type', message({ type: 'unsupported', metaType: 'unknown' })],
    ['reaction', message({ type: 'reaction', messageId: CONTEXT_WAMID, emoji: '👍' })],
  ])('%s', (name, fact) => {
    expect(decodeWhatsAppWebhook(fixture(name))).toEqual({ facts: [fact], skipped: [] });
  });

  const status = (status: string, timestamp: string, error: unknown = null) => ({
    kind: 'status',
    phoneNumberId: PHONE_NUMBER_ID,
    messageId: WAMID,
    status,
    timestamp,
    recipientId: '16505551234',
    error,
  });

  it.each([
    ['status-sent', status('sent', AT)],
    ['status-delivered', status('delivered', '2025-02-12T00:43:50.000Z')],
    ['status-read', status('read', '2025-02-12T00:44:44.000Z')],
  ])('%s: no error', (name, fact) => {
    expect(decodeWhatsAppWebhook(fixture(name))).toEqual({ facts: [fact], skipped: [] });
  });

  it("status-failed: errors[0]'s code, and error_data.details before message and title", () => {
    const details =
      'Unable to deliver message. Reasons can include: the recipient phone number is not a WhatsApp phone number; ' +
      'the recipient has not accepted our new Terms of Service and Privacy Policy; the recipient is using an old ' +
      'WhatsApp version.';
    expect(decodeWhatsAppWebhook(fixture('status-failed'))).toEqual({
      facts: [status('failed', AT, { code: '131026', message: details })],
      skipped: [],
    });
  });

  it('template-status-update: the business account (entry.id) whose template Meta changed, as a fact', () => {
    expect(decodeWhatsAppWebhook(fixture('template-status-update'))).toEqual({
      facts: [
        { kind: 'template_change', wabaId: '102290129340398', event: 'PAUSED', name: 'welcome', language: 'pt_BR' },
      ],
      skipped: [],
    });
  });

  it("value.errors: an error Meta reports for the number itself, as a fact (an operator's to read)", () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
                errors: [
                  {
                    code: 131000,
                    title: 'Something went wrong',
                    message: 'Something went wrong',
                    error_data: { details: 'Message failed to send because of an unknown error.' },
                  },
                ],
              },
            },
          ],
        },
      ],
    };
    expect(decodeWhatsAppWebhook(body)).toEqual({
      facts: [
        {
          kind: 'number_error',
          phoneNumberId: '106540352242922',
          error: { code: '131000', message: 'Message failed to send because of an unknown error.' },
        },
      ],
      skipped: [],
    });
  });

  it('contacts[].profile.name names each message by its sender, not by position', () => {
    const { facts, skipped } = decodeWhatsAppWebhook(fixture('contacts-profile-name'));
    expect(skipped).toEqual([]);
    expect(facts).toEqual([
      {
        ...message({ type: 'text', text: 'Hi, I am new here' }),
        from: { waId: '16505559876', name: 'Pablo Morales' },
        messageId: 'wamid.HBgLMTY1MDU1NTk4NzYVAgASGBQzQUZBQjM3RjY4QzEwRDk3NjQwMQA=',
      },
      { ...message({ type: 'text', text: 'And I am Sheena' }), timestamp: '2025-02-12T00:44:44.000Z' },
    ]);
  });

  it('two entries and several messages: every message, in payload order, each with its number', () => {
    const { facts, skipped } = decodeWhatsAppWebhook(fixture('two-entries-several-messages'));
    expect(skipped).toEqual([]);
    expect(facts).toEqual([
      message({ type: 'text', text: 'First' }),
      {
        ...message({ type: 'text', text: 'Second' }),
        messageId: 'wamid.HBgLMTY1MDU1NTEyMzQVAgASGBQzRUIwQzc2QjZGRDc1RDc4MjYxRgA=',
        timestamp: '2025-02-12T00:43:45.000Z',
      },
      {
        ...message({ type: 'text', text: 'To the other number' }),
        phoneNumberId: '106540352242923',
        messageId: 'wamid.HBgLMTY1MDU1NTEyMzQVAgASGBQzRUIwODJDRDlCQjU0RjQ3NDUyNwA=',
        timestamp: '2025-02-12T00:43:46.000Z',
      },
    ]);
  });

  it('a message and statuses in the same change: both, messages first', () => {
    expect(decodeWhatsAppWebhook(fixture('message-and-statuses'))).toEqual({
      facts: [
        {
          ...message({ type: 'text', text: 'Thanks, got it' }, CONTEXT_WAMID),
          messageId: 'wamid.HBgLMTY1MDU1NTEyMzQVAgASGBQzRUIwQzc2QjZGRDc1RDc4MjYxRgA=',
        },
        { ...status('read', '2025-02-12T00:44:44.000Z'), messageId: CONTEXT_WAMID },
      ],
      skipped: [],
    });
  });
});

/** The text example with its one message replaced by `patch` of it (undefined values delete a key). */
function textWith(patch: Record<string, unknown>): unknown {
  const body = structuredClone(fixture('text'));
  const value = valueOf(body);
  value.messages = [{ ...itemOf(value.messages, 0), ...patch }];
  return body;
}

/** The first change's `value` of a payload built from the examples (the object itself, to change it). */
function valueOf(body: unknown): Record<string, unknown> {
  const value = read(body, 'entry', 0, 'changes', 0, 'value');
  if (!isObject(value)) throw new Error('no value');
  return value;
}

/** The object at `list[index]`, to copy into a changed one. */
function itemOf(list: unknown, index: number): Record<string, unknown> {
  const item: unknown = Array.isArray(list) ? list[index] : undefined;
  if (!isObject(item)) throw new Error(`no item ${index}`);
  return item;
}

/** A value down a path of keys and indexes (test helper over parsed JSON). */
function read(value: unknown, ...path: (string | number)[]): unknown {
  let at: unknown = value;
  for (const key of path) at = typeof at === 'object' && at !== null ? Reflect.get(at, key) : undefined;
  return at;
}

const MESSAGE_PATH = 'entry[0].changes[0].value.messages[0]';

describe('junk never throws, and is bounded', () => {
  it.each([
    ['null', null, ''],
    ['a number', 42, ''],
    ['a string', 'whatsapp_business_account', ''],
    ['an array', [{ object: 'whatsapp_business_account', entry: [] }], ''],
    ['another object', { object: 'instagram', entry: [] }, 'object'],
    ['no object', { entry: [] }, 'object'],
    ['no entry', { object: 'whatsapp_business_account' }, 'entry'],
    ['entry not a list', { object: 'whatsapp_business_account', entry: {} }, 'entry'],
  ])('%s: no fact, one skipped item', (_name, body, path) => {
    const { facts, skipped } = decodeWhatsAppWebhook(body);
    expect(facts).toEqual([]);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]?.path).toBe(path);
  });

  it('an entry without changes, a change of another field, a change without metadata: skipped with reasons', () => {
    const text = fixture('text');
    const change = read(text, 'entry', 0, 'changes', 0);
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        { id: '1' },
        {
          id: '2',
          changes: [
            { field: 'account_update', value: { event: 'VERIFIED_ACCOUNT' } },
            { field: 'messages', value: { messaging_product: 'whatsapp', messages: [] } },
            change,
          ],
        },
      ],
    };
    const { facts, skipped } = decodeWhatsAppWebhook(body);
    expect(facts).toEqual([message({ type: 'text', text: 'Does it come in another color?' })]);
    expect(skipped).toEqual([
      { path: 'entry[0]', reason: 'changes: not a list' },
      { path: 'entry[1].changes[0]', reason: 'field "account_update" is not read' },
      { path: 'entry[1].changes[1]', reason: 'value.metadata: not an object' },
    ]);
  });

  it.each([
    ['no from', { from: undefined }, 'from: not a non-empty string'],
    ['no id', { id: undefined }, 'id: not a non-empty string'],
    ['a number for a type', { type: 7 }, 'type: not a non-empty string'],
    ['a timestamp that is no number', { timestamp: 'yesterday' }, 'timestamp: not unix seconds'],
    ['a timestamp past year 9999', { timestamp: '999999999999' }, 'timestamp: not unix seconds'],
    ['a text without its body', { text: {} }, 'text.body: not a non-empty string'],
    ['a text of 4097 characters', { text: { body: 'a'.repeat(4097) } }, 'text.body: longer than 4096 characters'],
    ['a huge text', { text: { body: 'a'.repeat(5_000_000) } }, 'text.body: longer than 4096 characters'],
    ['a huge wamid', { id: `wamid.${'x'.repeat(300)}` }, 'id: longer than 256 characters'],
    ['a huge context id', { context: { id: 'x'.repeat(257) } }, 'context.id: longer than 256 characters'],
    ['a context that is a list', { context: [] }, 'context: not an object'],
    [
      'an image without its id',
      { type: 'image', image: { mime_type: 'image/jpeg' } },
      'image.id: not a non-empty string',
    ],
    [
      'a button reply without a title',
      { type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: 'a' } } },
      'button_reply.title: not a non-empty string',
    ],
    [
      'a system notice',
      { type: 'system', system: { body: 'User A changed number' } },
      'a system notice (a number or identity change), not a message the contact wrote',
    ],
    ['a group message', { group_id: 'g-1' }, 'a message in a group chat: conversations are one-to-one'],
  ])('a message with %s is skipped, its reason given', (_name, patch, reason) => {
    expect(decodeWhatsAppWebhook(textWith(patch))).toEqual({ facts: [], skipped: [{ path: MESSAGE_PATH, reason }] });
  });

  it('a text of exactly 4096 characters (emoji counted as one) is read', () => {
    const body = '😀'.repeat(4096);
    const { facts } = decodeWhatsAppWebhook(textWith({ text: { body } }));
    expect(facts).toEqual([message({ type: 'text', text: body })]);
  });

  it('a timestamp sent as a number is read', () => {
    const { facts } = decodeWhatsAppWebhook(textWith({ timestamp: 1739321024 }));
    expect(facts[0]).toMatchObject({ timestamp: AT });
  });

  it('an interactive reply of another kind and a location are unsupported messages', () => {
    const flow = decodeWhatsAppWebhook(textWith({ type: 'interactive', interactive: { type: 'nfm_reply' } }));
    expect(flow.facts).toEqual([message({ type: 'unsupported', metaType: 'interactive.nfm_reply' })]);
    const location = decodeWhatsAppWebhook(textWith({ type: 'location', location: { latitude: 1, longitude: 2 } }));
    expect(location.facts).toEqual([message({ type: 'unsupported', metaType: 'location' })]);
  });

  it('a malformed contact leaves its message unnamed; the message stands', () => {
    const body = fixture('text');
    valueOf(body).contacts = [{ wa_id: '16505551234', profile: { name: 'n'.repeat(300) } }];
    const { facts, skipped } = decodeWhatsAppWebhook(body);
    expect(facts).toEqual([
      {
        ...message({ type: 'text', text: 'Does it come in another color?' }),
        from: { waId: '16505551234', name: null },
      },
    ]);
    expect(skipped).toEqual([
      { path: 'entry[0].changes[0].value.contacts[0]', reason: 'profile.name: longer than 256 characters' },
    ]);
  });

  it('one bad message among good ones is skipped alone', () => {
    const body = fixture('two-entries-several-messages');
    const messages = valueOf(body).messages;
    if (!Array.isArray(messages)) throw new Error('messages');
    messages.splice(1, 0, 'junk', { type: 'text' });
    const { facts, skipped } = decodeWhatsAppWebhook(body);
    expect(facts.map((f) => f.kind === 'message' && f.content)).toEqual([
      { type: 'text', text: 'First' },
      { type: 'text', text: 'Second' },
      { type: 'text', text: 'To the other number' },
    ]);
    expect(skipped).toEqual([
      { path: 'entry[0].changes[0].value.messages[1]', reason: 'message: not an object' },
      { path: 'entry[0].changes[0].value.messages[2]', reason: 'from: not a non-empty string' },
    ]);
  });

  it('statuses: an unknown status is skipped; a failed one without errors has no error; a long error is cut', () => {
    const body = fixture('status-failed');
    const value = valueOf(body);
    const failed = itemOf(value.statuses, 0);
    value.statuses = [
      { ...failed, status: 'deleted' },
      { ...failed, errors: undefined },
      { ...failed, errors: [{ code: 131000, title: 'x'.repeat(5000) }] },
    ];
    const { facts, skipped } = decodeWhatsAppWebhook(body);
    expect(skipped).toEqual([
      { path: 'entry[0].changes[0].value.statuses[0]', reason: 'status "deleted" is not read' },
    ]);
    expect(facts.map((f) => f.kind === 'status' && f.error)).toEqual([
      null,
      { code: '131000', message: 'x'.repeat(DECODE_LIMITS.errorMessage) },
    ]);
  });

  it(`10,000 messages: at most ${DECODE_LIMITS.items} items read, the rest named once, quickly`, () => {
    const body = fixture('text');
    const value = valueOf(body);
    const first = itemOf(value.messages, 0);
    value.messages = Array.from({ length: 10_000 }, (_, i) => ({ ...first, id: `wamid.${i}` }));
    const started = Date.now();
    const { facts, skipped } = decodeWhatsAppWebhook(body);
    expect(Date.now() - started).toBeLessThan(2000);
    // The entry, the change and the contact are items too.
    expect(facts).toHaveLength(DECODE_LIMITS.items - 3);
    expect(skipped).toEqual([{ path: `${MESSAGE_PATH.slice(0, -3)}[997]`, reason: 'over 1000 items: not read' }]);
  });

  it('10,000 junk entries: bounded facts and skipped items', () => {
    const { facts, skipped } = decodeWhatsAppWebhook({
      object: 'whatsapp_business_account',
      entry: Array.from({ length: 10_000 }, () => null),
    });
    expect(facts).toEqual([]);
    expect(skipped).toHaveLength(DECODE_LIMITS.items + 1);
  });

  it('deep junk everywhere does not throw', () => {
    const shapes: unknown[] = [null, 0, '', 'x', [], {}, [null], { a: 1 }, true];
    for (const a of shapes)
      for (const b of shapes) {
        const body = {
          object: 'whatsapp_business_account',
          entry: [
            {
              changes: [
                {
                  field: 'messages',
                  value: {
                    metadata: { phone_number_id: '1' },
                    contacts: a,
                    messages: [b, { type: b, from: b, id: b, timestamp: b, text: b, context: b }],
                    statuses: [b, { status: 'failed', id: 'w', timestamp: '1', recipient_id: 'r', errors: a }],
                  },
                },
              ],
            },
          ],
        };
        expect(() => decodeWhatsAppWebhook(body)).not.toThrow();
      }
  });
});

describe('what the domain records (inbound.ts)', () => {
  const decoded = (name: string) => {
    const fact = decodeWhatsAppWebhook(fixture(name)).facts[0];
    if (fact?.kind !== 'message') throw new Error(`${name} holds a message`);
    return fact;
  };
  const quotedBy = (senderType: string) => ({ id: 'our-message-id', senderType });

  it('a text: the phone in E.164, the profile name, Meta time, no reply', () => {
    expect(inboundOf(decoded('text'), null)).toEqual({
      action: 'record',
      inbound: {
        providerMessageId: WAMID,
        from: { phone: '+16505551234', name: 'Sheena Nelson' },
        text: 'Does it come in another color?',
        media: null,
        reply_to_message_id: null,
        button: null,
        is_unsupported: false,
        created_at: AT,
      },
    });
  });

  it.each([
    ['api', 'api'],
    ['workflow', 'workflow'],
    ['user', 'other'],
    ['unattributed', 'other'],
  ])(
    'a tap on a reply button of a message sent by %s: source %s, text the title, reply to our message',
    (sender, source) => {
      const decision = inboundOf(decoded('interactive-button-reply'), quotedBy(sender));
      expect(decision).toMatchObject({
        action: 'record',
        inbound: {
          text: 'Cancel',
          reply_to_message_id: 'our-message-id',
          button: { id: 'cancel-button', title: 'Cancel', source },
          is_unsupported: false,
        },
      });
    },
  );

  it('a tap whose message is not found: source other, no reply', () => {
    expect(inboundOf(decoded('interactive-button-reply'), null)).toMatchObject({
      inbound: { reply_to_message_id: null, button: { id: 'cancel-button', title: 'Cancel', source: 'other' } },
    });
  });

  it('a list row: the row id and title, source as for a reply button', () => {
    expect(inboundButtonOf(decoded('interactive-list-reply').content, quotedBy('workflow'))).toEqual({
      id: 'priority_express',
      title: 'Priority Mail Express',
      source: 'workflow',
    });
  });

  it("a template's quick reply: the payload as id, source other even on an api message", () => {
    expect(inboundOf(decoded('button-template-quick-reply'), quotedBy('api'))).toMatchObject({
      inbound: { text: 'Unsubscribe', button: { id: 'Unsubscribe', title: 'Unsubscribe', source: 'other' } },
    });
  });

  it.each([
    ['image', 'image', 'Is this the one you meant?', null],
    ['video', 'video', 'Here is how it looks in my garden', null],
    ['audio', 'audio', null, null],
    ['document', 'file', 'Lucky Shrub Invoice', 'lucky-shrub-invoice.pdf'],
    ['sticker', 'sticker', null, null],
  ])('%s: the caption as text, the media to fetch as a %s attachment', (name, type, caption, filename) => {
    const fact = decoded(name);
    const mediaId = fact.content.type === 'media' ? fact.content.mediaId : '';
    expect(inboundOf(fact, null)).toMatchObject({
      action: 'record',
      inbound: { text: caption, media: { type, mediaId, filename }, button: null, is_unsupported: false },
    });
  });

  it.each(['unsupported', 'unknown-type'])('%s: is_unsupported, no text, no media', (name) => {
    expect(inboundOf(decoded(name), null)).toMatchObject({
      action: 'record',
      inbound: { text: null, media: null, button: null, is_unsupported: true },
    });
  });

  it('a reaction: ignored (no message.updated on whatsapp)', () => {
    expect(inboundOf(decoded('reaction'), null)).toMatchObject({ action: 'ignore' });
  });

  it('a sender whose id is not a phone number: ignored', () => {
    expect(
      inboundOf({ ...decoded('text'), from: { waId: 'US.13491208655302741918', name: null } }, null),
    ).toMatchObject({
      action: 'ignore',
    });
  });

  it('phones: digits with or without +, at most 15, no leading zero', () => {
    expect(phoneOfWaId('16505551234')).toBe('+16505551234');
    expect(phoneOfWaId('+16505551234')).toBe('+16505551234');
    expect(phoneOfWaId('1'.repeat(16))).toBeNull();
    expect(phoneOfWaId('016505551234')).toBeNull();
    expect(phoneOfWaId('1650555123a')).toBeNull();
  });

  it('statuses rank forward: sent < delivered < read < failed', () => {
    expect(STATUS_RANK.sent).toBeLessThan(STATUS_RANK.delivered);
    expect(STATUS_RANK.delivered).toBeLessThan(STATUS_RANK.read);
    expect(STATUS_RANK.read).toBeLessThan(STATUS_RANK.failed);
  });
});
