// The encoder from the seeds' message forms to the WhatsApp Cloud API's message bodies (issue 35, section 4;
// server/channels/whatsapp-cloud/encode.ts), form by form, on the content the send rules build.
import { describe, expect, it } from 'vitest';
import type { OutboundContent, ReplyContext } from '../server/channels/provider.js';
import { buttonsCard, card, content, link, reply } from './outbound-content.js';
import {
  CARD_TEXT_LIMIT,
  EncodeError,
  encodeMessage,
  mediaToUpload,
  whatsappTo,
} from '../server/channels/whatsapp-cloud/encode.js';

const PHONE = '+5511999990001';
const IMG1 = '7a0c7f4e-0000-4000-8000-000000000001';
const IMG2 = '7a0c7f4e-0000-4000-8000-000000000002';
const DOC = '7a0c7f4e-0000-4000-8000-000000000003';
const uploaded = new Map([
  [IMG1, 'meta-img-1'],
  [IMG2, 'meta-img-2'],
  [DOC, 'meta-doc'],
]);

const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '5511999990001' };

const encode = (content: OutboundContent, replyTo: ReplyContext | null = null, mediaIds = uploaded) =>
  encodeMessage({ phone: PHONE, content, replyTo, mediaIds });

describe('the whatsapp encoder', () => {
  it('text: the body, preview_url false, to without the +', () => {
    expect(encode(content({ text: 'Oi https://example.com' }))).toEqual({
      ...envelope,
      type: 'text',
      text: { preview_url: false, body: 'Oi https://example.com' },
    });
    expect(whatsappTo('+14155550100')).toBe('14155550100');
  });

  it('text with reply buttons: interactive.button, the text as the body', () => {
    const body = encode(buttonsCard('Escolha', [reply('yes', 'Sim'), reply('no', 'Não'), reply('later', 'Depois')]));
    expect(body).toEqual({
      ...envelope,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Escolha' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'yes', title: 'Sim' } },
            { type: 'reply', reply: { id: 'no', title: 'Não' } },
            { type: 'reply', reply: { id: 'later', title: 'Depois' } },
          ],
        },
      },
    });
  });

  it('text with a link button: interactive.cta_url', () => {
    expect(encode(buttonsCard('Veja', [link('Abrir', 'https://example.com/a?b=1')]))).toEqual({
      ...envelope,
      type: 'interactive',
      interactive: {
        type: 'cta_url',
        body: { text: 'Veja' },
        action: { name: 'cta_url', parameters: { display_text: 'Abrir', url: 'https://example.com/a?b=1' } },
      },
    });
  });

  it('buttons whatsapp does not carry are our defect: more than 3 replies, a link with another button', () => {
    const four = [reply('a', 'A'), reply('b', 'B'), reply('c', 'C'), reply('d', 'D')];
    expect(() => encode(buttonsCard('x', four))).toThrow(EncodeError);
    expect(() => encode(buttonsCard('x', [link('L', 'https://e.com'), reply('a', 'A')]))).toThrow(EncodeError);
  });

  it('media: by the id of its upload, with a caption on an image', () => {
    const image = content({
      form: 'media',
      text: 'Legenda',
      attachments: [
        { type: 'image', media_id: IMG1, content_type: 'image/png', size: 10, filename: 'a.png', expires_at: null },
      ],
    });
    expect(mediaToUpload(image)).toEqual([IMG1]);
    expect(encode(image)).toEqual({ ...envelope, type: 'image', image: { id: 'meta-img-1', caption: 'Legenda' } });
  });

  it('media: a file is a document with its filename; audio carries no caption', () => {
    const file = content({
      form: 'media',
      text: 'O contrato',
      attachments: [
        { type: 'file', media_id: DOC, content_type: 'application/pdf', size: 9, filename: 'c.pdf', expires_at: null },
      ],
    });
    expect(encode(file)).toEqual({
      ...envelope,
      type: 'document',
      document: { id: 'meta-doc', caption: 'O contrato', filename: 'c.pdf' },
    });
    const audio = content({
      form: 'media',
      attachments: [
        { type: 'audio', media_id: DOC, content_type: 'audio/mpeg', size: 9, filename: null, expires_at: null },
      ],
    });
    expect(encode(audio)).toEqual({ ...envelope, type: 'audio', audio: { id: 'meta-doc' } });
  });

  it('media that was not uploaded is our defect', () => {
    const image = content({
      form: 'media',
      attachments: [
        { type: 'image', media_id: IMG1, content_type: 'image/png', size: 10, filename: null, expires_at: null },
      ],
    });
    expect(() => encode(image, null, new Map())).toThrow(EncodeError);
  });

  it('cards with reply buttons: interactive.carousel, quick_reply buttons, images by upload id', () => {
    const cards = content({
      form: 'cards',
      text: 'Nossos planos',
      attachments: [
        {
          type: 'cards',
          cards: [
            card('Básico', 'R$ 10', IMG1, [reply('basic', 'Quero')]),
            card('Pro', null, IMG2, [reply('pro', 'Quero')]),
          ],
        },
      ],
    });
    expect(mediaToUpload(cards)).toEqual([IMG1, IMG2]);
    expect(encode(cards)).toEqual({
      ...envelope,
      type: 'interactive',
      interactive: {
        type: 'carousel',
        body: { text: 'Nossos planos' },
        action: {
          cards: [
            {
              card_index: 0,
              type: 'button',
              header: { type: 'image', image: { id: 'meta-img-1' } },
              body: { text: 'Básico\nR$ 10' },
              action: { buttons: [{ type: 'quick_reply', quick_reply: { id: 'basic', title: 'Quero' } }] },
            },
            {
              card_index: 1,
              type: 'button',
              header: { type: 'image', image: { id: 'meta-img-2' } },
              body: { text: 'Pro' },
              action: { buttons: [{ type: 'quick_reply', quick_reply: { id: 'pro', title: 'Quero' } }] },
            },
          ],
        },
      },
    });
  });

  it("fits a card's title and subtitle into Meta's 160 characters, cutting the subtitle only", () => {
    const title = 'T'.repeat(80);
    const cards = (subtitle: string) =>
      content({
        form: 'cards',
        text: 'Planos',
        attachments: [
          {
            type: 'cards',
            cards: [card(title, subtitle, IMG1, [reply('a', 'A')]), card('B', null, IMG2, [reply('b', 'B')])],
          },
        ],
      });
    const cardText = (subtitle: string) => {
      const body = encode(cards(subtitle));
      return body.type === 'interactive' && body.interactive.type === 'carousel'
        ? body.interactive.action.cards[0]?.body?.text
        : undefined;
    };
    // 80 + 1 + 80 = 161: one character of the subtitle goes; 80 + 1 + 79 = 160 fits whole.
    expect(cardText('s'.repeat(80))).toBe(`${title}\n${'s'.repeat(79)}`);
    expect(cardText('s'.repeat(79))).toBe(`${title}\n${'s'.repeat(79)}`);
    expect(Array.from(cardText('é☃'.repeat(40)) ?? '')).toHaveLength(CARD_TEXT_LIMIT);
  });

  it('cards with a link button each: cta_url cards; the same image twice is uploaded once', () => {
    const cards = content({
      form: 'cards',
      text: 'Veja',
      attachments: [
        {
          type: 'cards',
          cards: [
            card('A', null, IMG1, [link('Ver', 'https://e.com/a')]),
            card('B', null, IMG1, [link('Ver', 'https://e.com/b')]),
          ],
        },
      ],
    });
    expect(mediaToUpload(cards)).toEqual([IMG1]);
    const body = encode(cards);
    expect(
      body.type === 'interactive' && body.interactive.type === 'carousel' && body.interactive.action.cards,
    ).toEqual([
      {
        card_index: 0,
        type: 'cta_url',
        header: { type: 'image', image: { id: 'meta-img-1' } },
        body: { text: 'A' },
        action: { name: 'cta_url', parameters: { display_text: 'Ver', url: 'https://e.com/a' } },
      },
      {
        card_index: 1,
        type: 'cta_url',
        header: { type: 'image', image: { id: 'meta-img-1' } },
        body: { text: 'B' },
        action: { name: 'cta_url', parameters: { display_text: 'Ver', url: 'https://e.com/b' } },
      },
    ]);
  });

  it('template: name, language.code and the body values as text parameters, in order', () => {
    const template = content({
      form: 'template',
      text: 'Olá Ana, seu pedido 4821 foi enviado.',
      template: { name: 'order_shipped', language: 'pt_BR', body_variables: ['Ana', '4821'] },
    });
    expect(encode(template)).toEqual({
      ...envelope,
      type: 'template',
      template: {
        name: 'order_shipped',
        language: { code: 'pt_BR' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'text', text: '4821' },
            ],
          },
        ],
      },
    });
  });

  it('template without placeholders: no components', () => {
    const template = content({
      form: 'template',
      text: 'Olá!',
      template: { name: 'hello', language: 'en_US', body_variables: [] },
    });
    expect(encode(template)).toEqual({
      ...envelope,
      type: 'template',
      template: { name: 'hello', language: { code: 'en_US' } },
    });
  });

  it("a reply to a contact's message quotes its wamid; a comment's context does not reach whatsapp", () => {
    const text = content({ text: 'Claro!' });
    expect(encode(text, { kind: 'message_reply', messageId: 'm1', providerMessageId: 'wamid.ABC' })).toEqual({
      ...envelope,
      context: { message_id: 'wamid.ABC' },
      type: 'text',
      text: { preview_url: false, body: 'Claro!' },
    });
    const comment: ReplyContext = { kind: 'comment_private_reply', messageId: 'c1', providerMessageId: null };
    expect(encode(text, comment)).not.toHaveProperty('context');
  });

  it('a form without what it needs is our defect', () => {
    expect(() => encode(content({ text: null }))).toThrow(EncodeError);
    expect(() => encode(content({ form: 'template' }))).toThrow(EncodeError);
    expect(() => encode(content({ form: 'cards', text: null, attachments: [{ type: 'cards', cards: [] }] }))).toThrow(
      EncodeError,
    );
  });
});
