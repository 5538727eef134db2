// The channel rules of a send (server/domain/messaging/send-rules.ts; Part A: the send route, Buttons,
// Template, Media size and type, Errors "Conversations and messages"; docs/decisions.md "Messaging").
// A plain unit test: no database, no HTTP. Every request body used here passes the spec's format check
// (SendMessageRequest), every refusal's envelope validates against its error schema, and every success's
// attachments (with the view's `url` added) validate against MessageAttachment.
import { TEMPLATE_FEATURES } from '../server/domain/console/templates.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin, { type FormatsPlugin } from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { SchemaTemplateFeature as TemplateFeature } from '../generated/admin-api.js';
import type { SchemaSendButton, SchemaSendCard, SchemaSendMessageRequest } from '../generated/api.js';
import { ApiError } from '../server/errors.js';
import {
  checkSend,
  fillTemplateBody,
  isHttpsUrl,
  MB,
  mediaFamily,
  normalizeContentType,
  textLength,
  withSignature,
  type Channel,
  type MediaInfo,
  type SendRulesContext,
  type TemplateInfo,
  FORMATS_OF_TYPE,
  LARGEST_MEDIA_BYTES,
  MEDIA_RULES,
} from '../server/domain/messaging/send-rules.js';
import type { OutboundContent } from '../server/channels/provider.js';
import { storedTemplate } from '../server/domain/messaging/send.js';
import { attachmentsView } from '../server/domain/messaging/views.js';
import { deref, type JsonObject } from '../scripts/lib/openapi.js';
import { bundledSpec } from './helpers.js';

// ajv-formats is CommonJS (`module.exports = plugin`): under NodeNext its default import is the plugin itself.
const addFormats = addFormatsPlugin as unknown as FormatsPlugin;

// ------------------------------------------------------------------------------------------ the spec's schemas

const SPEC_ID = 'https://spec.local/openapi.json';
const spec = bundledSpec();
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
addFormats(ajv);
ajv.addSchema({ ...spec, $id: SPEC_ID }, SPEC_ID);
const validators = new Map<string, ValidateFunction>();
function schema(name: string): ValidateFunction {
  let v = validators.get(name);
  if (!v) {
    v = ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/${name}` });
    validators.set(name, v);
  }
  return v;
}
function expectValid(name: string, value: unknown): void {
  const v = schema(name);
  const ok = v(value);
  expect(ok ? [] : v.errors, `${name}: ${JSON.stringify(value).slice(0, 300)}`).toEqual([]);
}

const ERROR_SCHEMAS: Record<string, string> = {
  invalid_message: 'InvalidMessageError',
  content_not_supported: 'ContentNotSupportedError',
  text_too_long: 'TextTooLongError',
  media_not_found: 'MediaNotFoundError',
  media_not_uploaded: 'MediaNotUploadedError',
  media_not_supported: 'MediaNotSupportedError',
  media_expired: 'MediaExpiredError',
  template_not_found: 'TemplateNotFoundError',
  template_not_approved: 'TemplateNotApprovedError',
  template_not_supported: 'TemplateNotSupportedError',
  template_variables_mismatch: 'TemplateVariablesMismatchError',
};

// ----------------------------------------------------------------------------------------------------- fixtures

const SIG = 'Enviado com Engagement Platform';
const SIGNED = `\n\n${SIG}`; // 33 code points
const BASE = 'https://api.engagement.example';

let seq = 0;
const newId = () => `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;
const UNKNOWN_MEDIA = 'fb2175ed-e35d-4583-996b-07082018dad4';

/** An uploaded media (bytes arrived). */
function upload(content_type: string, size = 1000, extra: Partial<MediaInfo> = {}): MediaInfo {
  return {
    id: newId(),
    origin: 'upload',
    uploaded: true,
    expired: false,
    content_type,
    size,
    filename: null,
    ...extra,
  };
}
/** A media received with a contact's message, still stored. */
function received(content_type: string, size = 1000, extra: Partial<MediaInfo> = {}): MediaInfo {
  return {
    id: newId(),
    origin: 'received',
    uploaded: true,
    expired: false,
    content_type,
    size,
    filename: null,
    expires_at: '2027-02-18T13:00:00.000000Z',
    ...extra,
  };
}

interface TestContext extends SendRulesContext {
  mediaLookups: string[];
  templateLookups: string[];
}

function ctxFor(
  channel: Channel,
  opts: { media?: MediaInfo[]; templates?: TemplateInfo[]; signature?: string | null } = {},
): TestContext {
  const media = opts.media ?? [];
  const templates = opts.templates ?? [];
  const ctx: TestContext = {
    channel,
    platformSignature: opts.signature === undefined ? SIG : opts.signature,
    mediaLookups: [],
    templateLookups: [],
    findMedia: async (id) => {
      ctx.mediaLookups.push(id);
      return media.find((m) => m.id === id);
    },
    findTemplate: async (name, language) => {
      ctx.templateLookups.push(`${name}/${language}`);
      return templates.find((t) => t.name === name && t.language === language);
    },
  };
  return ctx;
}

/** A successful send: the body passes the format check and the read-back validates. */
async function send(body: SchemaSendMessageRequest, ctx: SendRulesContext): Promise<OutboundContent> {
  expectValid('SendMessageRequest', body);
  const out = await checkSend(body, ctx);
  for (const attachment of attachmentsView(out.attachments, BASE)) expectValid('MessageAttachment', attachment);
  expect(out.text === null || typeof out.text === 'string').toBe(true);
  if (out.template) expectValid('MessageTemplate', out.template);
  return out;
}

/** A refused send: the body passes the format check and the error envelope validates against its schema. */
async function refusal(body: SchemaSendMessageRequest, ctx: SendRulesContext): Promise<ApiError> {
  expectValid('SendMessageRequest', body);
  let error: unknown;
  try {
    await checkSend(body, ctx);
  } catch (e) {
    error = e;
  }
  expect(error, 'expected a refusal').toBeInstanceOf(ApiError);
  const apiError = error as ApiError;
  const schemaName = ERROR_SCHEMAS[apiError.code];
  expect(schemaName, `unexpected code ${apiError.code}`).toBeDefined();
  expectValid(schemaName!, apiError.body());
  expect(apiError.message.length).toBeGreaterThan(0);
  return apiError;
}

async function expectRefusal(
  body: SchemaSendMessageRequest,
  ctx: SendRulesContext,
  status: number,
  code: string,
  extras: Record<string, unknown> = {},
): Promise<ApiError> {
  const e = await refusal(body, ctx);
  expect({ status: e.status, code: e.code, extras: e.extras }).toEqual({ status, code, extras });
  return e;
}

const invalid = (reason: string, field: string | null) => ({ reason, field });
const notSupported = (channel: Channel, field: string) => ({ channel, field });
const tooLong = (channel: Channel, max_length: number) => ({ channel, field: 'text', max_length });

const a = (n: number) => 'a'.repeat(n);
const emoji = (n: number) => '👇'.repeat(n);

const reply = (id: string, title = id): SchemaSendButton => ({ type: 'reply', id, title });
const link = (title = 'Ver', url = 'https://loja.example.com/x'): SchemaSendButton => ({
  type: 'open_url',
  title,
  url,
});
const readReply = (id: string, title = id) => ({ type: 'postback', id, title, url: null });
const readLink = (title = 'Ver', url = 'https://loja.example.com/x') => ({ type: 'open_url', id: null, title, url });
const cards = (...list: SchemaSendCard[]): SchemaSendMessageRequest['attachments'] => [{ type: 'cards', cards: list }];
const mediaAtt = (
  type: 'image' | 'video' | 'audio' | 'file',
  media_id: string,
): SchemaSendMessageRequest['attachments'] => [{ type, media_id }];

function template(extra: Partial<TemplateInfo> = {}): TemplateInfo {
  return {
    name: 'order_shipped',
    language: 'pt_BR',
    body: 'Olá {{1}}! Seu pedido #{{2}} foi enviado.',
    variable_count: 2,
    status: 'approved',
    unsupported_features: [],
    ...extra,
  };
}

const CHANNELS: Channel[] = ['instagram', 'whatsapp'];

// ------------------------------------------------------------------------------------------------------ helpers

describe('helpers', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['👇', 1],
    ['Escolha o seu novo par 👇', 24],
    ['e\u0301', 2], // e + combining acute: two code points
    ['👩‍👩‍👧', 5], // a joined family counts each code point
    ['ação', 4],
  ])('textLength(%j) = %i (code points)', (text, n) => {
    expect(textLength(text)).toBe(n);
  });

  it('withSignature appends "\\n\\n<signature>" only when the whole fits', () => {
    expect(withSignature('Oi', SIG, 1000)).toBe(`Oi${SIGNED}`);
    expect(withSignature(a(967), SIG, 1000)).toBe(`${a(967)}${SIGNED}`);
    expect(textLength(withSignature(a(967), SIG, 1000))).toBe(1000);
    expect(withSignature(a(968), SIG, 1000)).toBe(a(968));
    expect(withSignature(a(1000), SIG, 1000)).toBe(a(1000));
    expect(withSignature('Oi', null, 1000)).toBe('Oi');
    expect(withSignature('Oi', '', 1000)).toBe('Oi');
    expect(withSignature(emoji(967), SIG, 1000)).toBe(`${emoji(967)}${SIGNED}`);
  });

  it.each([
    ['Olá {{1}}, pedido {{2}}', ['Ana', '4821'], 'Olá Ana, pedido 4821'],
    ['{{2}} antes de {{1}}', ['um', 'dois'], 'dois antes de um'],
    ['{{1}} e de novo {{1}}', ['Ana'], 'Ana e de novo Ana'],
    ['Olá {{ 1 }}!', ['Ana'], 'Olá Ana!'],
    ['Sem variáveis', [], 'Sem variáveis'],
    ['{{1}} {{2}}', ['{{2}}', 'x'], '{{2}} x'], // a value is never filled again
    ['{{1}} {{3}}', ['a'], 'a {{3}}'], // no value: the placeholder stays
    ['$& {{1}}', ['$1 $&'], '$& $1 $&'], // replacement patterns are not interpreted
  ])('fillTemplateBody(%j, %j) = %j', (body, values, filled) => {
    expect(fillTemplateBody(body, values)).toBe(filled);
  });

  it.each([
    'https://loja.example.com',
    'https://loja.example.com/tenis/runner?tamanho=38#fotos',
    'HTTPS://Loja.Example.com/x',
    'https://user@loja.example.com/',
    'https://loja.example.com:8443/p',
    'https://[2001:db8::1]/p',
    'https://192.0.2.1/p',
    'https://loja.example.com/ação',
    `https://loja.example.com/${a(2000)}`,
  ])('isHttpsUrl(%j) is true', (url) => {
    expect(isHttpsUrl(url)).toBe(true);
  });

  it.each([
    'http://loja.example.com',
    'ftp://loja.example.com/a.pdf',
    'javascript:alert(1)',
    'mailto:ana@example.com',
    '//loja.example.com',
    '/tenis/runner',
    'loja.example.com',
    'https:loja.example.com',
    'https:/loja.example.com',
    'https:///loja.example.com',
    'https:\\\\loja.example.com',
    'https://',
    'https://?q=1',
    'https://#x',
    'https://@loja.example.com',
    ' https://loja.example.com',
    'https://loja.example.com ',
    'https://loja example.com',
    'https://loja.example.com/a b',
    'https://loja.example.com/\n',
    'https://loja.example.com/\u0000',
    'https://loja.example.com/\u00a0',
    'https://exa<mple.com',
  ])('isHttpsUrl(%j) is false', (url) => {
    expect(isHttpsUrl(url)).toBe(false);
  });

  it.each([
    ['image/jpeg', 'image'],
    ['IMAGE/PNG', 'image'],
    ['video/mp4', 'video'],
    ['audio/mp4', 'audio'],
    ['audio/mpeg; codecs=mp3', 'audio'],
    ['application/pdf', 'file'],
    ['application/zip', 'file'],
    ['text/plain', 'file'],
  ])('mediaFamily(%j) = %s', (contentType, family) => {
    expect(mediaFamily(contentType)).toBe(family);
  });

  it('normalizeContentType drops parameters and letter case', () => {
    expect(normalizeContentType(' Image/JPEG ; charset=binary')).toBe('image/jpeg');
    expect(normalizeContentType('application/pdf')).toBe('application/pdf');
  });
});

