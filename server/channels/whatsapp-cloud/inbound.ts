// What the domain records for a decoded whatsapp message (./decode.ts), in the shape of the domain's inbound input
// (domain/messaging/inbound.ts `InboundInput`), without importing it: channels/ stays below the domain. Pure.
//
// - text → `text`; media → `text` is the caption, the attachment is fetched by Meta's media id (`media`); a
//   document is the seeds' `file`.
// - A tap on a reply button or a list row (`interactive`) → `text` is the title, `button` { id, title, source }:
//   `source` is who sent the message the button was on, as the sandbox's tap says it (`api` for a key's message,
//   `workflow` for an automation's, `other` for anything else or a message not found).
// - A tap on a template's quick-reply button (`button`) → `text` is the button's text, `button` { id: the payload,
//   title: the text, source `other` }: the button is the template's, approved at Meta, not one the API or an
//   automation sent, whoever sent the template.
// - `unsupported` and every type not read → `is_unsupported`, no text, no attachment.
// - A reaction → nothing: the seeds have no `message.updated` on whatsapp.
// - A sender whose WhatsApp id is not a phone number → nothing (a whatsapp contact is named by its phone).
import type { WhatsAppContent, WhatsAppMediaType, WhatsAppMessageFact, WhatsAppStatus } from './decode.js';

/** The seeds' `button.source` values a whatsapp tap can carry (`ice_breaker` is instagram's). */
export type ButtonSource = 'api' | 'workflow' | 'other';

/** The account's message a contact's message answers (found by its wamid, `replyTo`): our id, who sent it. */
export interface QuotedMessage {
  id: string;
  /** The message's `sender.type`: `api`, `workflow`, `user`, `unattributed`. */
  senderType: string;
}

/** The attachment to fetch and store (`GET /{media-id}`), in the seeds' attachment types. */
export interface InboundMediaRef {
  type: 'image' | 'video' | 'audio' | 'file' | 'sticker';
  mediaId: string;
  contentType: string | null;
  filename: string | null;
}

export interface WhatsAppInbound {
  /** The wamid: the message is unique per connection and wamid. */
  providerMessageId: string;
  /**
   * `phone` in E.164 (`+` and Meta's digits). `name` null: Meta sent no profile name (keep the contact's name; a
   * new contact is named by its phone).
   */
  from: { phone: string; name: string | null };
  text: string | null;
  media: InboundMediaRef | null;
  reply_to_message_id: string | null;
  button: { id: string | null; title: string; source: ButtonSource } | null;
  is_unsupported: boolean;
  /** Meta's time of the message. */
  created_at: string;
}

export type InboundDecision = { action: 'record'; inbound: WhatsAppInbound } | { action: 'ignore'; reason: string };

const ATTACHMENT_TYPE: Record<WhatsAppMediaType, InboundMediaRef['type']> = {
  image: 'image',
  video: 'video',
  audio: 'audio',
  document: 'file',
  sticker: 'sticker',
};

/** `waId` as an E.164 phone (Meta's WhatsApp id is the number's digits, at most 15), or null. */
export function phoneOfWaId(waId: string): string | null {
  const digits = waId.startsWith('+') ? waId.slice(1) : waId;
  return /^[1-9]\d{0,14}$/.test(digits) ? `+${digits}` : null;
}

/** Who sent the message a reply button was on, as `button.source`. */
const sourceOf = (quoted: QuotedMessage | null): ButtonSource =>
  quoted?.senderType === 'api' ? 'api' : quoted?.senderType === 'workflow' ? 'workflow' : 'other';

/** The seeds' `button` of a message's content (null: the content is no tap). */
export function inboundButtonOf(content: WhatsAppContent, quoted: QuotedMessage | null): WhatsAppInbound['button'] {
  if (content.type === 'button_reply' || content.type === 'list_reply')
    return { id: content.id, title: content.title, source: sourceOf(quoted) };
  if (content.type === 'template_button') return { id: content.payload, title: content.text, source: 'other' };
  return null;
}

/** The text a message's content shows: the body, a tap's title, a caption; null for the others. */
function textOf(content: WhatsAppContent): string | null {
  if (content.type === 'text') return content.text;
  if (content.type === 'button_reply' || content.type === 'list_reply') return content.title;
  if (content.type === 'template_button') return content.text;
  if (content.type === 'media') return content.caption;
  return null;
}

/**
 * What to record for a message fact. `quoted`: the account's message `fact.replyTo` names, when the domain found
 * it (a tap's `button.source` and `reply_to_message_id` come from it).
 */
export function inboundOf(fact: WhatsAppMessageFact, quoted: QuotedMessage | null): InboundDecision {
  const { content } = fact;
  if (content.type === 'reaction')
    return { action: 'ignore', reason: 'a reaction: whatsapp reactions change nothing the seeds show' };
  const phone = phoneOfWaId(fact.from.waId);
  if (phone === null) return { action: 'ignore', reason: 'the sender has no phone number' };
  const media: InboundMediaRef | null =
    content.type === 'media'
      ? {
          type: ATTACHMENT_TYPE[content.mediaType],
          mediaId: content.mediaId,
          contentType: content.mimeType,
          filename: content.filename,
        }
      : null;
  return {
    action: 'record',
    inbound: {
      providerMessageId: fact.messageId,
      from: { phone, name: fact.from.name },
      text: textOf(content),
      media,
      reply_to_message_id: quoted?.id ?? null,
      button: inboundButtonOf(content, quoted),
      is_unsupported: content.type === 'unsupported',
      created_at: fact.timestamp,
    },
  };
}

/** Meta's statuses in their order (docs/decisions.md `provider_status_rank`): one at or below the last is a no-op. */
export const STATUS_RANK: Record<WhatsAppStatus, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };
