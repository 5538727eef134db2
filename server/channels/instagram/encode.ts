// The seeds' message forms (OutboundContent, as the send rules built them) → the body of Instagram's
// `POST /{version}/{ig_user_id or page_id}/messages` (the same body on both hosts: Instagram Login and Facebook
// Login). One pure function, tested form by form (test/instagram-encode.test.ts); the send rules have already
// refused what instagram does not carry, so a form that does not fit here is our own defect (`EncodeError`).
//
// - Whom: `recipient.id`, the contact's IGSID; a private reply to a comment (`comment_private_reply`) goes to
//   `recipient.comment_id`, Meta's id of the comment, which the caller reads (the reply context names our message).
//   A public reply is not a message send (`POST /{comment_id}/replies`): never encoded here.
// - text: `message.text` (≤ 1000).
// - text + buttons: the button template (`template_type: button`, text ≤ 640, 1–3 buttons; a reply button is a
//   `postback` whose payload is its id, a link a `web_url` with the address as the send rules wrote it, tracked
//   links included). The text is the card's title (the send rules store text with buttons as one card).
// - cards: the generic template (1–10 elements, title ≤ 80, subtitle ≤ 80, `image_url`, ≤ 3 buttons each, and
//   beside the title at least one of the others, as Meta requires). Meta reads a card's image by address only, so
//   a card image must be a URL Meta can fetch.
// - media: `attachment {type: image|video|audio|file}` with `payload.url` (an address Meta fetches) or
//   `payload.attachment_id` (uploaded first through `message_attachments`, when our address is not public): the
//   caller maps each media id to one or the other. Instagram carries no caption: the send rules refuse one.
// - A reply to a contact's message is sent as a plain message: Meta documents no quoting on Instagram's send.
// Lengths are counted in code points, as the send rules count them.
import type { ChannelDelivery, OutboundAttachment, OutboundCard, OutboundContent } from '../provider.js';
import { buttonsCard, cardsOf, EncodeError, onlyAttachment } from '../graph/encoding.js';

export { EncodeError };

/** Meta's limits on what a send carries (a longer or larger one is refused, code 100). */
export const INSTAGRAM_LIMITS = {
  text: 1000,
  buttonText: 640,
  buttons: 3,
  elements: 10,
  elementTitle: 80,
  elementSubtitle: 80,
} as const;

/** How Meta gets a media: an address it can fetch, or the id `message_attachments` gave its upload. */
export type InstagramMediaRef = { url: string } | { attachmentId: string };

export interface EncodeRefs {
  /** Our media id → how Meta gets it (every id of `mediaToSend(content)`; card images by `url` only). */
  media: ReadonlyMap<string, InstagramMediaRef>;
}

type CardButton = OutboundCard['buttons'][number];
type MediaKind = 'image' | 'video' | 'audio' | 'file';

export type InstagramButton =
  { type: 'postback'; title: string; payload: string } | { type: 'web_url'; title: string; url: string };

export interface GenericElement {
  title: string;
  subtitle?: string;
  image_url?: string;
  buttons?: InstagramButton[];
}

/** What the message is, in Meta's words (`message`). */
export type InstagramMessage =
  | { text: string }
  | {
      attachment: {
        type: 'template';
        payload:
          | { template_type: 'button'; text: string; buttons: InstagramButton[] }
          | { template_type: 'generic'; elements: GenericElement[] };
      };
    }
  | { attachment: { type: MediaKind; payload: { url: string } | { attachment_id: string } } };

/** The JSON body of `POST /{version}/{ig_user_id or page_id}/messages`. */
export interface InstagramMessageBody {
  recipient: { id: string } | { comment_id: string };
  message: InstagramMessage;
}

const length = (text: string): number => [...text].length;

function withinLimit(text: string, limit: number, what: string): string {
  if (length(text) > limit) throw new EncodeError(`instagram takes ${what} of at most ${limit} characters`);
  return text;
}

/** Our media kinds instagram sends (a sticker is not one: the send rules take none from the customer). */
function mediaKind(type: Exclude<OutboundAttachment['type'], 'cards'>): MediaKind {
  if (type === 'sticker') throw new EncodeError('instagram sends no sticker');
  return type;
}

/** The media a message carries, for the caller to map (our ids, in order, each once): attachments and card images. */
export function mediaToSend(content: OutboundContent): { attachments: string[]; cardImages: string[] } {
  const attachments: string[] = [];
  const cardImages: string[] = [];
  for (const attachment of content.attachments) {
    if (attachment.type !== 'cards') attachments.push(attachment.media_id);
    else for (const card of attachment.cards) if (card.image) cardImages.push(card.image.media_id);
  }
  return { attachments: [...new Set(attachments)], cardImages: [...new Set(cardImages)] };
}

function mediaRef(media: ReadonlyMap<string, InstagramMediaRef>, mediaId: string): InstagramMediaRef {
  const ref = media.get(mediaId);
  if (ref === undefined) throw new EncodeError(`media ${mediaId} has neither an address nor an upload`);
  return ref;
}

