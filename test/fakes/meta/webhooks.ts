// Meta's webhook payloads for a WhatsApp number, pure: `{object: 'whatsapp_business_account', entry: [{id: waba_id,
// changes: [{field: 'messages', value: {messaging_product, metadata, contacts, messages | statuses}}]}]}`, one
// builder per inbound kind (text, a tap on reply buttons or a list, a template's quick reply, media, unsupported, a
// reaction) and per status (sent, delivered, read, failed with `errors[0]`), as Meta documents them. `metaJson`
// writes a payload as Meta does (non-ASCII and `/` escaped), the bytes a signature is computed over.
import { randomBytes } from 'node:crypto';
import { detailsOf, titleOf } from './graph-errors.js';

/** What a payload names of the business number (a FakeNumber has it). */
export interface WebhookNumber {
  wabaId: string;
  phoneNumberId: string;
  /** `+1 555-010-0001`; the payload carries its digits. */
  displayPhoneNumber: string;
}

export interface WebhookPayload {
  object: 'whatsapp_business_account';
  entry: {
    id: string;
    time?: number;
    changes: { field: 'messages' | 'message_template_status_update'; value: Record<string, unknown> }[];
  }[];
}

/** The contact who sends, and the message's own id and time (made up when absent). */
export interface Sender {
  /** The contact's phone: `+5511987654321` or digits. */
  from: string;
  /** The WhatsApp profile name (`contacts[0].profile.name`). */
  name?: string;
  /** The message's `wamid.`; a new one when absent. */
  id?: string;
  /** Unix seconds; now when absent. */
  timestamp?: number;
}

export const digitsOf = (phone: string): string => phone.replace(/\D/g, '');

/** A message id like Meta's: `wamid.` and a base64 string. */
export const newWamid = (): string => `wamid.${randomBytes(30).toString('base64')}`;

const seconds = (timestamp?: number) => String(timestamp ?? Math.floor(Date.now() / 1000));

const metadata = (number: WebhookNumber) => ({
  display_phone_number: digitsOf(number.displayPhoneNumber),
  phone_number_id: number.phoneNumberId,
});

/** One change of field `messages` for the number, in its WABA's entry. */
export function envelope(number: WebhookNumber, value: Record<string, unknown>): WebhookPayload {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: number.wabaId,
        changes: [
          { field: 'messages', value: { messaging_product: 'whatsapp', metadata: metadata(number), ...value } },
        ],
      },
    ],
  };
}

/**
 * Meta changed a template of the number's business account (field `message_template_status_update`, as Meta's
 * webhook reference shows it): `event` APPROVED, REJECTED, PAUSED, DISABLED, …
 */
export function templateStatus(
  number: Pick<WebhookNumber, 'wabaId'>,
  input: { event: string; name: string; language: string; reason?: string },
): WebhookPayload {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: number.wabaId,
        time: Math.floor(Date.now() / 1000),
        changes: [
          {
            field: 'message_template_status_update',
            value: {
              event: input.event,
              message_template_id: 594425479261596,
              message_template_name: input.name,
              message_template_language: input.language,
              reason: input.reason ?? 'NONE',
              message_template_category: 'MARKETING',
            },
          },
        ],
      },
    ],
  };
}

/** Several payloads as one delivery (Meta batches): their entries side by side. */
export const batch = (...payloads: WebhookPayload[]): WebhookPayload => ({
  object: 'whatsapp_business_account',
  entry: payloads.flatMap((payload) => payload.entry),
});

/** A message from a contact: `contacts[0]` and `messages[0]` of the given type and content. */
export function inbound(number: WebhookNumber, sender: Sender, message: Record<string, unknown>): WebhookPayload {
  const wa = digitsOf(sender.from);
  return envelope(number, {
    contacts: [{ profile: { name: sender.name ?? 'WhatsApp User' }, wa_id: wa }],
    messages: [{ from: wa, id: sender.id ?? newWamid(), timestamp: seconds(sender.timestamp), ...message }],
  });
}

/** The `context` of a reply to one of our messages: the business number and the message's wamid. */
const replyTo = (number: WebhookNumber, messageId: string | undefined) =>
  messageId === undefined ? {} : { context: { from: digitsOf(number.displayPhoneNumber), id: messageId } };

/** A text, optionally quoting one of our messages (`contextId`). */
export const text = (number: WebhookNumber, input: Sender & { text: string; contextId?: string }): WebhookPayload =>
  inbound(number, input, { ...replyTo(number, input.contextId), type: 'text', text: { body: input.text } });

/** A tap on one of our reply buttons (`interactive.button_reply`), `contextId` being the message that had it. */
export const buttonReply = (
  number: WebhookNumber,
  input: Sender & { buttonId: string; title: string; contextId: string },
): WebhookPayload =>
  inbound(number, input, {
    ...replyTo(number, input.contextId),
    type: 'interactive',
    interactive: { type: 'button_reply', button_reply: { id: input.buttonId, title: input.title } },
  });

