// Meta's Instagram webhook, read into typed facts (issue 36, section 2): what a contact did in a direct thread
// (`entry[].messaging[]`: a message, a tap, a reaction, an edit, a read), a comment or a live comment
// (`entry[].changes[]`), or another app taking the thread (`entry[].standby[]`). Pure: no I/O, no domain, no store.
// The body is whatever arrived signed; nothing here trusts it. Every string has a bound, at most DECODE_LIMITS.items
// array items are read, and an item that does not fit goes to `skipped` with its path and a reason, never a throw.
// What the domain does with a fact is ./inbound.ts.
//
// - `object` is `instagram` (Instagram Login, and Facebook Login's instagram fields) or `page` (Facebook Login
//   delivering the account's threads on its Page): a page's `changes` are the Page's feed, not the account's, so
//   only `messaging` and `standby` are read there.
// - The account a fact belongs to: `entry.id` for comments; for thread items the account's side of the pair
//   (the recipient, or the sender of an echo), which is the instagram account under both logins, where `entry.id`
//   can be the Page. A Page's own Messenger threads arrive under `page` in the same shape, their recipient the
//   Page: the domain matches `accountId` against instagram account ids only, never a Page id.
import { isOneOf } from '../../guards.js';
import {
  READ_LIMITS,
  Skip,
  clip,
  eachItem,
  isObject,
  objectAt,
  optionalStringAt,
  shown,
  stringAt,
  unixTimeAt,
  wordOf,
  type Reading,
  type SkippedItem,
} from '../graph/read.js';

export type { SkippedItem };

/** Bounds on what a payload may carry (characters are code points). */
export const DECODE_LIMITS = {
  items: READ_LIMITS.items,
  /** A message's text, an edit's, a comment's (instagram: 1000 in a message, 2200 in a comment): a bound, not Meta's. */
  text: 4096,
  /** A mid, an IGSID, an account, media, story or comment id. */
  id: 256,
  /** An attachment's or a story's CDN URL (Meta's signed lookaside URLs run long). */
  url: 4096,
  /** A postback's or a quick reply's payload (Meta's limit: 1000). */
  payload: 1000,
  /** A postback's title, a username, a media product type. */
  label: 256,
  /** A shared post's or reel's title (its caption): cut here, not skipped. */
  title: 1024,
  word: READ_LIMITS.word,
} as const;

/** Attachment types read; any other is kept as `unsupported` with Meta's type. */
export const INSTAGRAM_ATTACHMENT_TYPES = [
  'image',
  'video',
  'audio',
  'file',
  'share',
  'ig_post',
  'story_mention',
  'ig_reel',
  'reel',
] as const;
export type InstagramAttachmentType = (typeof INSTAGRAM_ATTACHMENT_TYPES)[number];

export type InstagramAttachment =
  | {
      type: InstagramAttachmentType;
      /** The CDN URL of the bytes; null: none, or not an https URL (stored as missing, the message stands). */
      url: string | null;
      /** A shared post's (`ig_post_media_id`) or reel's (`reel_video_id`) media id. */
      mediaId: string | null;
      /** A shared post's or reel's title (its caption), cut to DECODE_LIMITS.title. */
      title: string | null;
    }
  | { type: 'unsupported'; metaType: string };

/** The fields every thread item carries. */
interface ThreadFact {
  /** The instagram account's id (the recipient, or the sender of an echo): it names the connection. */
  accountId: string;
  /** The contact's instagram-scoped id (IGSID): the other side of the thread. */
  contactId: string;
  /** Meta's time of the item (`timestamp`, unix milliseconds in the payload), as an ISO string. */
  timestamp: string;
}

export interface InstagramMessageFact extends ThreadFact {
  kind: 'message';
  /** The mid: a message is unique per connection and mid (Meta re-delivers). */
  messageId: string;
  /** `is_echo`: the account sent it (our send, or someone in Instagram's app). */
  echo: boolean;
  text: string | null;
  attachments: InstagramAttachment[];
  /** A quick reply's payload (`quick_reply.payload`). */
  quickReply: string | null;
  /** What the message answers: one of the thread's messages (`reply_to.mid`), or a story (`reply_to.story`). */
  replyTo: { type: 'message'; messageId: string } | { type: 'story'; storyId: string; url: string | null } | null;
  /** `is_unsupported`: Meta could not show what the contact sent. */
  unsupported: boolean;
}

/** `message.is_deleted`: the sender unsent the message. */
export interface InstagramDeleteFact extends ThreadFact {
  kind: 'message_deleted';
  messageId: string;
}

