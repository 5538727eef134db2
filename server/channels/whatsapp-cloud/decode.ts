// Meta's WhatsApp Cloud API webhook, read into typed facts (issue 35, section 3; docs/decisions.md "The WhatsApp
// Cloud API"): a contact's message, or a status of a message the account sent. Pure: no I/O, no domain, no store.
// The body is whatever arrived signed; nothing here trusts it. Every string has a bound, at most DECODE_LIMITS.items
// array items are read, and an item that does not fit goes to `skipped` with its path and a reason, never a throw.
// What the domain records for a fact is ./inbound.ts.
import { isOneOf } from '../../guards.js';
import {
  DECODE_LIMITS,
  Skip,
  clip,
  eachItem,
  isObject,
  objectAt,
  optionalStringAt,
  shown,
  stringAt,
  unixSecondsAt,
  wordOf,
  type Reading,
  type SkippedItem,
} from './read.js';

export { DECODE_LIMITS, type SkippedItem };

export type WhatsAppMediaType = 'image' | 'video' | 'audio' | 'document' | 'sticker';

/** What a contact's message holds. */
export type WhatsAppContent =
  | { type: 'text'; text: string }
  /** A tap on a reply button of an interactive message (`interactive.button_reply`). */
  | { type: 'button_reply'; id: string; title: string }
  /** A row picked in a list message (`interactive.list_reply`). */
  | { type: 'list_reply'; id: string; title: string; description: string | null }
  /** A tap on a template's quick-reply button (type `button`): the payload the template set, and its text. */
  | { type: 'template_button'; payload: string; text: string }
  | {
      type: 'media';
      mediaType: WhatsAppMediaType;
      /** Meta's media id: `GET /{media-id}` gives the short-lived URL of the bytes. */
      mediaId: string;
      mimeType: string | null;
      caption: string | null;
      filename: string | null;
    }
  /** Meta's `unsupported` (`metaType`: its `unsupported.type` when given), and every type not read here. */
  | { type: 'unsupported'; metaType: string }
  /** A reaction to `messageId`; `emoji` null: the reaction was removed. */
  | { type: 'reaction'; messageId: string; emoji: string | null };

export interface WhatsAppMessageFact {
  kind: 'message';
  /** The business number the message came to (`metadata.phone_number_id`): it names the connection. */
  phoneNumberId: string;
  /** The sender: `from`, and the profile name of its entry in `contacts` (null: none sent). */
  from: { waId: string; name: string | null };
  /** The wamid: a message is unique per connection and wamid (Meta re-delivers). */
  messageId: string;
  /** Meta's time of the message (unix seconds in the payload), as an ISO string. */
  timestamp: string;
  /** The wamid of the message this one answers or quotes (`context.id`). */
  replyTo: string | null;
  content: WhatsAppContent;
}

export const WHATSAPP_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type WhatsAppStatus = (typeof WHATSAPP_STATUSES)[number];

export interface WhatsAppStatusFact {
  kind: 'status';
  phoneNumberId: string;
  /** The wamid of the message the account sent. */
  messageId: string;
  status: WhatsAppStatus;
  timestamp: string;
  recipientId: string;
  /**
   * A failed status's `errors[0]`: its code, and `error_data.details`, else `message`, else `title` (null when Meta
   * left one out). Null on other statuses, and on a failed one without an error object.
   */
  error: { code: string | null; message: string | null } | null;
}

/**
 * An error Meta reports for the number itself (`value.errors`, outside any message or status: an account or
 * number problem, Meta's "something went wrong"): nothing to record, an operator to tell.
 */
export interface WhatsAppNumberError {
  kind: 'number_error';
  phoneNumberId: string;
  error: { code: string | null; message: string | null };
}

export type WhatsAppFact = WhatsAppMessageFact | WhatsAppStatusFact | WhatsAppTemplateChange | WhatsAppNumberError;

/**
 * Meta changed a template of a WhatsApp Business Account (`message_template_status_update`: approved, rejected,
 * paused, disabled, …): the account's numbers read their templates again.
 */
export interface WhatsAppTemplateChange {
  kind: 'template_change';
  wabaId: string;
  event: string;
  name: string | null;
  language: string | null;
}

export interface DecodedWebhook {
  facts: WhatsAppFact[];
  skipped: SkippedItem[];
}

/** Decodes one webhook body (parsed JSON). Never throws; `facts` in payload order. */
export function decodeWhatsAppWebhook(body: unknown): DecodedWebhook {
  const d: Decoding = { facts: [], skipped: [], left: DECODE_LIMITS.items };
  const refused = (path: string, reason: string) => ({ facts: [], skipped: [{ path, reason }] });
  if (!isObject(body)) return refused('', 'not an object');
  if (body.object !== 'whatsapp_business_account')
    return refused('object', `${shown(body.object)} is not whatsapp_business_account`);
  if (!Array.isArray(body.entry)) return refused('entry', 'not a list');
  eachItem(d, body.entry, 'entry', (raw, path) => {
    const entry = objectAt(raw, 'entry');
    const changes = entry.changes;
    if (!Array.isArray(changes)) throw new Skip('changes: not a list');
    eachItem(d, changes, `${path}.changes`, (change, changePath) => decodeChange(d, entry, change, changePath));
  });
  return { facts: d.facts, skipped: d.skipped };
}

interface Decoding extends Reading {
  facts: WhatsAppFact[];
}

/** One change: `messages` (a contact's messages and the statuses of ours), or a template's new status. */
function decodeChange(d: Decoding, entry: Record<string, unknown>, raw: unknown, path: string): void {
  const change = objectAt(raw, 'change');
  if (change.field === 'message_template_status_update') {
    d.facts.push(templateChange(entry, objectAt(change.value, 'value')));
    return;
  }
  if (change.field !== 'messages') throw new Skip(`field ${shown(change.field)} is not read`);
  const value = objectAt(change.value, 'value');
  const phoneNumberId = stringAt(
    objectAt(value.metadata, 'value.metadata').phone_number_id,
    'value.metadata.phone_number_id',
    DECODE_LIMITS.id,
  );
  const names = profileNames(d, value.contacts, `${path}.value.contacts`);
  eachItem(d, value.messages, `${path}.value.messages`, (message) =>
    d.facts.push(decodeMessage(message, phoneNumberId, names)),
  );
  eachItem(d, value.statuses, `${path}.value.statuses`, (status) => d.facts.push(decodeStatus(status, phoneNumberId)));
  eachItem(d, value.errors, `${path}.value.errors`, (error) =>
    d.facts.push({ kind: 'number_error', phoneNumberId, error: failureOf([error]) ?? { code: null, message: null } }),
  );
}

/** A template's new status: `entry.id` is the WhatsApp Business Account's id. */
function templateChange(entry: Record<string, unknown>, value: Record<string, unknown>): WhatsAppTemplateChange {
  return {
    kind: 'template_change',
    wabaId: stringAt(entry.id, 'entry.id', DECODE_LIMITS.id),
    event: stringAt(value.event, 'value.event', DECODE_LIMITS.word),
    name: optionalStringAt(value.message_template_name, 'value.message_template_name', DECODE_LIMITS.label),
    language: optionalStringAt(value.message_template_language, 'value.message_template_language', DECODE_LIMITS.word),
  };
}

/** A WhatsApp id as a key: Meta's digits, with or without a leading `+`. */
const waKey = (waId: string) => (waId.startsWith('+') ? waId.slice(1) : waId);

/** The profile names of `contacts[]`, by WhatsApp id (a malformed entry is skipped: its messages go unnamed). */
function profileNames(d: Reading, contacts: unknown, path: string): Map<string, string | null> {
  const names = new Map<string, string | null>();
  eachItem(d, contacts, path, (raw) => {
    const contact = objectAt(raw, 'contact');
    const waId = stringAt(contact.wa_id, 'wa_id', DECODE_LIMITS.waId);
    const profile = contact.profile === undefined ? {} : objectAt(contact.profile, 'profile');
    names.set(waKey(waId), optionalStringAt(profile.name, 'profile.name', DECODE_LIMITS.label));
  });
  return names;
}

/**
 * Types that are no message of the contact's: skipped with the reason. Everything else that is not read below is
 * an `unsupported` message (the seeds' `is_unsupported`).
 */
const NOT_MESSAGES: ReadonlyMap<string, string> = new Map([
  ['system', 'a system notice (a number or identity change), not a message the contact wrote'],
  ['request_welcome', 'the contact opened the chat: nothing was written'],
  ['revoke', 'the contact deleted a message: whatsapp has no unsend in the seeds'],
  ['edit', 'the contact edited a message: edits are instagram only in the seeds'],
]);

function decodeMessage(raw: unknown, phoneNumberId: string, names: Map<string, string | null>): WhatsAppMessageFact {
  const message = objectAt(raw, 'message');
  const type = stringAt(message.type, 'type', DECODE_LIMITS.word);
  const notMessage = NOT_MESSAGES.get(type);
  if (notMessage) throw new Skip(notMessage);
  // Meta's groups: the seeds know one-to-one conversations only.
  if (message.group_id !== undefined) throw new Skip('a message in a group chat: conversations are one-to-one');
  const waId = stringAt(message.from, 'from', DECODE_LIMITS.waId);
  // Matched by id; Meta's one contact of a change names its messages when the forms of the id differ.
  const sole = names.size === 1 ? [...names.values()][0] : undefined;
  const context = message.context === undefined ? {} : objectAt(message.context, 'context');
  return {
    kind: 'message',
    phoneNumberId,
    from: { waId, name: names.get(waKey(waId)) ?? sole ?? null },
    messageId: stringAt(message.id, 'id', DECODE_LIMITS.id),
    timestamp: unixSecondsAt(message.timestamp, 'timestamp'),
    replyTo: optionalStringAt(context.id, 'context.id', DECODE_LIMITS.id),
    content: contentOf(type, message),
  };
}