/** A choice in one of our lists (`interactive.list_reply`). */
export const listReply = (
  number: WebhookNumber,
  input: Sender & { rowId: string; title: string; description?: string; contextId: string },
): WebhookPayload =>
  inbound(number, input, {
    ...replyTo(number, input.contextId),
    type: 'interactive',
    interactive: {
      type: 'list_reply',
      list_reply: {
        id: input.rowId,
        title: input.title,
        ...(input.description === undefined ? {} : { description: input.description }),
      },
    },
  });

/** A tap on a template's quick-reply button (`type: 'button'`, the button's payload and text). */
export const templateButton = (
  number: WebhookNumber,
  input: Sender & { payload: string; text: string; contextId: string },
): WebhookPayload =>
  inbound(number, input, {
    ...replyTo(number, input.contextId),
    type: 'button',
    button: { payload: input.payload, text: input.text },
  });

export type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker';

export interface MediaInput extends Sender {
  kind: MediaKind;
  /** The media id the server fetches with `GET /{media-id}` (register the bytes with `fake.registerMedia`). */
  mediaId: string;
  mimeType: string;
  /** Base64 SHA-256 of the bytes, as Meta puts it in a webhook. */
  sha256?: string;
  caption?: string;
  /** A document's file name. */
  filename?: string;
}

/** An image, video, audio, document or sticker, by media id, with its caption (not on audio or a sticker). */
export function media(number: WebhookNumber, input: MediaInput): WebhookPayload {
  const content: Record<string, unknown> = {
    mime_type: input.mimeType,
    sha256: input.sha256 ?? randomBytes(32).toString('base64'),
    id: input.mediaId,
  };
  if (input.caption !== undefined) content.caption = input.caption;
  if (input.filename !== undefined) content.filename = input.filename;
  if (input.kind === 'audio') content.voice = false;
  if (input.kind === 'sticker') content.animated = false;
  return inbound(number, input, { type: input.kind, [input.kind]: content });
}

/**
 * A message the Cloud API cannot show: `type: 'unsupported'` with Meta's 131051 error (the default), or a type
 * no decoder knows (`type: 'ephemeral'`, `'poll'`…) with no content.
 */
export function unsupported(number: WebhookNumber, input: Sender & { type?: string }): WebhookPayload {
  const type = input.type ?? 'unsupported';
  if (type !== 'unsupported') return inbound(number, input, { type });
  const error = { code: 131051, title: 'Message type unknown', message: 'Message type unknown' };
  return inbound(number, input, {
    type,
    errors: [{ ...error, error_data: { details: 'Message type is currently not supported.' } }],
  });
}

/** An emoji on a message (`emoji` empty: the reaction removed). */
export const reaction = (number: WebhookNumber, input: Sender & { messageId: string; emoji: string }): WebhookPayload =>
  inbound(number, input, { type: 'reaction', reaction: { message_id: input.messageId, emoji: input.emoji } });

/** A failed status's error (Meta's title, message and details for the code when absent). */
export interface StatusError {
  code: number;
  title?: string;
  message?: string;
  details?: string;
}

export interface StatusInput {
  /** Our message's wamid (what the send answered as `messages[0].id`). */
  messageId: string;
  /** The contact's phone. */
  recipient: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  timestamp?: number;
  /** For `failed` (131026 when absent). */
  error?: StatusError;
}

/** A status of one of our messages; `failed` carries `errors[0]`, the others the conversation and pricing. */
export function status(number: WebhookNumber, input: StatusInput): WebhookPayload {
  const base = {
    id: input.messageId,
    status: input.status,
    timestamp: seconds(input.timestamp),
    recipient_id: digitsOf(input.recipient),
  };
  if (input.status === 'failed') {
    const { code, title, message, details } = input.error ?? { code: 131026 };
    const error = { code, title: title ?? titleOf(code), message: message ?? title ?? titleOf(code) };
    const href = 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/';
    return envelope(number, {
      statuses: [{ ...base, errors: [{ ...error, error_data: { details: details ?? detailsOf(code) }, href }] }],
    });
  }
  const conversation = { id: randomBytes(16).toString('hex'), origin: { type: 'service' } };
  const pricing = { billable: true, pricing_model: 'PMP', category: 'service' };
  return envelope(number, { statuses: [{ ...base, conversation, pricing }] });
}

/** A payload's bytes as Meta writes them: JSON with non-ASCII characters as `\uXXXX` and `/` as `\/`. */
export function metaJson(payload: unknown): string {
  return JSON.stringify(payload)
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/');
}