// --------------------------------------------------------------------------- forms no channel carries (step 1)

describe.each(CHANNELS)('invalid_message on %s', (channel) => {
  const img = upload('image/jpeg');
  const ctx = () => ctxFor(channel, { media: [img], templates: [template()] });

  it.each<[string, SchemaSendMessageRequest]>([
    ['{}', {}],
    ['empty text', { text: '' }],
  ])('empty: %s', async (_, body) => {
    const c = ctx();
    await expectRefusal(body, c, 422, 'invalid_message', invalid('empty', null));
    expect(c.mediaLookups).toEqual([]);
    expect(c.templateLookups).toEqual([]);
  });

  const tpl = { name: 'order_shipped', language: 'pt_BR', body_variables: ['Ana', '4821'] };
  it.each<[string, SchemaSendMessageRequest, string]>([
    ['with text', { text: 'Oi', template: tpl }, 'text'],
    ['with buttons', { buttons: [reply('ok')], template: tpl }, 'buttons'],
    ['with an attachment', { attachments: mediaAtt('image', img.id), template: tpl }, 'attachments'],
    ['with cards', { attachments: cards({ title: 'C' }), template: tpl }, 'attachments'],
    [
      'with buttons and an attachment',
      { buttons: [reply('ok')], attachments: cards({ title: 'C' }), template: tpl },
      'buttons',
    ],
    [
      'with everything',
      { text: 'Oi', buttons: [reply('ok')], attachments: mediaAtt('image', img.id), template: tpl },
      'text',
    ],
    ['with empty text and buttons', { text: '', buttons: [reply('ok')], template: tpl }, 'buttons'],
  ])('template_with_content: template %s (field %s)', async (_, body, field) => {
    const c = ctx();
    await expectRefusal(body, c, 422, 'invalid_message', invalid('template_with_content', field));
    expect(c.templateLookups).toEqual([]);
  });

  it.each<[string, SchemaSendMessageRequest]>([
    ['text, buttons and a media', { text: 'Oi', buttons: [reply('ok')], attachments: mediaAtt('image', img.id) }],
    ['text, buttons and cards', { text: 'Oi', buttons: [reply('ok')], attachments: cards({ title: 'C' }) }],
    ['buttons and a media, no text', { buttons: [reply('ok')], attachments: mediaAtt('image', img.id) }],
    ['buttons and cards, no text', { buttons: [link()], attachments: cards({ title: 'C', buttons: [reply('b')] }) }],
  ])('buttons_with_attachment: %s', async (_, body) => {
    const c = ctx();
    await expectRefusal(body, c, 422, 'invalid_message', invalid('buttons_with_attachment', 'buttons'));
    expect(c.mediaLookups).toEqual([]);
  });

  it.each<[string, SchemaSendMessageRequest]>([
    ['no text', { buttons: [reply('ok')] }],
    ['empty text', { text: '', buttons: [reply('ok'), reply('no')] }],
    ['a link, no text', { buttons: [link()] }],
  ])('buttons_without_text: %s', async (_, body) => {
    await expectRefusal(body, ctx(), 422, 'invalid_message', invalid('buttons_without_text', 'buttons'));
  });

  it.each<[string, SchemaSendMessageRequest, string]>([
    [
      'the third button (spec example)',
      { text: 'Oi', buttons: [reply('a'), reply('b'), link('Loja', 'http://loja.example.com')] },
      'buttons[2].url',
    ],
    ['the only button', { text: 'Oi', buttons: [link('Loja', 'loja.example.com')] }, 'buttons[0].url'],
    [
      'the first of two',
      { text: 'Oi', buttons: [link('A', 'https://ok.example.com'), link('B', 'ftp://x'), link('C', '/y')] },
      'buttons[1].url',
    ],
    [
      'a card button',
      {
        attachments: cards(
          { title: 'A', buttons: [link()] },
          { title: 'B', buttons: [link('Ver', 'http://x.example')] },
        ),
      },
      'attachments[0].cards[1].buttons[0].url',
    ],
    [
      'the first card button in card order',
      {
        attachments: cards(
          { title: 'A', buttons: [reply('a'), link('Ver', 'https:/x.example')] },
          { title: 'B', buttons: [link('Ver', 'http://x.example')] },
        ),
      },
      'attachments[0].cards[0].buttons[1].url',
    ],
  ])('invalid_url: %s', async (_, body, field) => {
    await expectRefusal(body, ctx(), 422, 'invalid_message', invalid('invalid_url', field));
  });

  it.each<[string, SchemaSendMessageRequest, string]>([
    [
      'the second button (spec example)',
      { text: 'Oi', buttons: [reply('size_38', 'A'), reply('size_38', 'B')] },
      'buttons[1].id',
    ],
    [
      'the third repeats the first',
      { text: 'Oi', buttons: [reply('x', 'A'), reply('y', 'B'), reply('x', 'C')] },
      'buttons[2].id',
    ],
    [
      'in one card',
      { attachments: cards({ title: 'A', buttons: [reply('x', 'A'), reply('x', 'B')] }, { title: 'B' }) },
      'attachments[0].cards[0].buttons[1].id',
    ],
    [
      'across cards',
      {
        attachments: cards(
          { title: 'A', buttons: [reply('pick_black', 'Quero')] },
          { title: 'B', buttons: [reply('pick_blue', 'Quero')] },
          { title: 'C', buttons: [reply('pick_black', 'Quero')] },
        ),
      },
      'attachments[0].cards[2].buttons[0].id',
    ],
  ])('duplicate_button_id: %s', async (_, body, field) => {
    await expectRefusal(body, ctx(), 422, 'invalid_message', invalid('duplicate_button_id', field));
  });

  it('ids differing only in letter case are different ids', async () => {
    const out = await send({ text: 'Oi', buttons: [reply('size', 'A'), reply('Size', 'B')] }, ctx());
    expect(out.form).toBe('text_buttons');
  });

  it('invalid_url comes before duplicate_button_id, whatever their positions', async () => {
    await expectRefusal(
      { text: 'Oi', buttons: [reply('x', 'A'), reply('x', 'B'), link('C', 'http://x.example')] },
      ctx(),
      422,
      'invalid_message',
      invalid('invalid_url', 'buttons[2].url'),
    );
  });

  it('buttons_with_attachment comes before an invalid url or a duplicate id', async () => {
    await expectRefusal(
      { text: 'Oi', buttons: [link('A', 'http://x'), reply('x'), reply('x')], attachments: mediaAtt('image', img.id) },
      ctx(),
      422,
      'invalid_message',
      invalid('buttons_with_attachment', 'buttons'),
    );
  });

  it('a template with an empty text goes alone', async () => {
    const c = ctx();
    if (channel === 'whatsapp') {
      const out = await send({ text: '', template: tpl }, c);
      expect(out.form).toBe('template');
    } else {
      await expectRefusal(
        { text: '', template: tpl },
        c,
        422,
        'content_not_supported',
        notSupported(channel, 'template'),
      );
    }
  });
});