const MEDIA_TYPES: readonly WhatsAppMediaType[] = ['image', 'video', 'audio', 'document', 'sticker'];

/** The content of a message of `type` (its body sits under the key named by the type). */
function contentOf(type: string, message: Record<string, unknown>): WhatsAppContent {
  const { id, label } = DECODE_LIMITS;
  if (type === 'text')
    return { type, text: stringAt(objectAt(message.text, 'text').body, 'text.body', DECODE_LIMITS.text) };
  if (type === 'interactive') return interactiveOf(objectAt(message.interactive, 'interactive'));
  if (type === 'button') {
    const button = objectAt(message.button, 'button');
    const text = stringAt(button.text, 'button.text', label);
    // Meta sends the button's text as its payload when the template set none.
    return {
      type: 'template_button',
      payload: optionalStringAt(button.payload, 'button.payload', DECODE_LIMITS.payload) ?? text,
      text,
    };
  }
  if (isOneOf(MEDIA_TYPES, type)) {
    const media = objectAt(message[type], type);
    return {
      type: 'media',
      mediaType: type,
      mediaId: stringAt(media.id, `${type}.id`, id),
      mimeType: optionalStringAt(media.mime_type, `${type}.mime_type`, label),
      caption: optionalStringAt(media.caption, `${type}.caption`, DECODE_LIMITS.text),
      filename: optionalStringAt(media.filename, `${type}.filename`, label),
    };
  }
  if (type === 'reaction') {
    const reaction = objectAt(message.reaction, 'reaction');
    return {
      type,
      messageId: stringAt(reaction.message_id, 'reaction.message_id', id),
      emoji: optionalStringAt(reaction.emoji, 'reaction.emoji', DECODE_LIMITS.word),
    };
  }
  if (type === 'unsupported') {
    // Meta names what the contact sent (`poll_update`, `gif`, …) when it can.
    const inner = isObject(message.unsupported) ? wordOf(message.unsupported.type) : null;
    return { type, metaType: inner ?? type };
  }
  return { type: 'unsupported', metaType: type };
}

/** A reply to an interactive message: a button tapped or a row picked; any other kind is unsupported. */
function interactiveOf(interactive: Record<string, unknown>): WhatsAppContent {
  const kind = stringAt(interactive.type, 'interactive.type', DECODE_LIMITS.word);
  const { id, label } = DECODE_LIMITS;
  if (kind === 'button_reply') {
    const reply = objectAt(interactive.button_reply, 'interactive.button_reply');
    return {
      type: kind,
      id: stringAt(reply.id, 'button_reply.id', id),
      title: stringAt(reply.title, 'button_reply.title', label),
    };
  }
  if (kind === 'list_reply') {
    const reply = objectAt(interactive.list_reply, 'interactive.list_reply');
    return {
      type: kind,
      id: stringAt(reply.id, 'list_reply.id', id),
      title: stringAt(reply.title, 'list_reply.title', label),
      description: optionalStringAt(reply.description, 'list_reply.description', label),
    };
  }
  return { type: 'unsupported', metaType: `interactive.${kind}` };
}

function decodeStatus(raw: unknown, phoneNumberId: string): WhatsAppStatusFact {
  const item = objectAt(raw, 'status');
  const status = stringAt(item.status, 'status', DECODE_LIMITS.word);
  // `deleted`, `warning`, `played` and the like move nothing the seeds show.
  if (!isOneOf(WHATSAPP_STATUSES, status)) throw new Skip(`status ${shown(status)} is not read`);
  return {
    kind: 'status',
    phoneNumberId,
    messageId: stringAt(item.id, 'id', DECODE_LIMITS.id),
    status,
    timestamp: unixSecondsAt(item.timestamp, 'timestamp'),
    recipientId: stringAt(item.recipient_id, 'recipient_id', DECODE_LIMITS.waId),
    error: status === 'failed' ? failureOf(item.errors) : null,
  };
}

/** A failed status's first error: never a reason to skip the failure, so each part is read or left null. */
function failureOf(errors: unknown): WhatsAppStatusFact['error'] {
  const first: unknown = Array.isArray(errors) ? errors[0] : undefined;
  if (!isObject(first)) return null;
  const code = first.code;
  const details = isObject(first.error_data) ? first.error_data.details : undefined;
  const message = [details, first.message, first.title].find((text) => typeof text === 'string' && text !== '');
  return {
    code: Number.isSafeInteger(code) ? String(code) : wordOf(code),
    message: typeof message === 'string' ? clip(message, DECODE_LIMITS.errorMessage) : null,
  };
}