/** A tap on a button of a template or an ice breaker (`postback`). */
export interface InstagramPostbackFact extends ThreadFact {
  kind: 'postback';
  /** The mid of the tap's own message in the thread (null: Meta sent none). */
  messageId: string | null;
  title: string;
  /** The payload the button carried (our reply button's id); null: none. */
  payload: string | null;
}

export interface InstagramReactionFact extends ThreadFact {
  kind: 'reaction';
  /** The mid of the message reacted to. */
  messageId: string;
  action: 'react' | 'unreact';
  /** The emoji; null on `unreact` (and when Meta sent none). */
  emoji: string | null;
}

export interface InstagramEditFact extends ThreadFact {
  kind: 'message_edit';
  messageId: string;
  text: string;
  /** How many times the message was edited (`num_edit`). */
  editCount: number;
}

/** `read`: the contact saw the account's messages up to `messageId`. */
export interface InstagramReadFact extends ThreadFact {
  kind: 'read';
  messageId: string | null;
}

/** `standby`: another app owns the thread for now (an item about the thread, delivered to us as a watcher). */
export interface InstagramStandbyFact extends ThreadFact {
  kind: 'standby';
}

export interface InstagramCommentFact {
  kind: 'comment';
  /** `comments` (a post or reel) or `live_comments` (a live). */
  field: 'comments' | 'live_comments';
  /** `entry.id`: the instagram account whose media was commented on. */
  accountId: string;
  commentId: string;
  text: string | null;
  /**
   * The author: `from.id` and `username`; `igsid` is `from.self_ig_scoped_id`, the id the author has in the
   * account's threads, when Meta sends it.
   */
  from: { id: string; username: string; igsid: string | null };
  /**
   * The commented media: its id, `media_product_type` (`FEED`, `REELS`, `AD`, …), and for an ad's comment the ad
   * and the organic post it copies (`original_media_id`): Meta delivers an ad's comment per placement.
   */
  media: { id: string; productType: string | null; originalId: string | null; adId: string | null };
  /** The comment this one answers (`parent_id`). */
  parentId: string | null;
  /** Meta's time of the notification (`entry.time`), as an ISO string; null: none sent. */
  timestamp: string | null;
}

export type InstagramFact =
  | InstagramMessageFact
  | InstagramDeleteFact
  | InstagramPostbackFact
  | InstagramReactionFact
  | InstagramEditFact
  | InstagramReadFact
  | InstagramStandbyFact
  | InstagramCommentFact;

export interface DecodedInstagramWebhook {
  facts: InstagramFact[];
  skipped: SkippedItem[];
}

interface Decoding extends Reading {
  facts: InstagramFact[];
}

/** Decodes one webhook body (parsed JSON). Never throws; `facts` in payload order. */
export function decodeInstagramWebhook(body: unknown): DecodedInstagramWebhook {
  const d: Decoding = { facts: [], skipped: [], left: DECODE_LIMITS.items };
  const refused = (path: string, reason: string) => ({ facts: [], skipped: [{ path, reason }] });
  if (!isObject(body)) return refused('', 'not an object');
  if (body.object !== 'instagram' && body.object !== 'page')
    return refused('object', `${shown(body.object)} is neither instagram nor page`);
  if (!Array.isArray(body.entry)) return refused('entry', 'not a list');
  const page = body.object === 'page';
  eachItem(d, body.entry, 'entry', (raw, path) => {
    const entry = objectAt(raw, 'entry');
    const { messaging, standby, changes } = entry;
    if (messaging === undefined && standby === undefined && changes === undefined)
      throw new Skip('no messaging, standby or changes');
    eachItem(d, messaging, `${path}.messaging`, (item) => d.facts.push(threadFact(item)));
    eachItem(d, standby, `${path}.standby`, (item) => d.facts.push(standbyFact(item)));
    if (page && changes !== undefined) {
      d.skipped.push({ path: `${path}.changes`, reason: "a Page's changes: not the instagram account's" });
      return;
    }
    eachItem(d, changes, `${path}.changes`, (change) => d.facts.push(commentFact(entry, change)));
  });
  return { facts: d.facts, skipped: d.skipped };
}

const idAt = (value: unknown, where: string) => stringAt(value, where, DECODE_LIMITS.id);
const optionalIdAt = (value: unknown, where: string) => optionalStringAt(value, where, DECODE_LIMITS.id);