// ---------------------------------------------------------------------------------------------------- instagram

describe('instagram: text', () => {
  const ctx = (signature: string | null = SIG) => ctxFor('instagram', { signature });

  it('reads back with the signature appended', async () => {
    expect(await send({ text: 'Temos sim!' }, ctx())).toEqual({
      text: `Temos sim!${SIGNED}`,
      attachments: [],
      template: null,
      form: 'text',
    });
  });

  it('reads back as sent when the plan has no signature', async () => {
    expect(await send({ text: 'Temos sim!' }, ctx(null))).toEqual({
      text: 'Temos sim!',
      attachments: [],
      template: null,
      form: 'text',
    });
  });

  it('a blank text is a text', async () => {
    expect((await send({ text: '   ' }, ctx(null))).text).toBe('   ');
  });

  it.each([
    [1, true],
    [966, true],
    [967, true], // 967 + 33 = 1000
    [968, false],
    [999, false],
    [1000, false],
  ])('%i characters: signature appended %s', async (n, signed) => {
    const out = await send({ text: a(n) }, ctx());
    expect(out.text).toBe(signed ? `${a(n)}${SIGNED}` : a(n));
    expect(textLength(out.text!)).toBeLessThanOrEqual(1000);
  });

  it.each([
    ['1000 characters', a(1000)],
    ['1000 emoji (2000 UTF-16 units)', emoji(1000)],
  ])('%s pass', async (_, text) => {
    expect((await send({ text }, ctx(null))).text).toBe(text);
  });

  it.each([
    ['1001 characters', a(1001)],
    ['1001 emoji', emoji(1001)],
    ['5000 characters', a(5000)],
  ])('%s: text_too_long (max 1000)', async (_, text) => {
    await expectRefusal({ text }, ctx(), 422, 'text_too_long', tooLong('instagram', 1000));
  });
});

describe('instagram: text + buttons', () => {
  const ctx = (signature: string | null = SIG) => ctxFor('instagram', { signature });
  const buttons = [reply('color_black', 'Preto'), reply('color_blue', 'Azul'), link('Ver na loja')];

  it('reads back as one card titled with the signed text, text null', async () => {
    expect(await send({ text: 'Qual cor você prefere?', buttons }, ctx())).toEqual({
      text: null,
      attachments: [
        {
          type: 'cards',
          cards: [
            {
              title: `Qual cor você prefere?${SIGNED}`,
              subtitle: null,
              image: null,
              buttons: [readReply('color_black', 'Preto'), readReply('color_blue', 'Azul'), readLink('Ver na loja')],
            },
          ],
        },
      ],
      template: null,
      form: 'text_buttons',
    });
  });

  it('without signature the title is the text', async () => {
    const out = await send({ text: 'Qual cor?', buttons: [reply('a')] }, ctx(null));
    expect(out.attachments).toEqual([
      { type: 'cards', cards: [{ title: 'Qual cor?', subtitle: null, image: null, buttons: [readReply('a')] }] },
    ]);
  });

  it.each<[string, SchemaSendButton[]]>([
    ['link and reply together', [link('A'), reply('b', 'B')]],
    ['three links', [link('A'), link('B'), link('C')]],
    ['reply titles repeated', [reply('a', 'Sim'), reply('b', 'Sim')]],
    ['one reply', [reply('a')]],
  ])('instagram carries %s', async (_, list) => {
    const out = await send({ text: 'Oi', buttons: list }, ctx());
    expect(out.form).toBe('text_buttons');
  });

  it.each([
    [607, true], // 607 + 33 = 640
    [608, false],
    [640, false],
  ])('%i characters: signature appended %s', async (n, signed) => {
    const out = await send({ text: a(n), buttons: [reply('a')] }, ctx());
    const card = (out.attachments[0] as { cards: { title: string }[] }).cards[0]!;
    expect(card.title).toBe(signed ? `${a(n)}${SIGNED}` : a(n));
  });

  it('640 emoji pass', async () => {
    expect((await send({ text: emoji(640), buttons: [reply('a')] }, ctx())).form).toBe('text_buttons');
  });

  it.each([641, 1000])('%i characters: text_too_long (max 640)', async (n) => {
    await expectRefusal({ text: a(n), buttons: [reply('a')] }, ctx(), 422, 'text_too_long', tooLong('instagram', 640));
  });
});

const IG_ACCEPTED: ['image' | 'video' | 'audio' | 'file', string][] = [
  ['image', 'image/jpeg'],
  ['image', 'image/png'],
  ['image', 'image/gif'],
  ['video', 'video/mp4'],
  ['video', 'video/ogg'],
  ['video', 'video/webm'],
  ['video', 'video/x-msvideo'],
  ['video', 'video/avi'],
  ['video', 'video/quicktime'],
  ['audio', 'audio/aac'],
  ['audio', 'audio/mp4'],
  ['audio', 'audio/x-m4a'],
  ['audio', 'audio/wav'],
  ['audio', 'audio/x-wav'],
  ['file', 'application/pdf'],
];
const WA_ACCEPTED: ['image' | 'video' | 'audio' | 'file', string][] = [
  ['image', 'image/jpeg'],
  ['image', 'image/png'],
  ['image', 'image/webp'],
  ['video', 'video/mp4'],
  ['audio', 'audio/aac'],
  ['audio', 'audio/mpeg'],
  ['audio', 'audio/mp4'],
  ['file', 'application/pdf'],
];
const MAX: Record<Channel, Record<'image' | 'video' | 'audio' | 'file', number>> = {
  instagram: { image: 8_388_608, video: 26_214_400, audio: 26_214_400, file: 26_214_400 },
  whatsapp: { image: 5_242_880, video: 16_777_216, audio: 16_777_216, file: 104_857_600 },
};
const IG_REFUSED: ['image' | 'video' | 'audio' | 'file', string][] = [
  ['image', 'image/webp'],
  ['image', 'image/heic'],
  ['image', 'image/svg+xml'],
  ['video', 'video/x-matroska'],
  ['video', 'video/3gpp'],
  ['audio', 'audio/mpeg'],
  ['audio', 'audio/ogg'],
  ['file', 'application/zip'],
  ['file', 'application/msword'],
  ['file', 'text/plain'],
];
const WA_REFUSED: ['image' | 'video' | 'audio' | 'file', string][] = [
  ['image', 'image/gif'],
  ['image', 'image/heic'],
  ['video', 'video/quicktime'],
  ['video', 'video/webm'],
  ['video', 'video/ogg'],
  ['audio', 'audio/wav'],
  ['audio', 'audio/ogg'],
  ['audio', 'audio/x-m4a'],
  ['file', 'application/zip'],
  ['file', 'text/csv'],
];
const MISMATCHED: ['image' | 'video' | 'audio' | 'file', string][] = [
  ['image', 'application/pdf'],
  ['image', 'video/mp4'],
  ['video', 'image/jpeg'],
  ['video', 'audio/mp4'],
  ['audio', 'video/mp4'],
  ['audio', 'image/png'],
  ['file', 'image/png'],
  ['file', 'audio/aac'],
];

