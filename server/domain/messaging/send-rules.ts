// The channel rules of a send (Part A, POST /v1/conversations/{conversationId}/messages): which body forms a
// channel carries, how long a text may be, which media it takes, which templates go out, and what the message
// reads back as. Pure: the store is reached only through the context's `findMedia` and `findTemplate`.
//
// The format check (400) has already run: structure, types, button titles 1–20, reply ids, 1–3 buttons,
// exactly one attachment, 1–10 cards, card title/subtitle 1–80, card buttons 0–3, uuids, template name and
// language. `checkSend` answers every 422 (and the 410) that depends only on the body, the channel, the media
// and the templates; the conversation, the connection and the contact are the caller's, the window is window.ts's.
//
// Order of checks (the first failing check answers; "first" inside a step is body order: `text`, `buttons`,
// `attachments`, `template`; buttons and cards by index):
//   1. The form, whatever the channel (`invalid_message`):
//      a. `empty` (field null): no text, buttons, attachments or template. An empty string `text` is no text.
//      b. `template_with_content`: a template with text, buttons or attachments; field the first of `text`,
//         `buttons`, `attachments`.
//      c. `buttons_with_attachment` (field `buttons`): buttons and an attachment, with or without text
//         (adding a text would not fix it).
//      d. `buttons_without_text` (field `buttons`).
//      e. `invalid_url`: the first link button, under the text then in the cards, whose `url` is not an
//         absolute https address (`buttons[2].url`, `attachments[0].cards[1].buttons[0].url`).
//      f. `duplicate_button_id`: the first reply button whose `id` an earlier reply button of the message
//         already has, cards included (`buttons[1].id`, `attachments[0].cards[1].buttons[0].id`).
//   2. What the channel carries (`content_not_supported`, with `channel`):
//      instagram: a template (`template`); a text with a media or cards (`text`).
//      whatsapp, text + buttons: link and reply buttons together, or more than one link button (`buttons`);
//        a reply title repeated under the text (`buttons[1].title`, the repeat; titles compared exactly).
//      whatsapp, one media: a caption on audio (`text`).
//      whatsapp, cards: no text above them (`text`); fewer than 2 cards (`attachments[0].cards`); then card by
//        card: no image (`attachments[0].cards[i].media_id`), no buttons, link and reply buttons together, more
//        than one link button, or a kind or count of buttons other than the first card's
//        (`attachments[0].cards[i].buttons`). Cards may repeat reply titles (decisions: "Send body").
//   3. The length of the customer's text (`text_too_long`, field `text`, with `channel` and `max_length`):
//      instagram 1000 (lone text) / 640 (above buttons); whatsapp 4096 (lone text) / 1024 (above buttons, caption,
//      above cards). The platform signature never counts here (it is dropped when it does not fit).
//   4. The media, in body order (the media attachment, or each card's `media_id` in card order), each one
//      completely before the next: `media_not_found` (not a media of the account), `410 media_expired`,
//      `media_not_uploaded` (no bytes: also a media whose content type or size is still unknown), then
//      `media_not_supported` with field `attachments[0]` or `attachments[0].cards[i].media_id`: reason
//      `type_mismatch` (the content type's family — image/*, video/*, audio/*, anything else a file — is not
//      the attachment `type`; a card image must be an image), `content_type` (a format the channel refuses
//      for that type), `too_large` (above `max_size`; exactly `max_size` passes). `max_size` is always the
//      channel's limit for the type sent (`image` for a card).
//   5. The template (whatsapp): `template_not_found` (name, language), `template_not_approved` (status),
//      `template_not_supported` (reason: the first of the template's unsupported features in the order
//      header_media, header_variables, button_variables, carousel, named_variables, authentication),
//      `template_variables_mismatch` (expected: the body's placeholders, received: values sent; too many as
//      well as too few).
//
// Lengths are counted in Unicode code points (`[...text].length`): an emoji such as 👇 is one character,
// a sequence joined by zero-width joiners counts each of its code points. Content types are compared without
// parameters and letter case (`image/JPEG; q=1` is `image/jpeg`); sizes use 1 MB = 1,048,576 bytes, as the
// spec's examples do (5 MB = 5242880). The formats of the Media size and type table as MIME types are in
// MEDIA_RULES (registered types, plus the common labels of AVI `video/x-msvideo|avi|msvideo`, M4A
// `audio/x-m4a|m4a` and WAV `audio/wav|x-wav|wave`; MP3 is `audio/mpeg`, MP4 audio `audio/mp4`).
//
// What is delivered and stored (the read-back form, stored without `url`):
// - text: the text, plus `\n\n<signature>` when the plan has a signature and the whole fits the form's limit.
// - text + buttons: `text` null and one `cards` attachment holding one card
//   `{title: text (+ signature, same rule), subtitle: null, image: null, buttons}`.
// - one media: `{type, media_id, content_type, size, filename, expires_at}` (expires_at null for uploads, the
//   end of retention for a received media sent again); the whatsapp caption in `text`, never signed.
// - cards: `{type: 'cards', cards: [{title, subtitle | null, image: {media_id, content_type} | null, buttons}]}`,
//   whatsapp's text above them in `text`, never signed.
// - template: the body with `{{n}}` filled by `body_variables[n-1]` in `text`, `template: {name, language}`
//   (the values too, for the channel: `storedTemplate` in send.ts leaves them out of the stored row).
// Buttons read back as `{type: 'postback', id, title, url: null}` (reply) or
// `{type: 'open_url', id: null, title, url}` (link).
import type { OutboundContent } from '../../channels/provider.js';
import type { TemplateRow } from '../../store/console.js';
import type { StoredCard } from '../../store/schema.js';
import { TEMPLATE_FEATURES } from '../console/templates.js';
import type {
  SchemaSendButton,
  SchemaSendCard,
  SchemaSendMediaAttachment,
  SchemaSendMessageRequest,
} from '../../../generated/api.js';
import { ApiError } from '../../errors.js';