function button(button: CardButton): InstagramButton {
  if (button.type === 'postback') {
    if (button.id === null) throw new EncodeError('a reply button without its id');
    return { type: 'postback', title: button.title, payload: button.id };
  }
  if (button.url === null) throw new EncodeError('a link button without its url');
  return { type: 'web_url', title: button.title, url: button.url };
}

function buttons(list: readonly CardButton[]): InstagramButton[] {
  if (list.length > INSTAGRAM_LIMITS.buttons) throw new EncodeError('instagram sends at most 3 buttons');
  return list.map(button);
}

/** Text with buttons: one card whose title is the text (send-rules' stored form) → the button template. */
function buttonTemplate(content: OutboundContent): InstagramMessage {
  const card = buttonsCard(content);
  const text = withinLimit(card.title, INSTAGRAM_LIMITS.buttonText, 'a text above buttons');
  return {
    attachment: { type: 'template', payload: { template_type: 'button', text, buttons: buttons(card.buttons) } },
  };
}

function element(card: OutboundCard, media: ReadonlyMap<string, InstagramMediaRef>): GenericElement {
  // Meta refuses an element that has its title alone.
  if (!card.subtitle && !card.image && card.buttons.length === 0)
    throw new EncodeError('instagram needs a subtitle, an image or a button beside a card title');
  const title = withinLimit(card.title, INSTAGRAM_LIMITS.elementTitle, 'a card title');
  let imageUrl: string | undefined;
  if (card.image) {
    const ref = mediaRef(media, card.image.media_id);
    if (!('url' in ref)) throw new EncodeError("instagram reads a card's image by its address only");
    imageUrl = ref.url;
  }
  return {
    title,
    ...(card.subtitle ? { subtitle: withinLimit(card.subtitle, INSTAGRAM_LIMITS.elementSubtitle, 'a subtitle') } : {}),
    ...(imageUrl === undefined ? {} : { image_url: imageUrl }),
    ...(card.buttons.length > 0 ? { buttons: buttons(card.buttons) } : {}),
  };
}

function genericTemplate(content: OutboundContent, media: ReadonlyMap<string, InstagramMediaRef>): InstagramMessage {
  if (content.text) throw new EncodeError('instagram carries no text above cards');
  const cards = cardsOf(content);
  if (cards.length === 0 || cards.length > INSTAGRAM_LIMITS.elements)
    throw new EncodeError('instagram sends 1 to 10 cards');
  const elements = cards.map((card) => element(card, media));
  return { attachment: { type: 'template', payload: { template_type: 'generic', elements } } };
}

function mediaMessage(content: OutboundContent, media: ReadonlyMap<string, InstagramMediaRef>): InstagramMessage {
  if (content.text) throw new EncodeError('instagram carries no caption');
  const attachment = onlyAttachment(content);
  if (attachment.type === 'cards') throw new EncodeError('a media message holds a media');
  const type = mediaKind(attachment.type);
  const ref = mediaRef(media, attachment.media_id);
  const payload = 'url' in ref ? { url: ref.url } : { attachment_id: ref.attachmentId };
  return { attachment: { type, payload } };
}

/** What the content is, in Meta's words. Throws EncodeError for a form the send rules should have refused. */
export function encodeContent(
  content: OutboundContent,
  media: ReadonlyMap<string, InstagramMediaRef>,
): InstagramMessage {
  switch (content.form) {
    case 'text':
      if (content.text === null || content.text === '') throw new EncodeError('a text form without its text');
      return { text: withinLimit(content.text, INSTAGRAM_LIMITS.text, 'a text') };
    case 'text_buttons':
      return buttonTemplate(content);
    case 'media':
      return mediaMessage(content, media);
    case 'cards':
      return genericTemplate(content, media);
    case 'template':
      throw new EncodeError('instagram has no templates');
  }
}

/** Whom the send goes to: the contact, or the comment a private reply answers. */
function recipientOf(delivery: ChannelDelivery): InstagramMessageBody['recipient'] {
  const { recipient, replyTo } = delivery;
  if (recipient.channel !== 'instagram') throw new EncodeError(`an instagram send to a ${recipient.channel} contact`);
  if (replyTo?.kind === 'comment_public_reply') throw new EncodeError('a public reply is not a message send');
  if (replyTo?.kind === 'comment_private_reply') {
    if (!replyTo.providerMessageId) throw new EncodeError("a private reply without the comment's id");
    return { comment_id: replyTo.providerMessageId };
  }
  if (!recipient.userId) throw new EncodeError("an instagram send without the contact's id");
  return { id: recipient.userId };
}

/** The whole body of the send. Pure; throws EncodeError for a form the send rules should have refused. */
export function encodeMessage(delivery: ChannelDelivery, refs: EncodeRefs): InstagramMessageBody {
  return {
    recipient: recipientOf(delivery),
    message: encodeContent(delivery.content, refs.media),
  };
}