describe.each(CHANNELS)('one media on %s', (channel) => {
  const accepted = channel === 'instagram' ? IG_ACCEPTED : WA_ACCEPTED;
  const refused = channel === 'instagram' ? IG_REFUSED : WA_REFUSED;

  it.each(accepted)('%s %s: accepted, read back with the media', async (type, contentType) => {
    const m = upload(contentType, 245_760, { filename: 'arquivo' });
    const out = await send({ attachments: mediaAtt(type, m.id) }, ctxFor(channel, { media: [m] }));
    expect(out).toEqual({
      text: null,
      attachments: [
        { type, media_id: m.id, content_type: contentType, size: 245_760, filename: 'arquivo', expires_at: null },
      ],
      template: null,
      form: 'media',
    });
  });

  it.each(refused)('%s %s: media_not_supported, content_type', async (type, contentType) => {
    const m = upload(contentType, 1234);
    await expectRefusal(
      { attachments: mediaAtt(type, m.id) },
      ctxFor(channel, { media: [m] }),
      422,
      'media_not_supported',
      {
        channel,
        field: 'attachments[0]',
        media_id: m.id,
        reason: 'content_type',
        content_type: contentType,
        size: 1234,
        max_size: MAX[channel][type],
      },
    );
  });

  it.each(MISMATCHED)('%s holding %s: media_not_supported, type_mismatch', async (type, contentType) => {
    const m = upload(contentType, 88_412);
    await expectRefusal(
      { attachments: mediaAtt(type, m.id) },
      ctxFor(channel, { media: [m] }),
      422,
      'media_not_supported',
      {
        channel,
        field: 'attachments[0]',
        media_id: m.id,
        reason: 'type_mismatch',
        content_type: contentType,
        size: 88_412,
        max_size: MAX[channel][type],
      },
    );
  });

  it.each(['image', 'video', 'audio', 'file'] as const)(
    '%s: exactly the maximum size passes, one byte more is too_large',
    async (type) => {
      const contentType = { image: 'image/jpeg', video: 'video/mp4', audio: 'audio/aac', file: 'application/pdf' }[
        type
      ];
      const max = MAX[channel][type];
      const atMax = upload(contentType, max);
      const over = upload(contentType, max + 1);
      const ctx = ctxFor(channel, { media: [atMax, over] });
      expect((await send({ attachments: mediaAtt(type, atMax.id) }, ctx)).form).toBe('media');
      await expectRefusal({ attachments: mediaAtt(type, over.id) }, ctx, 422, 'media_not_supported', {
        channel,
        field: 'attachments[0]',
        media_id: over.id,
        reason: 'too_large',
        content_type: contentType,
        size: max + 1,
        max_size: max,
      });
    },
  );

  it('a content type with parameters and capitals is its format', async () => {
    const m = upload('IMAGE/JPEG; charset=binary', 10);
    const out = await send({ attachments: mediaAtt('image', m.id) }, ctxFor(channel, { media: [m] }));
    expect(out.attachments[0]).toMatchObject({ content_type: 'IMAGE/JPEG; charset=binary' });
  });

  it('an empty size passes', async () => {
    const m = upload('application/pdf', 0);
    expect((await send({ attachments: mediaAtt('file', m.id) }, ctxFor(channel, { media: [m] }))).form).toBe('media');
  });

  it('media_not_found: not a media of the account', async () => {
    await expectRefusal({ attachments: mediaAtt('image', UNKNOWN_MEDIA) }, ctxFor(channel), 422, 'media_not_found', {
      media_id: UNKNOWN_MEDIA,
    });
  });

  it('media_not_uploaded: nothing arrived at the upload_url', async () => {
    const m = upload('image/jpeg', 0, { uploaded: false, size: null });
    await expectRefusal(
      { attachments: mediaAtt('image', m.id) },
      ctxFor(channel, { media: [m] }),
      422,
      'media_not_uploaded',
      {
        media_id: m.id,
      },
    );
  });

  it('media_not_uploaded comes before the type checks', async () => {
    const m = upload('application/zip', 0, { uploaded: false, size: null });
    await expectRefusal(
      { attachments: mediaAtt('image', m.id) },
      ctxFor(channel, { media: [m] }),
      422,
      'media_not_uploaded',
      {
        media_id: m.id,
      },
    );
  });

  it('410 media_expired: a received media past retention', async () => {
    const m = received('image/jpeg', 10, { expired: true });
    await expectRefusal(
      { attachments: mediaAtt('image', m.id) },
      ctxFor(channel, { media: [m] }),
      410,
      'media_expired',
      {},
    );
  });

  it('media_expired comes before the type checks', async () => {
    const m = received('application/zip', 999 * MB, { expired: true });
    await expectRefusal(
      { attachments: mediaAtt('image', m.id) },
      ctxFor(channel, { media: [m] }),
      410,
      'media_expired',
    );
  });

  it('a received media can be sent again: read back with its retention end', async () => {
    const m = received('image/png', 2048, { filename: 'foto.png' });
    const out = await send({ attachments: mediaAtt('image', m.id) }, ctxFor(channel, { media: [m] }));
    expect(out.attachments).toEqual([
      {
        type: 'image',
        media_id: m.id,
        content_type: 'image/png',
        size: 2048,
        filename: 'foto.png',
        expires_at: '2027-02-18T13:00:00.000000Z',
      },
    ]);
  });

  it('an upload reads back with expires_at null', async () => {
    const m = upload('application/pdf', 10, { filename: 'nota.pdf', expires_at: '2027-01-01T00:00:00Z' });
    const out = await send({ attachments: mediaAtt('file', m.id) }, ctxFor(channel, { media: [m] }));
    expect(out.attachments[0]).toMatchObject({ filename: 'nota.pdf', expires_at: null });
  });

  it('type_mismatch comes before content_type and too_large', async () => {
    const m = upload('application/zip', 999 * MB);
    const e = await refusal({ attachments: mediaAtt('image', m.id) }, ctxFor(channel, { media: [m] }));
    expect(e.extras.reason).toBe('type_mismatch');
  });

  it('content_type comes before too_large', async () => {
    const m = upload('image/heic', 999 * MB);
    const e = await refusal({ attachments: mediaAtt('image', m.id) }, ctxFor(channel, { media: [m] }));
    expect(e.extras.reason).toBe('content_type');
  });

  it('an empty text is no caption', async () => {
    const m = upload('audio/aac', 10);
    const out = await send({ text: '', attachments: mediaAtt('audio', m.id) }, ctxFor(channel, { media: [m] }));
    expect(out.text).toBeNull();
  });
});

describe('instagram: one media', () => {
  it.each(['image', 'video', 'audio', 'file'] as const)(
    '%s with a text: content_not_supported (text), before the lookup',
    async (type) => {
      const ctx = ctxFor('instagram');
      await expectRefusal(
        { text: 'Veja', attachments: mediaAtt(type, UNKNOWN_MEDIA) },
        ctx,
        422,
        'content_not_supported',
        notSupported('instagram', 'text'),
      );
      expect(ctx.mediaLookups).toEqual([]);
    },
  );

  it('a long text with a media is content_not_supported, not text_too_long', async () => {
    const m = upload('image/jpeg');
    await expectRefusal(
      { text: a(5000), attachments: mediaAtt('image', m.id) },
      ctxFor('instagram', { media: [m] }),
      422,
      'content_not_supported',
      notSupported('instagram', 'text'),
    );
  });

  it('spec example: WebP image on instagram', async () => {
    const m = { ...upload('image/webp', 182_044), id: 'e77917dd-dc06-4962-8bc3-8a0fd007c00f' };
    await expectRefusal(
      { attachments: mediaAtt('image', m.id) },
      ctxFor('instagram', { media: [m] }),
      422,
      'media_not_supported',
      {
        channel: 'instagram',
        field: 'attachments[0]',
        media_id: 'e77917dd-dc06-4962-8bc3-8a0fd007c00f',
        reason: 'content_type',
        content_type: 'image/webp',
        size: 182_044,
        max_size: 8_388_608,
      },
    );
  });
});

describe('instagram: cards', () => {
  const black = upload('image/jpeg', 100_000);
  const blue = upload('image/png', 90_000);
  const ctx = () => ctxFor('instagram', { media: [black, blue] });

  it('one bare card: subtitle and image null, no buttons', async () => {
    expect(await send({ attachments: cards({ title: 'Runner' }) }, ctx())).toEqual({
      text: null,
      attachments: [{ type: 'cards', cards: [{ title: 'Runner', subtitle: null, image: null, buttons: [] }] }],
      template: null,
      form: 'cards',
    });
  });

  it('reads back each card with its image, subtitle and buttons; never signed', async () => {
    const out = await send(
      {
        attachments: cards(
          {
            title: 'Runner Preto',
            subtitle: 'R$ 349,90',
            media_id: black.id,
            buttons: [reply('buy_black', 'Quero este'), link('Ver detalhes')],
          },
          { title: 'Runner Azul', media_id: blue.id, buttons: [reply('buy_blue', 'Quero este')] },
          { title: 'Sem foto' },
        ),
      },
      ctx(),
    );
    expect(out).toEqual({
      text: null,
      attachments: [
        {
          type: 'cards',
          cards: [
            {
              title: 'Runner Preto',
              subtitle: 'R$ 349,90',
              image: { media_id: black.id, content_type: 'image/jpeg' },
              buttons: [readReply('buy_black', 'Quero este'), readLink('Ver detalhes')],
            },
            {
              title: 'Runner Azul',
              subtitle: null,
              image: { media_id: blue.id, content_type: 'image/png' },
              buttons: [readReply('buy_blue', 'Quero este')],
            },
            { title: 'Sem foto', subtitle: null, image: null, buttons: [] },
          ],
        },
      ],
      template: null,
      form: 'cards',
    });
  });

  it('10 cards with different buttons, the same image twice', async () => {
    const list: SchemaSendCard[] = Array.from({ length: 10 }, (_, i) => ({
      title: `Card ${i}`,
      media_id: black.id,
      buttons: i % 2 ? [link(), link(), link()] : [reply(`r${i}`)],
    }));
    const out = await send({ attachments: cards(...list) }, ctx());
    expect((out.attachments[0] as { cards: unknown[] }).cards).toHaveLength(10);
  });

  it('a text with cards: content_not_supported (text)', async () => {
    await expectRefusal(
      { text: 'Escolha', attachments: cards({ title: 'A' }, { title: 'B' }) },
      ctx(),
      422,
      'content_not_supported',
      notSupported('instagram', 'text'),
    );
  });

  it.each<[string, () => MediaInfo, number, string, Record<string, unknown>]>([
    ['not found', () => ({ ...black, id: UNKNOWN_MEDIA }), 422, 'media_not_found', {}],
    ['not uploaded', () => upload('image/jpeg', 0, { uploaded: false, size: null }), 422, 'media_not_uploaded', {}],
    ['expired', () => received('image/jpeg', 10, { expired: true }), 410, 'media_expired', {}],
  ])('a card image %s', async (_, make, status, code) => {
    const bad = make();
    const media = code === 'media_not_found' ? [black] : [black, bad];
    const extras = code === 'media_expired' ? {} : { media_id: bad.id };
    await expectRefusal(
      { attachments: cards({ title: 'A', media_id: black.id }, { title: 'B', media_id: bad.id }) },
      ctxFor('instagram', { media }),
      status,
      code,
      extras,
    );
  });

  it.each<[string, string, number, string, number]>([
    ['type_mismatch', 'application/pdf', 1000, 'type_mismatch', 8_388_608],
    ['video as a card image', 'video/mp4', 1000, 'type_mismatch', 8_388_608],
    ['content_type', 'image/webp', 1000, 'content_type', 8_388_608],
    ['too_large', 'image/gif', 8 * MB + 1, 'too_large', 8_388_608],
  ])('a card image refused (%s): field names the card media_id', async (_, contentType, size, reason, maxSize) => {
    const bad = upload(contentType, size);
    await expectRefusal(
      { attachments: cards({ title: 'A', media_id: black.id }, { title: 'B' }, { title: 'C', media_id: bad.id }) },
      ctxFor('instagram', { media: [black, bad] }),
      422,
      'media_not_supported',
      {
        channel: 'instagram',
        field: 'attachments[0].cards[2].media_id',
        media_id: bad.id,
        reason,
        content_type: contentType,
        size,
        max_size: maxSize,
      },
    );
  });

  it('a card image of exactly 8 MB passes', async () => {
    const big = upload('image/gif', 8 * MB);
    expect(
      (await send({ attachments: cards({ title: 'A', media_id: big.id }) }, ctxFor('instagram', { media: [big] })))
        .form,
    ).toBe('cards');
  });

  it('the first faulty card image answers', async () => {
    const webp = upload('image/webp');
    const pdf = upload('application/pdf');
    const e = await refusal(
      {
        attachments: cards(
          { title: 'A', media_id: black.id },
          { title: 'B', media_id: webp.id },
          { title: 'C', media_id: pdf.id },
        ),
      },
      ctxFor('instagram', { media: [black, webp, pdf] }),
    );
    expect(e.extras).toMatchObject({ field: 'attachments[0].cards[1].media_id', reason: 'content_type' });
  });
});

describe('instagram: template', () => {
  it('content_not_supported (template), without looking the template up', async () => {
    const ctx = ctxFor('instagram', { templates: [template()] });
    await expectRefusal(
      { template: { name: 'order_shipped', language: 'pt_BR', body_variables: ['Ana', '4821'] } },
      ctx,
      422,
      'content_not_supported',
      notSupported('instagram', 'template'),
    );
    expect(ctx.templateLookups).toEqual([]);
  });

  it('with a text it is template_with_content first', async () => {
    await expectRefusal(
      { text: 'Oi', template: { name: 'x', language: 'pt_BR' } },
      ctxFor('instagram'),
      422,
      'invalid_message',
      invalid('template_with_content', 'text'),
    );
  });
});

// ----------------------------------------------------------------------------------------------------- whatsapp

describe('whatsapp: text', () => {
  const ctx = (signature: string | null = SIG) => ctxFor('whatsapp', { signature });

  it('reads back with the signature appended', async () => {
    expect(await send({ text: 'Sua troca foi aprovada.' }, ctx())).toEqual({
      text: `Sua troca foi aprovada.${SIGNED}`,
      attachments: [],
      template: null,
      form: 'text',
    });
  });

  it.each([
    [4063, true], // 4063 + 33 = 4096
    [4064, false],
    [4096, false],
  ])('%i characters: signature appended %s', async (n, signed) => {
    expect((await send({ text: a(n) }, ctx())).text).toBe(signed ? `${a(n)}${SIGNED}` : a(n));
  });

  it('a long signature that does not fit is dropped', async () => {
    const out = await send({ text: a(4000) }, ctx('x'.repeat(200)));
    expect(out.text).toBe(a(4000));
  });

  it.each([
    ['4096 characters', a(4096)],
    ['4096 emoji', emoji(4096)],
  ])('%s pass', async (_, text) => {
    expect((await send({ text }, ctx(null))).text).toBe(text);
  });

  it.each([
    ['4097 characters', a(4097)],
    ['4097 emoji', emoji(4097)],
  ])('%s: text_too_long (max 4096)', async (_, text) => {
    await expectRefusal({ text }, ctx(), 422, 'text_too_long', tooLong('whatsapp', 4096));
  });
});

describe('whatsapp: text + buttons', () => {
  const ctx = (signature: string | null = SIG) => ctxFor('whatsapp', { signature });

  it('reply buttons read back as one signed card', async () => {
    const out = await send(
      {
        text: 'Como foi sua experiência?',
        buttons: [reply('rate_good', 'Ótima'), reply('rate_ok', 'Regular'), reply('rate_bad', 'Ruim')],
      },
      ctx(),
    );
    expect(out).toEqual({
      text: null,
      attachments: [
        {
          type: 'cards',
          cards: [
            {
              title: `Como foi sua experiência?${SIGNED}`,
              subtitle: null,
              image: null,
              buttons: [
                readReply('rate_good', 'Ótima'),
                readReply('rate_ok', 'Regular'),
                readReply('rate_bad', 'Ruim'),
              ],
            },
          ],
        },
      ],
      template: null,
      form: 'text_buttons',
    });
  });

  it('one link button reads back as open_url with id null', async () => {
    const url = 'https://loja.example.com/pedidos/4821/rastreio';
    const out = await send({ text: 'Acompanhe', buttons: [link('Rastrear pedido', url)] }, ctx(null));
    expect(out.attachments).toEqual([
      {
        type: 'cards',
        cards: [{ title: 'Acompanhe', subtitle: null, image: null, buttons: [readLink('Rastrear pedido', url)] }],
      },
    ]);
  });

  it.each<[string, SchemaSendButton[]]>([
    ['link and reply', [link('A'), reply('b', 'B')]],
    ['reply and link', [reply('a', 'A'), reply('b', 'B'), link('C')]],
    ['two links', [link('A'), link('B')]],
    ['three links', [link('A'), link('B'), link('C')]],
  ])('%s: content_not_supported (buttons)', async (_, list) => {
    await expectRefusal(
      { text: 'Oi', buttons: list },
      ctx(),
      422,
      'content_not_supported',
      notSupported('whatsapp', 'buttons'),
    );
  });

  it.each<[string, SchemaSendButton[], string]>([
    ['second repeats first', [reply('a', 'Sim'), reply('b', 'Sim')], 'buttons[1].title'],
    ['third repeats first', [reply('a', 'Sim'), reply('b', 'Não'), reply('c', 'Sim')], 'buttons[2].title'],
    ['third repeats second', [reply('a', 'Sim'), reply('b', 'Não'), reply('c', 'Não')], 'buttons[2].title'],
  ])('reply titles repeated (%s): content_not_supported', async (_, list, field) => {
    await expectRefusal(
      { text: 'Oi', buttons: list },
      ctx(),
      422,
      'content_not_supported',
      notSupported('whatsapp', field),
    );
  });

  it('titles differing in letter case are different', async () => {
    expect((await send({ text: 'Oi', buttons: [reply('a', 'Sim'), reply('b', 'sim')] }, ctx())).form).toBe(
      'text_buttons',
    );
  });

  it.each([
    [991, true], // 991 + 33 = 1024
    [992, false],
    [1024, false],
  ])('%i characters: signature appended %s', async (n, signed) => {
    const out = await send({ text: a(n), buttons: [reply('a')] }, ctx());
    const card = (out.attachments[0] as { cards: { title: string }[] }).cards[0]!;
    expect(card.title).toBe(signed ? `${a(n)}${SIGNED}` : a(n));
  });

  it('1025 characters: text_too_long (spec example, max 1024)', async () => {
    await expectRefusal(
      { text: a(1025), buttons: [reply('a')] },
      ctx(),
      422,
      'text_too_long',
      tooLong('whatsapp', 1024),
    );
  });

  it('1024 emoji pass, 1025 do not', async () => {
    expect((await send({ text: emoji(1024), buttons: [link()] }, ctx())).form).toBe('text_buttons');
    await expectRefusal(
      { text: emoji(1025), buttons: [link()] },
      ctx(),
      422,
      'text_too_long',
      tooLong('whatsapp', 1024),
    );
  });

  it('content_not_supported comes before text_too_long', async () => {
    await expectRefusal(
      { text: a(2000), buttons: [link('A'), reply('b')] },
      ctx(),
      422,
      'content_not_supported',
      notSupported('whatsapp', 'buttons'),
    );
  });

  it('mixed buttons come before repeated titles', async () => {
    await expectRefusal(
      { text: 'Oi', buttons: [reply('a', 'Sim'), reply('b', 'Sim'), link('Sim')] },
      ctx(),
      422,
      'content_not_supported',
      notSupported('whatsapp', 'buttons'),
    );
  });
});

describe('whatsapp: one media', () => {
  const photo = upload('image/jpeg', 245_760);
  const clip = upload('video/mp4', 1_000_000);
  const voice = upload('audio/mpeg', 50_000);
  const invoice = { ...upload('application/pdf', 88_412), filename: 'nota-fiscal-4821.pdf' };
  const ctx = (signature: string | null = SIG) =>
    ctxFor('whatsapp', { media: [photo, clip, voice, invoice], signature });

  it.each<['image' | 'video' | 'file', () => MediaInfo]>([
    ['image', () => photo],
    ['video', () => clip],
    ['file', () => invoice],
  ])('%s with a caption: the caption is the text, never signed', async (type, m) => {
    const out = await send({ text: 'Segue a foto.', attachments: mediaAtt(type, m().id) }, ctx());
    expect(out).toEqual({
      text: 'Segue a foto.',
      attachments: [
        {
          type,
          media_id: m().id,
          content_type: m().content_type,
          size: m().size,
          filename: m().filename,
          expires_at: null,
        },
      ],
      template: null,
      form: 'media',
    });
  });

  it('a media without caption reads back with text null', async () => {
    expect((await send({ attachments: mediaAtt('audio', voice.id) }, ctx())).text).toBeNull();
  });

  it('a caption of 1024 characters passes, unsigned', async () => {
    expect((await send({ text: a(1024), attachments: mediaAtt('image', photo.id) }, ctx())).text).toBe(a(1024));
  });

  it('a short caption is not signed either', async () => {
    expect((await send({ text: 'Oi', attachments: mediaAtt('file', invoice.id) }, ctx())).text).toBe('Oi');
  });

  it.each(['image', 'video', 'file'] as const)(
    '%s: a caption of 1025 characters is text_too_long (max 1024), before the lookup',
    async (type) => {
      const c = ctx();
      await expectRefusal(
        { text: a(1025), attachments: mediaAtt(type, UNKNOWN_MEDIA) },
        c,
        422,
        'text_too_long',
        tooLong('whatsapp', 1024),
      );
      expect(c.mediaLookups).toEqual([]);
    },
  );

  it('a caption on audio: content_not_supported (spec example), before the lookup', async () => {
    const c = ctx();
    await expectRefusal(
      { text: 'Ouça', attachments: mediaAtt('audio', UNKNOWN_MEDIA) },
      c,
      422,
      'content_not_supported',
      notSupported('whatsapp', 'text'),
    );
    expect(c.mediaLookups).toEqual([]);
  });

  it('a long caption on audio is content_not_supported, not text_too_long', async () => {
    await expectRefusal(
      { text: a(5000), attachments: mediaAtt('audio', voice.id) },
      ctx(),
      422,
      'content_not_supported',
      notSupported('whatsapp', 'text'),
    );
  });

  it('spec example: a 7 MB image is too large', async () => {
    const big = { ...upload('image/jpeg', 7_340_032), id: 'b6f1a3a5-f35b-49f6-b8db-f1c1ad62a1de' };
    await expectRefusal(
      { attachments: mediaAtt('image', big.id) },
      ctxFor('whatsapp', { media: [big] }),
      422,
      'media_not_supported',
      {
        channel: 'whatsapp',
        field: 'attachments[0]',
        media_id: 'b6f1a3a5-f35b-49f6-b8db-f1c1ad62a1de',
        reason: 'too_large',
        content_type: 'image/jpeg',
        size: 7_340_032,
        max_size: 5_242_880,
      },
    );
  });

  it('spec example: a PDF sent as an image', async () => {
    const pdf = { ...upload('application/pdf', 88_412), id: '5fe4ca85-b892-4720-afaa-c95471da0d3e' };
    await expectRefusal(
      { text: 'Segue', attachments: mediaAtt('image', pdf.id) },
      ctxFor('whatsapp', { media: [pdf] }),
      422,
      'media_not_supported',
      {
        channel: 'whatsapp',
        field: 'attachments[0]',
        media_id: '5fe4ca85-b892-4720-afaa-c95471da0d3e',
        reason: 'type_mismatch',
        content_type: 'application/pdf',
        size: 88_412,
        max_size: 5_242_880,
      },
    );
  });

  it('a PDF of 100 MB passes on whatsapp (25 MB on instagram)', async () => {
    const pdf = upload('application/pdf', 100 * MB);
    expect((await send({ attachments: mediaAtt('file', pdf.id) }, ctxFor('whatsapp', { media: [pdf] }))).form).toBe(
      'media',
    );
    const e = await refusal({ attachments: mediaAtt('file', pdf.id) }, ctxFor('instagram', { media: [pdf] }));
    expect(e.extras).toMatchObject({ reason: 'too_large', max_size: 25 * MB });
  });
});

describe('whatsapp: cards', () => {
  const black = upload('image/jpeg', 100_000);
  const blue = upload('image/png', 90_000);
  const green = upload('image/webp', 80_000);
  const media = [black, blue, green];
  const ctx = (signature: string | null = SIG) => ctxFor('whatsapp', { media, signature });
  const card = (
    title: string,
    media_id: string | undefined,
    buttons: SchemaSendButton[] | undefined,
  ): SchemaSendCard => ({
    title,
    ...(media_id === undefined ? {} : { media_id }),
    ...(buttons === undefined ? {} : { buttons }),
  });
  const good = (): SchemaSendCard[] => [
    card('Runner Preto', black.id, [reply('pick_black', 'Quero este'), reply('sizes_black', 'Ver numeração')]),
    card('Runner Azul', blue.id, [reply('pick_blue', 'Quero este'), reply('sizes_blue', 'Ver numeração')]),
  ];

  it('reads back the text above (never signed) and the cards', async () => {
    const out = await send({ text: 'Escolha o seu novo par 👇', attachments: cards(...good()) }, ctx());
    expect(out).toEqual({
      text: 'Escolha o seu novo par 👇',
      attachments: [
        {
          type: 'cards',
          cards: [
            {
              title: 'Runner Preto',
              subtitle: null,
              image: { media_id: black.id, content_type: 'image/jpeg' },
              buttons: [readReply('pick_black', 'Quero este'), readReply('sizes_black', 'Ver numeração')],
            },
            {
              title: 'Runner Azul',
              subtitle: null,
              image: { media_id: blue.id, content_type: 'image/png' },
              buttons: [readReply('pick_blue', 'Quero este'), readReply('sizes_blue', 'Ver numeração')],
            },
          ],
        },
      ],
      template: null,
      form: 'cards',
    });
  });

  it('10 cards of one link button each, titles repeated across cards', async () => {
    const list = Array.from({ length: 10 }, (_, i) =>
      card(`C${i}`, green.id, [link('Comprar', `https://loja.example.com/${i}`)]),
    );
    const out = await send({ text: 'Ofertas', attachments: cards(...list) }, ctx());
    expect((out.attachments[0] as { cards: unknown[] }).cards).toHaveLength(10);
  });

  it('repeated reply titles inside one card are not refused (no rule for them)', async () => {
    const list = [
      card('A', black.id, [reply('a1', 'Sim'), reply('a2', 'Sim')]),
      card('B', blue.id, [reply('b1', 'Sim'), reply('b2', 'Sim')]),
    ];
    expect((await send({ text: 'Oi', attachments: cards(...list) }, ctx())).form).toBe('cards');
  });

  it('a text of 1024 characters passes, 1025 is text_too_long (max 1024)', async () => {
    expect((await send({ text: a(1024), attachments: cards(...good()) }, ctx())).text).toBe(a(1024));
    await expectRefusal(
      { text: a(1025), attachments: cards(...good()) },
      ctx(),
      422,
      'text_too_long',
      tooLong('whatsapp', 1024),
    );
  });

  it.each<[string, SchemaSendMessageRequest, string]>([
    ['no text', { attachments: cards({ title: 'A' }) }, 'text'],
    ['an empty text', { text: '', attachments: cards({ title: 'A' }, { title: 'B' }) }, 'text'],
    [
      'one card (spec example)',
      { text: 'Escolha', attachments: cards(card('A', UNKNOWN_MEDIA, [reply('a')])) },
      'attachments[0].cards',
    ],
    [
      'a card without image',
      {
        text: 'Escolha',
        attachments: cards(card('A', UNKNOWN_MEDIA, [reply('a')]), card('B', undefined, [reply('b')])),
      },
      'attachments[0].cards[1].media_id',
    ],
    [
      'a card without buttons',
      {
        text: 'Escolha',
        attachments: cards(card('A', UNKNOWN_MEDIA, undefined), card('B', UNKNOWN_MEDIA, [reply('b')])),
      },
      'attachments[0].cards[0].buttons',
    ],
    [
      'a card with an empty buttons list',
      { text: 'Escolha', attachments: cards(card('A', UNKNOWN_MEDIA, [reply('a')]), card('B', UNKNOWN_MEDIA, [])) },
      'attachments[0].cards[1].buttons',
    ],
    [
      'a card with link and reply buttons',
      {
        text: 'Escolha',
        attachments: cards(
          card('A', UNKNOWN_MEDIA, [reply('a'), link()]),
          card('B', UNKNOWN_MEDIA, [reply('b'), link()]),
        ),
      },
      'attachments[0].cards[0].buttons',
    ],
    [
      'a card with two links',
      {
        text: 'Escolha',
        attachments: cards(card('A', UNKNOWN_MEDIA, [link()]), card('B', UNKNOWN_MEDIA, [link(), link()])),
      },
      'attachments[0].cards[1].buttons',
    ],
    [
      'a different count of buttons (spec example)',
      {
        text: 'Escolha',
        attachments: cards(card('A', UNKNOWN_MEDIA, [reply('a'), reply('b')]), card('B', UNKNOWN_MEDIA, [reply('c')])),
      },
      'attachments[0].cards[1].buttons',
    ],
    [
      'a different kind of buttons',
      {
        text: 'Escolha',
        attachments: cards(card('A', UNKNOWN_MEDIA, [reply('a')]), card('B', UNKNOWN_MEDIA, [link()])),
      },
      'attachments[0].cards[1].buttons',
    ],
    [
      'the third card differing',
      {
        text: 'Escolha',
        attachments: cards(
          card('A', UNKNOWN_MEDIA, [link()]),
          card('B', UNKNOWN_MEDIA, [link()]),
          card('C', UNKNOWN_MEDIA, [reply('c')]),
        ),
      },
      'attachments[0].cards[2].buttons',
    ],
    ['no text and one card: text first', { attachments: cards(card('A', undefined, undefined)) }, 'text'],
    [
      'one card without image: the count first',
      { text: 'Escolha', attachments: cards(card('A', undefined, undefined)) },
      'attachments[0].cards',
    ],
    [
      'no image and no buttons: the image first',
      { text: 'Escolha', attachments: cards(card('A', UNKNOWN_MEDIA, [reply('a')]), card('B', undefined, undefined)) },
      'attachments[0].cards[1].media_id',
    ],
  ])('%s: content_not_supported, before any media lookup', async (_, body, field) => {
    const c = ctx();
    await expectRefusal(body, c, 422, 'content_not_supported', notSupported('whatsapp', field));
    expect(c.mediaLookups).toEqual([]);
  });

  it('content_not_supported comes before text_too_long', async () => {
    await expectRefusal(
      { text: a(3000), attachments: cards(card('A', black.id, [reply('a')])) },
      ctx(),
      422,
      'content_not_supported',
      notSupported('whatsapp', 'attachments[0].cards'),
    );
  });

  it('text_too_long comes before the media lookups', async () => {
    const c = ctx();
    const list = [card('A', UNKNOWN_MEDIA, [reply('a')]), card('B', UNKNOWN_MEDIA, [reply('b')])];
    await expectRefusal(
      { text: a(1025), attachments: cards(...list) },
      c,
      422,
      'text_too_long',
      tooLong('whatsapp', 1024),
    );
    expect(c.mediaLookups).toEqual([]);
  });

  it.each<[string, string, number, string]>([
    ['a GIF', 'image/gif', 1000, 'content_type'],
    ['a PDF', 'application/pdf', 1000, 'type_mismatch'],
    ['6 MB', 'image/jpeg', 6 * MB, 'too_large'],
  ])('a card image refused on whatsapp (%s)', async (_, contentType, size, reason) => {
    const bad = upload(contentType, size);
    const list = [card('A', black.id, [reply('a')]), card('B', bad.id, [reply('b')])];
    await expectRefusal(
      { text: 'Escolha', attachments: cards(...list) },
      ctxFor('whatsapp', { media: [black, bad] }),
      422,
      'media_not_supported',
      {
        channel: 'whatsapp',
        field: 'attachments[0].cards[1].media_id',
        media_id: bad.id,
        reason,
        content_type: contentType,
        size,
        max_size: 5_242_880,
      },
    );
  });

  it('a card image not found / not uploaded / expired', async () => {
    const pending = upload('image/jpeg', 0, { uploaded: false, size: null });
    const old = received('image/jpeg', 10, { expired: true });
    const c = ctxFor('whatsapp', { media: [black, pending, old] });
    const body = (id: string): SchemaSendMessageRequest => ({
      text: 'Escolha',
      attachments: cards(card('A', black.id, [reply('a')]), card('B', id, [reply('b')])),
    });
    await expectRefusal(body(UNKNOWN_MEDIA), c, 422, 'media_not_found', { media_id: UNKNOWN_MEDIA });
    await expectRefusal(body(pending.id), c, 422, 'media_not_uploaded', { media_id: pending.id });
    await expectRefusal(body(old.id), c, 410, 'media_expired', {});
  });

  it('media are looked up in card order and stop at the first fault', async () => {
    const c = ctxFor('whatsapp', { media: [black] });
    const list = [
      card('A', black.id, [reply('a')]),
      card('B', UNKNOWN_MEDIA, [reply('b')]),
      card('C', black.id, [reply('c')]),
    ];
    await expectRefusal({ text: 'Escolha', attachments: cards(...list) }, c, 422, 'media_not_found', {
      media_id: UNKNOWN_MEDIA,
    });
    expect(c.mediaLookups).toEqual([black.id, UNKNOWN_MEDIA]);
  });
});