export type Channel = 'instagram' | 'whatsapp';
export type MediaType = SchemaSendMediaAttachment['type'];

/** What the store knows of a media_id of the account. */
export interface MediaInfo {
  id: string;
  /** `link`: sent by address (an automation's media_url): the channel fetches it, its size is unknown. */
  origin: 'upload' | 'received' | 'console' | 'link';
  /** upload: bytes arrived; the others: always true. */
  uploaded: boolean;
  /** Received media past retention → 410 media_expired. */
  expired: boolean;
  content_type: string | null;
  size: number | null;
  filename: string | null;
  /** Received media: the end of retention, copied into the attachment read back. Null or absent for uploads. */
  expires_at?: string | null;
  /** Uploads: the format the first bytes showed ('' none known); null or absent when not checked. */
  detected_format?: string | null;
}

/** A whatsapp template of the conversation's connection, as the store holds it. */
export type TemplateInfo = Pick<
  TemplateRow,
  'name' | 'language' | 'body' | 'variable_count' | 'status' | 'unsupported_features'
>;

export interface SendRulesContext {
  channel: Channel;
  /** undefined: not a media of the account → 422 media_not_found */
  findMedia(mediaId: string): Promise<MediaInfo | undefined>;
  findTemplate(name: string, language: string): Promise<TemplateInfo | undefined>;
  /** The plan's signature text (e.g. 'Enviado com Engagement Platform'), or null when the plan has none. */
  platformSignature: string | null;
  /**
   * An automation's send (Part B): a text longer than the channel delivers is cut to fit (AUTOMATION_TEXT_LIMITS)
   * instead of refused, and the signature trims the text to fit instead of being left out.
   */
  fitText?: boolean;
  /**
   * An automation's send: the prefix of this service's tracking addresses (issue 22, `{base}/links/`), which
   * link buttons carry in place of the address the block names (checked before). Accepted as they are: the
   * public base may be http in development.
   */
  ownLinks?: string;
}

/**
 * What an automation's texts deliver (Part B): instagram the first 1000 characters of a text or of the text
 * above buttons; whatsapp 4096 of a text, 1024 above buttons, as a caption or above cards.
 */
export const AUTOMATION_TEXT_LIMITS = {
  instagram: { text: 1000, text_buttons: 1000 },
  whatsapp: { text: 4096, text_buttons: 1024, caption: 1024, cards: 1024 },
} as const;

