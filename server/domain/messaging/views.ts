// What the public routes and the message events show of conversations and messages (Part A).
import type { components } from '../../../generated/api.js';
import type { ConversationRow, MessageRow } from '../../store/messaging.js';
import type { StoredAttachment } from '../../store/schema.js';
import { trimEnd } from '../../text.js';
import { replyWindow, type ReplyWindow } from './window.js';

type Schemas = components['schemas'];

/** Message types a contact sends in direct messages: they put the conversation in the inbox and open the window. */
export const DIRECT_TYPES: ReadonlySet<string> = new Set(['message', 'story_message', 'story_mention']);

export interface ConversationView {
  id: string;
  contact: { id: string; name: string };
  person_id: string;
  channel: { type: ConversationRow['channel']; connection_id: string };
  last_message_at: string | null;
  unread: boolean;
  reply_window: ReplyWindow;
  created_at: string;
}

export function conversationView(
  row: ConversationRow,
  contact: { id: string; name: string; person_id: string },
  hasUnread: boolean,
  now: Date,
): ConversationView {
  return {
    id: row.id,
    contact: { id: contact.id, name: contact.name },
    person_id: contact.person_id,
    channel: { type: row.channel, connection_id: row.connection_id },
    last_message_at: row.last_message_at,
    unread: row.marked_unread || hasUnread,
    reply_window: replyWindow(row.last_inbound_at, now),
    created_at: row.created_at,
  };
}

/** The download route of a media, which attachment `url`s point at. */
export const mediaUrl = (baseUrl: string, mediaId: string) => `${trimEnd(baseUrl, '/')}/v1/media/${mediaId}/content`;

/** Adds the service `url` to media attachments and card images (stored without it: the base may change). */
export function attachmentsView(stored: readonly StoredAttachment[], baseUrl: string): Schemas['MessageAttachment'][] {
  return stored.map((attachment) => {
    if (attachment.type === 'cards') {
      const cards = attachment.cards.map((card) => ({
        ...card,
        image: card.image ? { ...card.image, url: mediaUrl(baseUrl, card.image.media_id) } : null,
      }));
      return { ...attachment, cards };
    }
    return { ...attachment, url: mediaUrl(baseUrl, attachment.media_id) };
  });
}

export type MessageView = Schemas['Message'];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A stored card image, or none, as attachmentsView reads it. */
const isCardImage = (image: unknown) =>
  image === null || image === undefined || (isRecord(image) && typeof image.media_id === 'string');

/**
 * Whether stored attachments have the shape attachmentsView reads (an array of media with an id, or of cards with
 * their buttons). The service writes only that shape; a row edited by hand, or by a bug, must not make the whole
 * list it is in fail.
 */
function isReadableAttachments(stored: unknown): stored is readonly StoredAttachment[] {
  if (!Array.isArray(stored)) return false;
  return stored.every(
    (a) =>
      isRecord(a) &&
      (a.type === 'cards'
        ? Array.isArray(a.cards) &&
          a.cards.every((c) => isRecord(c) && Array.isArray(c.buttons) && isCardImage(c.image))
        : typeof a.type === 'string' && typeof a.media_id === 'string'),
  );
}

/** A stored JSON object column: itself when it is an object, else null (unreadable, as for attachments). */
function objectOrNull<T>(stored: T | null): T | null {
  return isRecord(stored) ? stored : null;
}

/**
 * A message as the API shows it. A row whose stored content cannot be read (attachments of another shape) is
 * shown as a message the service cannot show (`is_unsupported`, no text or attachments) rather than failing the
 * list or event it is in; a stored object or list of the wrong JSON kind is shown empty.
 */
export function messageView(row: MessageRow, baseUrl: string): MessageView {
  const attachments = isReadableAttachments(row.attachments) ? row.attachments : undefined;
  const unsupported = row.is_unsupported || attachments === undefined;
  const hidden = row.is_removed || unsupported;
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    contact_id: row.contact_id,
    channel: { type: row.channel, connection_id: row.connection_id },
    type: row.type,
    direction: row.direction,
    sender: {
      type: row.sender_type,
      user_id: row.sender_user_id,
      name: row.sender_name,
      workflow_id: row.sender_workflow_id,
      api_key_id: row.sender_api_key_id,
    },
    // Removed and unsupported messages show nothing (decisions: "nothing to show").
    text: hidden ? null : row.text,
    attachments: hidden || !attachments ? [] : attachmentsView(attachments, baseUrl),
    template: objectOrNull(row.template),
    reply_to_message_id: row.reply_to_message_id,
    button: objectOrNull(row.button),
    post: objectOrNull(row.post),
    status: row.status,
    failure: objectOrNull(row.failure),
    is_unsupported: unsupported,
    is_removed: row.is_removed,
    is_edited: row.is_edited,
    reactions: Array.isArray(row.reactions) ? row.reactions : [],
    read_at: row.read_at,
    created_at: row.created_at,
  };
}
