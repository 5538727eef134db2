// The seeds' message forms (OutboundContent, as the send rules built them) → the body of the WhatsApp Cloud API's
// `POST /{version}/{phone_number_id}/messages`. One pure function, tested form by form
// (test/whatsapp-cloud-encode.test.ts); the send rules have already refused what whatsapp does not carry, so a
// form that does not fit here is our own defect (`EncodeError`), never the partner's.
//
// - text: `text.body`, `preview_url` false (a link in a text stays a link, never a preview Meta fetches).
// - text + reply buttons: `interactive.button` (1–3 `reply` buttons); text + one link button:
//   `interactive.cta_url`. The text is the card's title (the send rules store text with buttons as one card).
// - media: by the id Meta gave the upload (`mediaIds`: our media id → Meta's), never by link, so that it works
//   when Meta cannot reach this server; a caption on image, video and document; a document keeps its filename.
// - cards: `interactive.carousel`, the text above in `body`; each card an image header (uploaded, by id), its
//   title (and subtitle, on the next line) as the card's body, and either one `cta_url` or `quick_reply` buttons.
// - template: `name`, `language.code`, and the body's values as `components[0]` (`type: body`, text parameters).
// - A reply to a contact's message quotes it: `context.message_id` (its `wamid`).
// - `to` is the number without its `+` (Meta's form of E.164).
import type { OutboundAttachment, OutboundCard, OutboundContent, ReplyContext } from '../provider.js';
import { buttonsCard, cardsOf, EncodeError, onlyAttachment } from '../graph/encoding.js';

export { EncodeError };

type CardButton = OutboundCard['buttons'][number];
type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker';

interface ReplyButtonBody {
  type: 'reply';
  reply: { id: string; title: string };
}
interface CtaUrlAction {
  name: 'cta_url';
  parameters: { display_text: string; url: string };
}
interface CarouselCardBody {
  card_index: number;
  type: 'cta_url' | 'button';
  header: { type: 'image'; image: { id: string } };
  body?: { text: string };
  action: CtaUrlAction | { buttons: { type: 'quick_reply'; quick_reply: { id: string; title: string } }[] };
}

/** A media by the id of its upload. */
interface MediaObject {
  id: string;
  caption?: string;
  filename?: string;
}

/** What the message is, in Meta's words (the `type` and its object). */
export type WhatsAppPayload =
  | { type: 'text'; text: { preview_url: false; body: string } }
  | {
      type: 'interactive';
      interactive:
        | { type: 'button'; body: { text: string }; action: { buttons: ReplyButtonBody[] } }
        | { type: 'cta_url'; body: { text: string }; action: CtaUrlAction }
        | { type: 'carousel'; body: { text: string }; action: { cards: CarouselCardBody[] } };
    }
  | { type: 'image'; image: MediaObject }
  | { type: 'video'; video: MediaObject }
  | { type: 'audio'; audio: MediaObject }
  | { type: 'document'; document: MediaObject }
  | { type: 'sticker'; sticker: MediaObject }
  | {
      type: 'template';
      template: {
        name: string;
        language: { code: string };
        components?: { type: 'body'; parameters: { type: 'text'; text: string }[] }[];
      };
    };

/** The JSON body of `POST /{version}/{phone_number_id}/messages`. */
export type WhatsAppMessageBody = {
  messaging_product: 'whatsapp';
  recipient_type: 'individual';
  to: string;
  context?: { message_id: string };
} & WhatsAppPayload;

export interface EncodeInput {
  /** The recipient's number, E.164 (`+5511…`). */
  phone: string;
  content: OutboundContent;
  replyTo: ReplyContext | null;
  /** Our media id → the id Meta gave its upload (every id of `mediaToUpload(content)`). */
  mediaIds: ReadonlyMap<string, string>;
}

/** Meta's media kind of an attachment type (our `file` is Meta's `document`). */
const MEDIA_KIND: Record<Exclude<OutboundAttachment['type'], 'cards'>, MediaKind> = {
  image: 'image',
  video: 'video',
  audio: 'audio',
  file: 'document',
  sticker: 'sticker',
};

/** The media a message carries, to upload before the send (our ids, in order, each once). */
export function mediaToUpload(content: OutboundContent): string[] {
  const ids: string[] = [];
  for (const attachment of content.attachments) {
    if (attachment.type !== 'cards') ids.push(attachment.media_id);
    else for (const card of attachment.cards) if (card.image) ids.push(card.image.media_id);
  }
  return [...new Set(ids)];
}

const uploadedId = (mediaIds: ReadonlyMap<string, string>, mediaId: string): string => {
  const id = mediaIds.get(mediaId);
  if (id === undefined) throw new EncodeError(`media ${mediaId} was not uploaded`);
  return id;
};

const replyButton = (button: CardButton): ReplyButtonBody => {
  if (button.type !== 'postback' || button.id === null) throw new EncodeError('a reply button without its id');
  return { type: 'reply', reply: { id: button.id, title: button.title } };
};

const ctaUrl = (button: CardButton): CtaUrlAction => {
  if (button.type !== 'open_url' || button.url === null) throw new EncodeError('a link button without its url');
  return { name: 'cta_url', parameters: { display_text: button.title, url: button.url } };
};

/** The only link button of a list, or undefined when the list holds reply buttons only. */
function linkButton(buttons: readonly CardButton[]): CardButton | undefined {
  const links = buttons.filter((button) => button.type === 'open_url');
  if (links.length === 0) return undefined;
  if (links.length > 1 || buttons.length > 1) throw new EncodeError('whatsapp sends one link button alone');
  return links[0];
}

/** Text with buttons: one card whose title is the text (send-rules' stored form). */
function buttonsPayload(content: OutboundContent): WhatsAppPayload {
  const card = buttonsCard(content);
  const body = { text: card.title };
  const link = linkButton(card.buttons);
  if (link) return { type: 'interactive', interactive: { type: 'cta_url', body, action: ctaUrl(link) } };
  if (card.buttons.length > 3) throw new EncodeError('whatsapp sends 1 to 3 reply buttons');
  return {
    type: 'interactive',
    interactive: { type: 'button', body, action: { buttons: card.buttons.map(replyButton) } },
  };
}

function mediaPayload(content: OutboundContent, mediaIds: ReadonlyMap<string, string>): WhatsAppPayload {
  const attachment = onlyAttachment(content);
  if (attachment.type === 'cards') throw new EncodeError('a media message holds a media');
  const kind = MEDIA_KIND[attachment.type];
  const captioned = kind === 'image' || kind === 'video' || kind === 'document';
  return mediaMessage(kind, {
    id: uploadedId(mediaIds, attachment.media_id),
    ...(captioned && content.text ? { caption: content.text } : {}),
    ...(kind === 'document' && attachment.filename ? { filename: attachment.filename } : {}),
  });
}

/** Meta keys the media object by its kind. */
function mediaMessage(kind: MediaKind, media: MediaObject): WhatsAppPayload {
  switch (kind) {
    case 'image':
      return { type: kind, image: media };
    case 'video':
      return { type: kind, video: media };
    case 'audio':
      return { type: kind, audio: media };
    case 'document':
      return { type: kind, document: media };
    case 'sticker':
      return { type: kind, sticker: media };
  }
}

/** Meta's limit on a carousel card's text (a longer one is refused, 131009). */
export const CARD_TEXT_LIMIT = 160;

/**
 * A card's text: its title, then its subtitle on the next line. The seeds allow 80 characters each, one more than
 * Meta takes with the line break, so a subtitle that would pass the limit is cut to fit (never the title).
 */
function cardText(card: OutboundCard): string {
  if (!card.subtitle) return card.title;
  const room = CARD_TEXT_LIMIT - Array.from(card.title).length - 1;
  return room > 0 ? `${card.title}\n${Array.from(card.subtitle).slice(0, room).join('')}` : card.title;
}

function carouselCard(card: OutboundCard, index: number, mediaIds: ReadonlyMap<string, string>): CarouselCardBody {
  if (!card.image) throw new EncodeError('a whatsapp card needs an image');
  const header = { type: 'image' as const, image: { id: uploadedId(mediaIds, card.image.media_id) } };
  const body = { text: cardText(card) };
  const link = linkButton(card.buttons);
  if (link) return { card_index: index, type: 'cta_url', header, body, action: ctaUrl(link) };
  const buttons = card.buttons.map((button) => {
    const { reply } = replyButton(button);
    return { type: 'quick_reply' as const, quick_reply: reply };
  });
  if (buttons.length === 0) throw new EncodeError('a whatsapp card needs buttons');
  return { card_index: index, type: 'button', header, body, action: { buttons } };
}

function cardsPayload(content: OutboundContent, mediaIds: ReadonlyMap<string, string>): WhatsAppPayload {
  if (!content.text) throw new EncodeError('whatsapp needs a text above cards');
  const cards = cardsOf(content).map((card, index) => carouselCard(card, index, mediaIds));
  return { type: 'interactive', interactive: { type: 'carousel', body: { text: content.text }, action: { cards } } };
}

function templatePayload(content: OutboundContent): WhatsAppPayload {
  const { template } = content;
  if (!template) throw new EncodeError('a template form without its template');
  const parameters = template.body_variables.map((text) => ({ type: 'text' as const, text }));
  return {
    type: 'template',
    template: {
      name: template.name,
      language: { code: template.language },
      ...(parameters.length > 0 ? { components: [{ type: 'body' as const, parameters }] } : {}),
    },
  };
}

/** What the content is, in Meta's words. Throws EncodeError for a form the send rules should have refused. */
export function encodePayload(content: OutboundContent, mediaIds: ReadonlyMap<string, string>): WhatsAppPayload {
  switch (content.form) {
    case 'text':
      if (content.text === null || content.text === '') throw new EncodeError('a text form without its text');
      return { type: 'text', text: { preview_url: false, body: content.text } };
    case 'text_buttons':
      return buttonsPayload(content);
    case 'media':
      return mediaPayload(content, mediaIds);
    case 'cards':
      return cardsPayload(content, mediaIds);
    case 'template':
      return templatePayload(content);
  }
}

/** The number as Meta addresses it: E.164 without the `+`. */
export const whatsappTo = (phone: string): string => (phone.startsWith('+') ? phone.slice(1) : phone);

/** The whole body of the send. Pure; throws EncodeError for a form the send rules should have refused. */
export function encodeMessage(input: EncodeInput): WhatsAppMessageBody {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: whatsappTo(input.phone),
    ...(input.replyTo?.kind === 'message_reply' ? { context: { message_id: input.replyTo.providerMessageId } } : {}),
    ...encodePayload(input.content, input.mediaIds),
  };
}