/** The most characters of customer text each channel delivers, per form. */
export const TEXT_LIMITS = {
  instagram: { text: 1000, text_buttons: 640 },
  whatsapp: { text: 4096, text_buttons: 1024, caption: 1024, cards: 1024 },
} as const;

export const MB = 1024 * 1024;

export interface MediaRule {
  /** Content types accepted (lower case, no parameters). */
  contentTypes: readonly string[];
  /** In bytes. */
  maxSize: number;
  /** For messages: the formats in words. */
  formats: string;
}

/** The Media size and type table of Part A. */
export const MEDIA_RULES: Record<Channel, Record<MediaType, MediaRule>> = {
  instagram: {
    image: { contentTypes: ['image/jpeg', 'image/png', 'image/gif'], maxSize: 8 * MB, formats: 'JPEG, PNG or GIF' },
    video: {
      contentTypes: [
        'video/mp4',
        'video/ogg',
        'video/webm',
        'video/x-msvideo',
        'video/avi',
        'video/msvideo',
        'video/quicktime',
      ],
      maxSize: 25 * MB,
      formats: 'MP4, OGG, WebM, AVI or QuickTime',
    },
    audio: {
      contentTypes: ['audio/aac', 'audio/mp4', 'audio/x-m4a', 'audio/m4a', 'audio/wav', 'audio/x-wav', 'audio/wave'],
      maxSize: 25 * MB,
      formats: 'AAC, MP4, M4A or WAV',
    },
    file: { contentTypes: ['application/pdf'], maxSize: 25 * MB, formats: 'PDF' },
  },
  whatsapp: {
    image: { contentTypes: ['image/jpeg', 'image/png', 'image/webp'], maxSize: 5 * MB, formats: 'JPEG, PNG or WebP' },
    video: { contentTypes: ['video/mp4'], maxSize: 16 * MB, formats: 'MP4' },
    audio: { contentTypes: ['audio/aac', 'audio/mpeg', 'audio/mp4'], maxSize: 16 * MB, formats: 'AAC, MP3 or MP4' },
    file: { contentTypes: ['application/pdf'], maxSize: 100 * MB, formats: 'PDF' },
  },
};

/**
 * The formats (file-type's extensions) whose bytes may carry each content type a channel accepts: what an upload's
 * first bytes show must be one of its declared type's (issue 33). One container carries several types (an MP4 file
 * is video/mp4, audio/mp4 or M4A; file-type names it by its brand).
 */
const MP4_FAMILY = ['mp4', 'm4a', 'm4v', 'm4b', 'm4p', 'mov', '3gp', '3g2', 'f4v', 'f4a', 'f4b', 'f4p'];
const WAV = ['wav'];
const AVI = ['avi'];
export const FORMATS_OF_TYPE: Readonly<Record<string, readonly string[]>> = {
  'image/jpeg': ['jpg'],
  'image/png': ['png', 'apng'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'video/mp4': MP4_FAMILY,
  'video/quicktime': MP4_FAMILY,
  'audio/mp4': MP4_FAMILY,
  'audio/x-m4a': MP4_FAMILY,
  'audio/m4a': MP4_FAMILY,
  'video/ogg': ['ogv', 'ogg', 'ogx'],
  'video/webm': ['webm', 'mkv'],
  'video/x-msvideo': AVI,
  'video/avi': AVI,
  'video/msvideo': AVI,
  'audio/aac': ['aac'],
  'audio/mpeg': ['mp3', 'mp2', 'mp1'],
  'audio/wav': WAV,
  'audio/x-wav': WAV,
  'audio/wave': WAV,
  'application/pdf': ['pdf'],
};

/** The bytes are what `contentType` says (or were not checked: `detected` null). */
function bytesAre(detected: string | null | undefined, contentType: string): boolean {
  if (detected === null || detected === undefined) return true;
  const formats = FORMATS_OF_TYPE[normalizeContentType(contentType)];
  return formats === undefined || formats.includes(detected);
}

/** The largest file any channel accepts (whatsapp's 100 MB PDF): an upload stores at most one byte more. */
export const LARGEST_MEDIA_BYTES = Math.max(
  ...Object.values(MEDIA_RULES).flatMap((rules) => Object.values(rules).map((rule) => rule.maxSize)),
);

/** A reply button's id: 1 to 64 letters, digits, `_` and `-` (the request schema says the same to API sends). */
export const REPLY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Characters as the rules count them: Unicode code points. */
export const textLength = (text: string): number => [...text].length;

export const SIGNATURE_SEPARATOR = '\n\n';

/** `text` with the signature appended when there is one and the result stays within `maxLength`; else `text`. */
export function withSignature(text: string, signature: string | null, maxLength: number): string {
  if (!signature) return text;
  const signed = `${text}${SIGNATURE_SEPARATOR}${signature}`;
  return textLength(signed) <= maxLength ? signed : text;
}

/** `{{n}}` (spaces inside the braces allowed) replaced by `values[n-1]`; placeholders without a value stay. */
export function fillTemplateBody(body: string, values: readonly string[]): string {
  return body.replace(/\{\{\s*([0-9]+)\s*\}\}/g, (placeholder, n: string) => values[Number(n) - 1] ?? placeholder);
}

/** An absolute https address, exactly as it will be sent (no whitespace, a host right after `https://`). */
export function isHttpsUrl(url: string): boolean {
  if (!/^https:\/\/[^/\\?#@]/i.test(url)) return false;
  for (const char of url) {
    const code = char.codePointAt(0) ?? 0; // a character of a string always has a code point
    if (code <= 0x20 || code === 0x7f || /\s/u.test(char)) return false;
  }
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && parsed.hostname !== '';
  } catch {
    return false;
  }
}

/** A content type without parameters, in lower case. */
export const normalizeContentType = (contentType: string): string =>
  (contentType.split(';')[0] ?? '').trim().toLowerCase();

/** The attachment type a content type belongs to: image/*, video/*, audio/*; anything else is a file. */
export function mediaFamily(contentType: string): MediaType {
  const top = normalizeContentType(contentType).split('/')[0];
  return top === 'image' || top === 'video' || top === 'audio' ? top : 'file';
}

// ----- Errors -----

const invalidMessage = (reason: string, field: string | null, message: string) =>
  new ApiError(422, 'invalid_message', message, { reason, field });
const notSupported = (channel: Channel, field: string, message: string) =>
  new ApiError(422, 'content_not_supported', message, { channel, field });

// ----- The checks -----

const cardsPath = 'attachments[0].cards';
const hasText = (text: string | undefined): text is string => text !== undefined && text !== '';

interface PlacedButton {
  button: SchemaSendButton;
  path: string;
}

/** Every button of the message in body order (under the text, then card by card) with its path. */
function allButtons(body: SchemaSendMessageRequest): PlacedButton[] {
  const out: PlacedButton[] = (body.buttons ?? []).map((button, i) => ({ button, path: `buttons[${i}]` }));
  const attachment = body.attachments?.[0];
  if (attachment?.type === 'cards')
    attachment.cards.forEach((card, c) =>
      (card.buttons ?? []).forEach((button, i) => out.push({ button, path: `${cardsPath}[${c}].buttons[${i}]` })),
    );
  return out;
}

/** Step 1: forms no channel carries. */
function checkForm(body: SchemaSendMessageRequest, ownLinks?: string): void {
  const text = hasText(body.text);
  const buttons = (body.buttons?.length ?? 0) > 0;
  const attachments = (body.attachments?.length ?? 0) > 0;
  if (!text && !buttons && !attachments && !body.template) throw invalidMessage('empty', null, 'The message is empty.');
  if (body.template && (text || buttons || attachments))
    throw invalidMessage(
      'template_with_content',
      text ? 'text' : buttons ? 'buttons' : 'attachments',
      'A template goes alone, without text, attachments or buttons.',
    );
  if (buttons && attachments)
    throw invalidMessage(
      'buttons_with_attachment',
      'buttons',
      'Buttons cannot go with an attachment; cards carry their own buttons.',
    );
  if (buttons && !text) throw invalidMessage('buttons_without_text', 'buttons', 'Buttons need a text above them.');

  const placed = allButtons(body);
  for (const { button, path } of placed)
    if (button.type === 'open_url' && !isHttpsUrl(button.url) && !(ownLinks && button.url.startsWith(ownLinks)))
      throw invalidMessage('invalid_url', `${path}.url`, 'A link button needs an absolute https address.');
  const ids = new Set<string>();
  for (const { button, path } of placed) {
    if (button.type !== 'reply') continue;
    if (ids.has(button.id))
      throw invalidMessage('duplicate_button_id', `${path}.id`, 'Reply button ids must be unique in a message.');
    ids.add(button.id);
  }
}

/** whatsapp: either exactly one link button or 1 to 3 reply buttons. */
const whatsappButtonsOk = (buttons: readonly SchemaSendButton[]) => {
  const links = buttons.filter((b) => b.type === 'open_url').length;
  return links === 0 || (links === 1 && buttons.length === 1);
};

/** Step 2: what the conversation's channel cannot carry. */
function checkChannel(body: SchemaSendMessageRequest, channel: Channel): void {
  const attachment = body.attachments?.[0];
  if (channel === 'instagram') {
    if (body.template) throw notSupported(channel, 'template', 'instagram has no templates.');
    if (attachment && hasText(body.text))
      throw notSupported(
        channel,
        'text',
        attachment.type === 'cards'
          ? 'instagram sends no text with cards.'
          : 'instagram sends no caption: send the text as its own message.',
      );
    return;
  }

  const buttons = body.buttons ?? [];
  if (buttons.length > 0) {
    if (!whatsappButtonsOk(buttons))
      throw notSupported(channel, 'buttons', 'whatsapp sends either one link button or 1 to 3 reply buttons.');
    const titles = new Set<string>();
    for (const [i, button] of buttons.entries()) {
      if (titles.has(button.title))
        throw notSupported(channel, `buttons[${i}].title`, 'whatsapp needs different titles for reply buttons.');
      titles.add(button.title);
    }
  }
  if (!attachment) return;
  if (attachment.type !== 'cards') {
    if (attachment.type === 'audio' && hasText(body.text))
      throw notSupported(channel, 'text', 'whatsapp does not carry a caption on audio.');
    return;
  }
  if (!hasText(body.text)) throw notSupported(channel, 'text', 'whatsapp needs a text above the cards.');
  const cards = attachment.cards;
  if (cards.length < 2) throw notSupported(channel, cardsPath, 'whatsapp sends 2 to 10 cards.');
  const shape = (card: SchemaSendCard) => `${card.buttons?.[0]?.type ?? ''}:${card.buttons?.length ?? 0}`;
  const [first] = cards;
  for (const [c, card] of cards.entries()) {
    if (card.media_id === undefined)
      throw notSupported(channel, `${cardsPath}[${c}].media_id`, 'On whatsapp every card needs an image.');
    const cardButtons = card.buttons ?? [];
    if (cardButtons.length === 0)
      throw notSupported(channel, `${cardsPath}[${c}].buttons`, 'On whatsapp every card needs buttons.');
    if (!whatsappButtonsOk(cardButtons))
      throw notSupported(
        channel,
        `${cardsPath}[${c}].buttons`,
        'A whatsapp card sends either one link button or 1 to 3 reply buttons.',
      );
    if (c > 0 && first && shape(card) !== shape(first))
      throw notSupported(
        channel,
        `${cardsPath}[${c}].buttons`,
        'On whatsapp every card needs the same kind and count of buttons.',
      );
  }
}

type TextForm = 'text' | 'text_buttons' | 'caption' | 'cards';

/** The form the customer's text takes, or undefined when there is none to measure. */
function textForm(body: SchemaSendMessageRequest): TextForm | undefined {
  if (!hasText(body.text)) return undefined;
  if ((body.buttons?.length ?? 0) > 0) return 'text_buttons';
  const attachment = body.attachments?.[0];
  if (!attachment) return 'text';
  return attachment.type === 'cards' ? 'cards' : 'caption';
}

/** The limit of a text form on a channel (the forms steps 1–2 let through). */
function textLimit(channel: Channel, form: TextForm, fitted = false): number {
  const limits = fitted ? AUTOMATION_TEXT_LIMITS : TEXT_LIMITS;
  if (channel === 'instagram') return form === 'text_buttons' ? limits.instagram.text_buttons : limits.instagram.text;
  return limits.whatsapp[form];
}

/** The first `max` characters (code points) of `text`. */
export const cutTo = (text: string, max: number): string =>
  textLength(text) <= max ? text : [...text].slice(0, max).join('');

/**
 * An automation's text as the channel delivers it (Part B): cut to the form's limit; a lone text or the text
 * above buttons ends with the signature when the plan has one, the text trimmed to leave it room (an empty
 * text goes as the signature alone). Captions and the text above cards are never signed.
 */
function fitAutomationText(body: SchemaSendMessageRequest, channel: Channel, signature: string | null) {
  if (body.template) return body;
  const text = body.text ?? '';
  const attachment = body.attachments?.[0];
  const form: TextForm = attachment
    ? attachment.type === 'cards'
      ? 'cards'
      : 'caption'
    : (body.buttons?.length ?? 0) > 0
      ? 'text_buttons'
      : 'text';
  const limit = textLimit(channel, form, true);
  if (signature && !attachment) {
    if (text === '') return { ...body, text: cutTo(signature, limit) };
    const room = limit - textLength(`${SIGNATURE_SEPARATOR}${signature}`);
    if (room > 0) return { ...body, text: `${cutTo(text, room)}${SIGNATURE_SEPARATOR}${signature}` };
  }
  return text === '' ? body : { ...body, text: cutTo(text, limit) };
}

const FORM_WORDS: Record<TextForm, string> = {
  text: 'in a text',
  text_buttons: 'above buttons',
  caption: 'in a caption',
  cards: 'above cards',
};

/** Step 3. */
function checkLength(body: SchemaSendMessageRequest, channel: Channel, fitted = false): void {
  const form = textForm(body);
  if (!form || !hasText(body.text)) return;
  const limit = textLimit(channel, form, fitted);
  if (textLength(body.text) > limit)
    throw new ApiError(422, 'text_too_long', `${channel} delivers at most ${limit} characters ${FORM_WORDS[form]}.`, {
      channel,
      field: 'text',
      max_length: limit,
    });
}

const ARTICLE: Record<MediaType, string> = {
  image: 'an image',
  video: 'a video',
  audio: 'an audio',
  file: 'a document',
};

/** Step 4, for one media: the checked media, ready to read back. */
async function checkMedia(ctx: SendRulesContext, mediaId: string, type: MediaType, field: string): Promise<MediaInfo> {
  const media = await ctx.findMedia(mediaId);
  if (!media)
    throw new ApiError(422, 'media_not_found', 'This media was not created by the account.', { media_id: mediaId });
  if (media.expired) throw new ApiError(410, 'media_expired', 'This media is no longer stored.');
  // A linked file is fetched by the channel: what its address does not say (type, size) is not checked here.
  const known = media.origin === 'link' || (media.content_type !== null && media.size !== null);
  if (!media.uploaded || !known)
    throw new ApiError(422, 'media_not_uploaded', 'Nothing was uploaded for this media.', { media_id: mediaId });
  const { channel } = ctx;
  const rule = MEDIA_RULES[channel][type];
  const refuse = (reason: string, message: string) =>
    new ApiError(422, 'media_not_supported', message, {
      channel,
      field,
      media_id: mediaId,
      reason,
      content_type: media.content_type,
      size: media.size,
      max_size: rule.maxSize,
    });
  if (media.content_type !== null) {
    if (mediaFamily(media.content_type) !== type) throw refuse('type_mismatch', `The media is not ${ARTICLE[type]}.`);
    if (!rule.contentTypes.includes(normalizeContentType(media.content_type)))
      throw refuse('content_type', `${channel} accepts ${rule.formats} ${type === 'file' ? 'files' : `${type}s`}.`);
  }
  if (media.content_type !== null && !bytesAre(media.detected_format, media.content_type))
    throw refuse(
      'content_type',
      `The file is not ${normalizeContentType(media.content_type)}: its bytes read as ${media.detected_format || 'no known format'}.`,
    );
  if (media.size !== null && media.size > rule.maxSize)
    throw refuse(
      'too_large',
      `${channel} accepts ${type === 'file' ? 'files' : `${type}s`} up to ${rule.maxSize / MB} MB.`,
    );
  return media;
}

/** Step 5. */
async function checkTemplate(
  ctx: SendRulesContext,
  request: NonNullable<SchemaSendMessageRequest['template']>,
): Promise<TemplateInfo> {
  const { name, language } = request;
  const template = await ctx.findTemplate(name, language);
  if (!template)
    throw new ApiError(422, 'template_not_found', 'No template with this name and language.', { name, language });
  if (template.status !== 'approved')
    throw new ApiError(422, 'template_not_approved', 'This template is not approved.', { status: template.status });
  const [firstFeature] = template.unsupported_features;
  if (firstFeature !== undefined) {
    const reason = TEMPLATE_FEATURES.find((f) => template.unsupported_features.includes(f)) ?? firstFeature;
    throw new ApiError(422, 'template_not_supported', `This template needs ${reason}, which the API does not send.`, {
      reason,
    });
  }
  const received = request.body_variables?.length ?? 0;
  if (received !== template.variable_count)
    throw new ApiError(
      422,
      'template_variables_mismatch',
      `The template body has ${template.variable_count} placeholders; ${received} values were sent.`,
      { expected: template.variable_count, received },
    );
  return template;
}

const readButton = (button: SchemaSendButton): StoredCard['buttons'][number] =>
  button.type === 'reply'
    ? { type: 'postback', id: button.id, title: button.title, url: null }
    : { type: 'open_url', id: null, title: button.title, url: button.url };

/** A template send, checked: its body filled in `text`, and the values for the channel, which fills it itself. */
async function templateContent(
  ctx: SendRulesContext,
  request: NonNullable<SchemaSendMessageRequest['template']>,
): Promise<OutboundContent> {
  const template = await checkTemplate(ctx, request);
  const values = request.body_variables ?? [];
  return {
    text: fillTemplateBody(template.body, values),
    attachments: [],
    // Only name and language are stored (send.ts `storedTemplate`).
    template: { name: template.name, language: template.language, body_variables: [...values] },
    form: 'template',
  };
}

/**
 * Checks a send against the channel's rules (see the order above) and returns what will be delivered and
 * stored. Throws ApiError (422, or 410 media_expired).
 */
export async function checkSend(request: SchemaSendMessageRequest, ctx: SendRulesContext): Promise<OutboundContent> {
  const { channel } = ctx;
  const body = ctx.fitText ? fitAutomationText(request, channel, ctx.platformSignature) : request;
  checkForm(body, ctx.ownLinks);
  checkChannel(body, channel);
  checkLength(body, channel, ctx.fitText);

  const text = hasText(body.text) ? body.text : null;
  // An automation's text is signed already (fitAutomationText).
  const signature = ctx.fitText ? null : ctx.platformSignature;

  if (body.template) return templateContent(ctx, body.template);

  const attachment = body.attachments?.[0];
  if (attachment?.type === 'cards') {
    // Every card's media is checked before any button is read: the first error named stays the same.
    const images: StoredCard['image'][] = [];
    for (const [c, card] of attachment.cards.entries())
      images.push(
        card.media_id === undefined
          ? null
          : {
              media_id: card.media_id,
              content_type: (await checkMedia(ctx, card.media_id, 'image', `${cardsPath}[${c}].media_id`)).content_type,
            },
      );
    const cards: StoredCard[] = attachment.cards.map((card, c) => ({
      title: card.title,
      subtitle: card.subtitle ?? null,
      image: images[c] ?? null,
      buttons: (card.buttons ?? []).map(readButton),
    }));
    return { text, attachments: [{ type: 'cards', cards }], template: null, form: 'cards' };
  }
  if (attachment) {
    const media = await checkMedia(ctx, attachment.media_id, attachment.type, 'attachments[0]');
    return {
      text,
      attachments: [
        {
          type: attachment.type,
          media_id: attachment.media_id,
          content_type: media.content_type,
          size: media.size,
          filename: media.filename,
          expires_at: media.origin === 'received' ? (media.expires_at ?? null) : null,
        },
      ],
      template: null,
      form: 'media',
    };
  }

  const buttons = body.buttons ?? [];
  if (buttons.length > 0) {
    const title = withSignature(text ?? '', signature, textLimit(channel, 'text_buttons'));
    return {
      text: null,
      attachments: [
        { type: 'cards', cards: [{ title, subtitle: null, image: null, buttons: buttons.map(readButton) }] },
      ],
      template: null,
      form: 'text_buttons',
    };
  }
  return {
    text: withSignature(text ?? '', signature, textLimit(channel, 'text')),
    attachments: [],
    template: null,
    form: 'text',
  };
}
