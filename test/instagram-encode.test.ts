// The encoder from the seeds' message forms to Instagram's send bodies (issue 36 §3;
// server/channels/instagram/encode.ts), form by form, on the content the send rules build.
import { describe, expect, it } from 'vitest';
import { buttonsCard, card, content, link, reply } from './outbound-content.js';
import {
  EncodeError,
  encodeMessage,
  mediaToSend,
  type InstagramMediaRef,
} from '../server/channels/instagram/encode.js';
import type {
  ChannelDelivery,
  OutboundAttachment,
  OutboundCard,
  OutboundContent,
  ReplyContext,
} from '../server/channels/provider.js';

const IGSID = '1789012345678901';
const COMMENT = '17858893269000001';
const IMG1 = '7a0c7f4e-0000-4000-8000-000000000001';
const IMG2 = '7a0c7f4e-0000-4000-8000-000000000002';
const VIDEO = '7a0c7f4e-0000-4000-8000-000000000003';
const media = new Map<string, InstagramMediaRef>([
  [IMG1, { url: 'https://api.example.com/v1/media/1/content?signature=a' }],
  [IMG2, { url: 'https://api.example.com/v1/media/2/content?signature=b' }],
  [VIDEO, { attachmentId: '1857777774821032' }],
]);

const delivery = (content: OutboundContent, replyTo: ReplyContext | null = null): ChannelDelivery => ({
  connection: {
    id: 'c0000000-0000-4000-8000-000000000001',
    accountId: 'a0000000-0000-4000-8000-000000000001',
    channel: 'instagram',
    provider: 'sandbox',
    phone: null,
    username: 'shop',
  },
  recipient: { channel: 'instagram', userId: IGSID },
  content,
  replyTo,
});

const encode = (content: OutboundContent, replyTo: ReplyContext | null = null) =>
  encodeMessage(delivery(content, replyTo), { media });

const cards = (list: OutboundCard[]): OutboundContent =>
  content({ form: 'cards', attachments: [{ type: 'cards', cards: list }] });
const mediaAttachment = (
  type: 'image' | 'video' | 'audio' | 'file' | 'sticker',
  mediaId: string,
): OutboundAttachment => ({
  type,
  media_id: mediaId,
  content_type: null,
  size: 10,
  filename: type === 'file' ? 'c.pdf' : null,
  expires_at: null,
});
const mediaContent = (attachment: OutboundAttachment): OutboundContent =>
  content({ form: 'media', attachments: [attachment] });