/** A thread item's sides and time; `accountSends`: the account is the sender (an echo). */
function threadOf(item: Record<string, unknown>, accountSends: boolean): ThreadFact {
  const sender = idAt(objectAt(item.sender, 'sender').id, 'sender.id');
  const recipient = idAt(objectAt(item.recipient, 'recipient').id, 'recipient.id');
  return {
    accountId: accountSends ? sender : recipient,
    contactId: accountSends ? recipient : sender,
    timestamp: unixTimeAt(item.timestamp, 'timestamp'),
  };
}

/** The keys of a thread item Meta fills, one per item; the first found is read. */
const THREAD_KINDS = ['message', 'postback', 'reaction', 'message_edit', 'read'] as const;

/** Items of the thread that are no contact's doing here: skipped with the reason. */
const NOT_READ: ReadonlyMap<string, string> = new Map([
  ['referral', 'a referral (an ad or an ig.me link) without a message: nothing was written'],
  ['optin', 'an opt-in: nothing was written'],
  ['pass_thread_control', 'a handover: the next messaging item says who owns the thread'],
  ['take_thread_control', 'a handover: the next standby item says another app owns the thread'],
  ['request_thread_control', 'a handover request: for the owning app to answer'],
]);

function threadFact(raw: unknown): InstagramFact {
  const item = objectAt(raw, 'item');
  const kind = THREAD_KINDS.find((key) => item[key] !== undefined);
  if (kind === undefined) {
    const other = [...NOT_READ].find(([key]) => item[key] !== undefined);
    throw new Skip(other ? other[1] : 'no message, postback, reaction, message_edit or read');
  }
  if (kind === 'message') return messageFact(item, objectAt(item.message, 'message'));
  const thread = threadOf(item, false);
  if (kind === 'postback') {
    const postback = objectAt(item.postback, 'postback');
    return {
      kind,
      ...thread,
      messageId: optionalIdAt(postback.mid, 'postback.mid'),
      title: stringAt(postback.title, 'postback.title', DECODE_LIMITS.label),
      payload: optionalStringAt(postback.payload, 'postback.payload', DECODE_LIMITS.payload),
    };
  }
  if (kind === 'reaction') {
    const reaction = objectAt(item.reaction, 'reaction');
    const action = reaction.action;
    if (!isOneOf(['react', 'unreact'] as const, action))
      throw new Skip(`reaction.action: ${shown(action)} is not read`);
    const emoji = optionalStringAt(reaction.emoji, 'reaction.emoji', DECODE_LIMITS.word);
    return {
      kind,
      ...thread,
      messageId: idAt(reaction.mid, 'reaction.mid'),
      action,
      emoji: action === 'react' ? emoji : null,
    };
  }
  if (kind === 'message_edit') {
    const edit = objectAt(item.message_edit, 'message_edit');
    return {
      kind,
      ...thread,
      messageId: idAt(edit.mid, 'message_edit.mid'),
      text: stringAt(edit.text, 'message_edit.text', DECODE_LIMITS.text),
      editCount: countAt(edit.num_edit, 'message_edit.num_edit'),
    };
  }
  const read = objectAt(item.read, 'read');
  return { kind, ...thread, messageId: optionalIdAt(read.mid, 'read.mid') };
}

/** A count Meta sends as a number or a string of digits (its Messenger page shows `"<INT>"`). */
function countAt(value: unknown, where: string): number {
  const count = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) throw new Skip(`${where}: not a count`);
  return count;
}

function messageFact(item: Record<string, unknown>, message: Record<string, unknown>): InstagramFact {
  const echo = message.is_echo === true;
  const thread = threadOf(item, echo);
  const messageId = idAt(message.mid, 'message.mid');
  if (message.is_deleted === true) return { kind: 'message_deleted', ...thread, messageId };
  const unsupported = message.is_unsupported === true;
  const quickReply = message.quick_reply === undefined ? {} : objectAt(message.quick_reply, 'message.quick_reply');
  const fact: InstagramMessageFact = {
    kind: 'message',
    ...thread,
    messageId,
    echo,
    text: optionalStringAt(message.text, 'message.text', DECODE_LIMITS.text),
    attachments: [],
    quickReply: optionalStringAt(quickReply.payload, 'message.quick_reply.payload', DECODE_LIMITS.payload),
    replyTo: replyToOf(message.reply_to),
    unsupported,
  };
  const attachments = message.attachments;
  if (attachments !== undefined && !Array.isArray(attachments)) throw new Skip('message.attachments: not a list');
  // A message has a handful of attachments; more than Meta ever sends is junk, not a reason to spend the budget.
  if (Array.isArray(attachments) && attachments.length > 20)
    throw new Skip('message.attachments: more than 20 attachments');
  if (Array.isArray(attachments))
    fact.attachments = attachments.map((raw, i) => attachmentOf(raw, `message.attachments[${i}]`));
  if (!unsupported && fact.text === null && fact.attachments.length === 0)
    throw new Skip('message: no text, attachment or is_unsupported');
  return fact;
}