describe('whatsapp: template', () => {
  const tpl = (body_variables?: string[]) => ({
    template: {
      name: 'order_shipped',
      language: 'pt_BR',
      ...(body_variables === undefined ? {} : { body_variables }),
    },
  });

  it('reads back with the body filled, never signed, no attachments', async () => {
    const c = ctxFor('whatsapp', { templates: [template()] });
    const out = await send(tpl(['Carla', '4821']), c);
    // The values go to the channel (which fills the body itself); the stored template is name and language.
    expect(out).toEqual({
      text: 'Olá Carla! Seu pedido #4821 foi enviado.',
      attachments: [],
      template: { name: 'order_shipped', language: 'pt_BR', body_variables: ['Carla', '4821'] },
      form: 'template',
    });
    expect(storedTemplate(out.template)).toEqual({ name: 'order_shipped', language: 'pt_BR' });
    expect(c.templateLookups).toEqual(['order_shipped/pt_BR']);
  });

  it.each<[string, string[] | undefined]>([
    ['omitted', undefined],
    ['empty', []],
  ])('a body without placeholders, body_variables %s', async (_, values) => {
    const c = ctxFor('whatsapp', { templates: [template({ body: 'Obrigado pela compra!', variable_count: 0 })] });
    expect((await send(tpl(values), c)).text).toBe('Obrigado pela compra!');
  });

  it('placeholders with spaces and a value holding a placeholder', async () => {
    const c = ctxFor('whatsapp', { templates: [template({ body: 'Oi {{ 1 }}, código {{2}}', variable_count: 2 })] });
    expect((await send(tpl(['{{2}}', 'X-1']), c)).text).toBe('Oi {{2}}, código X-1');
  });

  it('template_not_found: name and language as sent', async () => {
    const c = ctxFor('whatsapp', { templates: [template()] });
    await expectRefusal({ template: { name: 'order_shipped', language: 'en_US' } }, c, 422, 'template_not_found', {
      name: 'order_shipped',
      language: 'en_US',
    });
    await expectRefusal({ template: { name: 'order_update', language: 'pt_BR' } }, c, 422, 'template_not_found', {
      name: 'order_update',
      language: 'pt_BR',
    });
  });

  it.each(['pending', 'rejected', 'paused', 'disabled'] as const)('template_not_approved: %s', async (status) => {
    const c = ctxFor('whatsapp', { templates: [template({ status })] });
    await expectRefusal(tpl(['Ana', '1']), c, 422, 'template_not_approved', { status });
  });

  it.each<TemplateFeature>([...TEMPLATE_FEATURES])('template_not_supported: %s', async (feature) => {
    const c = ctxFor('whatsapp', { templates: [template({ unsupported_features: [feature] })] });
    await expectRefusal(tpl(['Ana', '1']), c, 422, 'template_not_supported', { reason: feature });
  });

  it.each<[TemplateFeature[], TemplateFeature]>([
    [['authentication', 'header_media'], 'header_media'],
    [['named_variables', 'carousel', 'button_variables'], 'button_variables'],
    [['authentication', 'named_variables'], 'named_variables'],
  ])('several unsupported features %j: the first in the spec order (%s)', async (features, reason) => {
    const c = ctxFor('whatsapp', { templates: [template({ unsupported_features: features })] });
    await expectRefusal(tpl(['Ana', '1']), c, 422, 'template_not_supported', { reason });
  });

  it('template_not_approved comes before template_not_supported and the variables', async () => {
    const c = ctxFor('whatsapp', { templates: [template({ status: 'paused', unsupported_features: ['carousel'] })] });
    await expectRefusal(tpl([]), c, 422, 'template_not_approved', { status: 'paused' });
  });

  it('template_not_supported comes before the variables', async () => {
    const c = ctxFor('whatsapp', { templates: [template({ unsupported_features: ['header_media'] })] });
    await expectRefusal(tpl(['a', 'b', 'c']), c, 422, 'template_not_supported', { reason: 'header_media' });
  });

  it.each<[string, string[] | undefined, number, number]>([
    ['one value missing (spec example)', ['Ana'], 2, 1],
    ['no values', undefined, 2, 0],
    ['an empty list', [], 2, 0],
    ['one value too many', ['Ana', '4821', 'extra'], 2, 3],
  ])('template_variables_mismatch: %s', async (_, values, expected, receivedCount) => {
    const c = ctxFor('whatsapp', { templates: [template()] });
    await expectRefusal(tpl(values), c, 422, 'template_variables_mismatch', { expected, received: receivedCount });
  });

  it('values for a body without placeholders are too many', async () => {
    const c = ctxFor('whatsapp', { templates: [template({ body: 'Obrigado!', variable_count: 0 })] });
    await expectRefusal(tpl(['x']), c, 422, 'template_variables_mismatch', { expected: 0, received: 1 });
  });
});

// -------------------------------------------------------------------------------------------- the spec examples

describe('the spec examples: each Send* request reads back as its Sent* response', () => {
  const operation = deref<JsonObject>(spec, (spec.paths as JsonObject)['/v1/conversations/{conversationId}/messages']!)
    .post as JsonObject;
  const requestExamples = ((operation.requestBody as JsonObject).content as JsonObject)[
    'application/json'
  ] as JsonObject;
  const response = deref<JsonObject>(spec, (operation.responses as JsonObject)['201']!);
  const responseExamples = (response.content as JsonObject)['application/json'] as JsonObject;
  const value = (holder: JsonObject, name: string) =>
    deref<JsonObject>(spec, (holder.examples as JsonObject)[name]!).value as JsonObject;
  const pairs: [string, string][] = [
    ['SendTextInstagram', 'SentTextInstagram'],
    ['SendTextWhatsapp', 'SentTextWhatsapp'],
    ['SendButtonsInstagram', 'SentButtonsReadBack'],
    ['SendReplyButtonsWhatsapp', 'SentReplyButtonsWhatsapp'],
    ['SendLinkButtonWhatsapp', 'SentLinkButtonWhatsapp'],
    ['SendImageInstagram', 'SentImageInstagram'],
    ['SendImageWithCaptionWhatsapp', 'SentImageWithCaptionWhatsapp'],
    ['SendDocumentWhatsapp', 'SentDocumentWhatsapp'],
    ['SendCardsInstagram', 'SentCardsInstagram'],
    ['SendCardsWhatsapp', 'SentCardsWhatsapp'],
    ['SendTemplateWhatsapp', 'SentTemplateWhatsapp'],
  ];

  /** The stored form: the view's `url` dropped from media attachments and card images (not from buttons). */
  const stored = (attachments: JsonObject[]): unknown[] =>
    attachments.map((att) => {
      if (att.type !== 'cards') return Object.fromEntries(Object.entries(att).filter(([k]) => k !== 'url'));
      return {
        ...att,
        cards: (att.cards as JsonObject[]).map((c) => {
          const image = c.image as JsonObject | null;
          return { ...c, image: image && { media_id: image.media_id, content_type: image.content_type } };
        }),
      };
    });

  it.each(pairs)('%s → %s', async (requestName, responseName) => {
    const body = value(requestExamples, requestName) as SchemaSendMessageRequest;
    const sent = value(responseExamples, responseName);
    const channel = (sent.channel as JsonObject).type as Channel;
    const media: MediaInfo[] = [];
    for (const att of sent.attachments as JsonObject[]) {
      if (att.type === 'cards') {
        for (const c of att.cards as JsonObject[]) {
          const image = c.image as JsonObject | null;
          if (image) media.push(upload(image.content_type as string, 100_000, { id: image.media_id as string }));
        }
      } else {
        media.push(
          upload(att.content_type as string, att.size as number, {
            id: att.media_id as string,
            filename: att.filename as string | null,
          }),
        );
      }
    }
    const templates: TemplateInfo[] = [];
    if (body.template) {
      let templateBody = sent.text as string;
      (body.template.body_variables ?? []).forEach((v, i) => {
        templateBody = templateBody.replace(v, `{{${i + 1}}}`);
      });
      templates.push(
        template({
          name: body.template.name,
          language: body.template.language,
          body: templateBody,
          variable_count: body.template.body_variables?.length ?? 0,
        }),
      );
    }
    const out = await send(body, ctxFor(channel, { media, templates, signature: SIG }));
    expect({ text: out.text, attachments: out.attachments, template: storedTemplate(out.template) }).toEqual({
      text: sent.text,
      attachments: stored(sent.attachments as JsonObject[]),
      template: sent.template,
    });
  });
});

describe('the bytes of a media against its Content-Type (issue 33)', () => {
  it('every content type a channel accepts names the formats its bytes may show', () => {
    const accepted = new Set(
      Object.values(MEDIA_RULES).flatMap((rules) => Object.values(rules).flatMap((rule) => rule.contentTypes)),
    );
    expect([...accepted].filter((type) => !Object.hasOwn(FORMATS_OF_TYPE, type))).toEqual([]);
  });

  it('the upload cap is one byte over the largest file any channel accepts (whatsapp’s 100 MB PDF)', () => {
    expect(LARGEST_MEDIA_BYTES).toBe(100 * 1024 * 1024);
  });
});