describe('the instagram encoder', () => {
  it('text: message.text to the IGSID', () => {
    expect(encode(content({ text: 'Oi 👋 https://example.com' }))).toEqual({
      recipient: { id: IGSID },
      message: { text: 'Oi 👋 https://example.com' },
    });
  });

  it('text: up to 1000 characters, counted in code points', () => {
    expect(encode(content({ text: '👋'.repeat(1000) })).message).toEqual({ text: '👋'.repeat(1000) });
    expect(() => encode(content({ text: 'a'.repeat(1001) }))).toThrow(EncodeError);
    expect(() => encode(content({ text: '' }))).toThrow(EncodeError);
  });

  it('text with buttons: the button template, a reply as a postback with its id, a link as web_url', () => {
    const body = encode(
      buttonsCard('Escolha', [
        reply('yes', 'Sim'),
        link('Site', 'https://api.example.com/links/4f0d8a36?u=1'),
        reply('no', 'Não'),
      ]),
    );
    expect(body).toEqual({
      recipient: { id: IGSID },
      message: {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'button',
            text: 'Escolha',
            buttons: [
              { type: 'postback', title: 'Sim', payload: 'yes' },
              { type: 'web_url', title: 'Site', url: 'https://api.example.com/links/4f0d8a36?u=1' },
              { type: 'postback', title: 'Não', payload: 'no' },
            ],
          },
        },
      },
    });
  });

  it('text with buttons: at most 3 buttons, a text of at most 640 characters', () => {
    const four = [reply('a', 'A'), reply('b', 'B'), reply('c', 'C'), reply('d', 'D')];
    expect(() => encode(buttonsCard('x', four))).toThrow(EncodeError);
    expect(() => encode(buttonsCard('x'.repeat(641), [reply('a', 'A')]))).toThrow(EncodeError);
    expect(encode(buttonsCard('x'.repeat(640), [reply('a', 'A')])).message).toMatchObject({
      attachment: { payload: { text: 'x'.repeat(640) } },
    });
    expect(() => encode(buttonsCard('x', []))).toThrow(EncodeError);
  });

  it('cards: the generic template, each card an element with its image address and buttons', () => {
    const body = encode(
      cards([
        card('Camisa', 'Algodão', IMG1, [reply('buy_1', 'Comprar'), link('Ver', 'https://shop.example.com/1')]),
        card('Calça', null, IMG2, []),
        card('Sem foto', 'Só texto', null, [reply('buy_3', 'Comprar')]),
      ]),
    );
    expect(body).toEqual({
      recipient: { id: IGSID },
      message: {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'generic',
            elements: [
              {
                title: 'Camisa',
                subtitle: 'Algodão',
                image_url: 'https://api.example.com/v1/media/1/content?signature=a',
                buttons: [
                  { type: 'postback', title: 'Comprar', payload: 'buy_1' },
                  { type: 'web_url', title: 'Ver', url: 'https://shop.example.com/1' },
                ],
              },
              { title: 'Calça', image_url: 'https://api.example.com/v1/media/2/content?signature=b' },
              {
                title: 'Sem foto',
                subtitle: 'Só texto',
                buttons: [{ type: 'postback', title: 'Comprar', payload: 'buy_3' }],
              },
            ],
          },
        },
      },
    });
    expect(mediaToSend(cards([card('a', null, IMG1, []), card('b', null, IMG1, [])]))).toEqual({
      attachments: [],
      cardImages: [IMG1],
    });
  });

  it("cards: Meta's limits (1 to 10 elements, title and subtitle 80, 3 buttons) and an image by address only", () => {
    const one = card('t', 's', null, []);
    expect(encode(cards(Array.from({ length: 10 }, () => one))).message).toMatchObject({
      attachment: { payload: { template_type: 'generic' } },
    });
    expect(() => encode(cards(Array.from({ length: 11 }, () => one)))).toThrow(EncodeError);
    expect(() => encode(cards([]))).toThrow(EncodeError);
    // A title alone: Meta wants a subtitle, an image or a button beside it.
    expect(() => encode(cards([card('t', null, null, [])]))).toThrow(EncodeError);
    expect(() => encode(cards([card('t'.repeat(81), 's', null, [])]))).toThrow(EncodeError);
    expect(() => encode(cards([card('t', 's'.repeat(81), null, [])]))).toThrow(EncodeError);
    const four = [reply('a', 'A'), reply('b', 'B'), reply('c', 'C'), reply('d', 'D')];
    expect(() => encode(cards([card('t', null, null, four)]))).toThrow(EncodeError);
    // An upload's id cannot stand for a card's image: Meta reads `image_url` only.
    expect(() => encode(cards([card('t', 's', VIDEO, [])]))).toThrow(EncodeError);
    expect(() => encode({ ...cards([one]), text: 'above' })).toThrow(EncodeError);
  });

  it('media by address: attachment {type, payload.url}, for each kind', () => {
    for (const type of ['image', 'video', 'audio', 'file'] as const) {
      const body = encode(mediaContent(mediaAttachment(type, IMG1)));
      expect(body, type).toEqual({
        recipient: { id: IGSID },
        message: { attachment: { type, payload: { url: 'https://api.example.com/v1/media/1/content?signature=a' } } },
      });
    }
  });

  it('media by upload: attachment {type, payload.attachment_id}', () => {
    const video = mediaContent(mediaAttachment('video', VIDEO));
    expect(mediaToSend(video)).toEqual({ attachments: [VIDEO], cardImages: [] });
    expect(encode(video)).toEqual({
      recipient: { id: IGSID },
      message: { attachment: { type: 'video', payload: { attachment_id: '1857777774821032' } } },
    });
  });

  it('media instagram does not carry is our defect: a caption, a sticker, a media neither addressed nor uploaded', () => {
    expect(() => encode({ ...mediaContent(mediaAttachment('image', IMG1)), text: 'legenda' })).toThrow(EncodeError);
    expect(() => encode(mediaContent(mediaAttachment('sticker', IMG1)))).toThrow(EncodeError);
    expect(() => encode(mediaContent(mediaAttachment('image', '7a0c7f4e-0000-4000-8000-00000000ffff')))).toThrow(
      EncodeError,
    );
  });

  it('a private reply goes to the comment: recipient.comment_id, whatever the form', () => {
    const replyTo: ReplyContext = {
      kind: 'comment_private_reply',
      messageId: 'm-of-the-comment',
      providerMessageId: COMMENT,
    };
    expect(encode(content({ text: 'Oi!' }), replyTo)).toEqual({
      recipient: { comment_id: COMMENT },
      message: { text: 'Oi!' },
    });
    expect(encode(buttonsCard('Quer o link?', [reply('yes', 'Sim')]), replyTo).recipient).toEqual({
      comment_id: COMMENT,
    });
    // Without Meta's id of the comment there is nobody to send to.
    expect(() => encode(content({ text: 'Oi!' }), { ...replyTo, providerMessageId: null })).toThrow(EncodeError);
  });

  it("a public reply is not a message send; a reply to a contact's message is a plain message", () => {
    const publicReply: ReplyContext = { kind: 'comment_public_reply', messageId: 'm', providerMessageId: COMMENT };
    expect(() => encode(content({ text: 'Oi!' }), publicReply)).toThrow(EncodeError);
    expect(
      encode(content({ text: 'Oi!' }), { kind: 'message_reply', messageId: 'm', providerMessageId: 'aWdfZAG1' }),
    ).toEqual({ recipient: { id: IGSID }, message: { text: 'Oi!' } });
  });

  it('no template, no contact without an id, no whatsapp contact', () => {
    const template = content({
      form: 'template',
      text: 'Olá',
      template: { name: 'hello', language: 'pt_BR', body_variables: [] },
    });
    expect(() => encode(template)).toThrow(EncodeError);
    const text = content({ text: 'Oi' });
    expect(() =>
      encodeMessage({ ...delivery(text), recipient: { channel: 'instagram', userId: null } }, { media }),
    ).toThrow(EncodeError);
    expect(() =>
      encodeMessage({ ...delivery(text), recipient: { channel: 'whatsapp', phone: '+5511999990001' } }, { media }),
    ).toThrow(EncodeError);
  });
});