function replyToOf(raw: unknown): InstagramMessageFact['replyTo'] {
  if (raw === undefined || raw === null) return null;
  const replyTo = objectAt(raw, 'message.reply_to');
  if (replyTo.story !== undefined) {
    const story = objectAt(replyTo.story, 'message.reply_to.story');
    return {
      type: 'story',
      storyId: idAt(story.id, 'message.reply_to.story.id'),
      url: httpsUrlOf(story.url, 'message.reply_to.story.url'),
    };
  }
  const mid = optionalIdAt(replyTo.mid, 'message.reply_to.mid');
  return mid === null ? null : { type: 'message', messageId: mid };
}

/** An https URL of at most DECODE_LIMITS.url characters; anything else is no URL (the media is missing). */
function httpsUrlOf(value: unknown, where: string): string | null {
  const url = optionalStringAt(value, where, DECODE_LIMITS.url);
  return url !== null && URL.canParse(url) && new URL(url).protocol === 'https:' ? url : null;
}

function attachmentOf(raw: unknown, where: string): InstagramAttachment {
  const attachment = objectAt(raw, where);
  const type = stringAt(attachment.type, `${where}.type`, DECODE_LIMITS.word);
  if (!isOneOf(INSTAGRAM_ATTACHMENT_TYPES, type)) return { type: 'unsupported', metaType: type };
  // Meta leaves the payload out when the media is gone (an expired story): the attachment is missing, not junk.
  const payload = isObject(attachment.payload) ? attachment.payload : {};
  const title = typeof payload.title === 'string' && payload.title !== '' ? payload.title : null;
  return {
    type,
    url: httpsUrlOf(payload.url, `${where}.payload.url`),
    mediaId: optionalIdAt(payload.ig_post_media_id ?? payload.reel_video_id, `${where}.payload media id`),
    title: title === null ? null : clip(title, DECODE_LIMITS.title),
  };
}

/** A standby item: the thread's contact, whichever side wrote; its content is the owning app's. */
function standbyFact(raw: unknown): InstagramStandbyFact {
  const item = objectAt(raw, 'item');
  const echo = isObject(item.message) && item.message.is_echo === true;
  return { kind: 'standby', ...threadOf(item, echo) };
}

const COMMENT_FIELDS = ['comments', 'live_comments'] as const;

function commentFact(entry: Record<string, unknown>, raw: unknown): InstagramCommentFact {
  const change = objectAt(raw, 'change');
  const field = change.field;
  if (!isOneOf(COMMENT_FIELDS, field)) throw new Skip(`field ${shown(field)} is not read`);
  const value = objectAt(change.value, 'value');
  const from = objectAt(value.from, 'value.from');
  const media = objectAt(value.media, 'value.media');
  return {
    kind: 'comment',
    field,
    accountId: idAt(entry.id, 'entry.id'),
    commentId: idAt(value.id, 'value.id'),
    // A comment of a sticker or a GIF alone has no text.
    text: optionalStringAt(value.text, 'value.text', DECODE_LIMITS.text),
    from: {
      id: idAt(from.id, 'value.from.id'),
      username: stringAt(from.username, 'value.from.username', DECODE_LIMITS.label),
      igsid: optionalIdAt(from.self_ig_scoped_id, 'value.from.self_ig_scoped_id'),
    },
    media: {
      id: idAt(media.id, 'value.media.id'),
      productType: wordOf(media.media_product_type),
      originalId: optionalIdAt(media.original_media_id, 'value.media.original_media_id'),
      adId: optionalIdAt(media.ad_id, 'value.media.ad_id'),
    },
    parentId: optionalIdAt(value.parent_id, 'value.parent_id'),
    timestamp: entry.time === undefined ? null : timeOrNull(entry.time),
  };
}

/** `entry.time` is Meta's sending time: worth keeping, never a reason to lose the comment. */
function timeOrNull(value: unknown): string | null {
  try {
    return unixTimeAt(value, 'entry.time');
  } catch (error) {
    if (error instanceof Skip) return null;
    throw error;
  }
}
