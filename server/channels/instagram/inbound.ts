// What the domain does with a decoded instagram fact (./decode.ts), in the seeds' terms and in the shape of the
// domain's inbound input (domain/messaging/inbound.ts `InboundInput`) without importing it: channels/ stays below
// the domain, which maps this shape into its own (a later slice). Pure.
//
// - A contact's message → `record`: type `message`; `story_message` when it answers a story (`reply_to.story`,
//   the story as its post); `story_mention` when it carries a `story_mention` attachment (the story as its post and
//   its media). Every attachment with a URL is fetched and stored (`media`); one whose URL is missing or cannot be
//   fetched is stored as missing, the message is never dropped. Types the seeds do not have travel as the nearest
//   one (a shared post an image, a reel a video); the fetched bytes' type decides in the end.
// - `is_unsupported`, or only attachments of types not read → `is_unsupported`, no text, no media.
// - A tap (`postback`, or a quick reply's payload) → a contact message whose `text` is the title, `button` { id:
//   the payload, title, source }: `source` is who sent the message holding the button (`api`, `workflow`,
//   `other`), else `ice_breaker` when the payload is one of the account's conversation starters, else `other`.
//   A postback without a mid (Meta's examples always carry one) is keyed by its contact and time, so a
//   re-delivery stays one message.
// - An echo (`is_echo`) → `account_message`: nothing when its mid is a message we stored (our own send); otherwise
//   the account wrote it in Instagram's app, stored as the account's.
// - A reaction, an edit → `update` (`message.updated`); `is_deleted` → `delete` (`message.deleted`).
// - `read` → nothing the API shows. A standby item → `thread_taken`: sends answer `conversation_not_owned` until
//   any other item of the thread arrives (`threadOf`).
// - A comment or a live comment → `record` (`comment` / `live_comment`, the post or live as its post); the
//   account's own comment (its public reply) → nothing.
import type {
  InstagramAttachment,
  InstagramAttachmentType,
  InstagramCommentFact,
  InstagramFact,
  InstagramMessageFact,
} from './decode.js';

/** The seeds' `button.source` values. */
export type ButtonSource = 'api' | 'workflow' | 'ice_breaker' | 'other';

/** A message of the thread the domain found: our id for it, and who sent it (its `sender.type`). */
export interface FoundMessage {
  id: string;
  senderType: string;
}

/** What the domain looks up before it decides (`lookupOf`), and what it found. */
export interface InboundContext {
  /**
   * The message the fact's message answers (`replyToMid`), or, for a tap, the account's message holding a reply
   * button whose id is the tap's payload (`buttonPayload`); null: not found.
   */
  found: FoundMessage | null;
  /** The tap's payload is one of the account's conversation starters (ice breakers). */
  iceBreaker: boolean;
}

/** What the domain must find for a fact: the message it answers, the message of the button tapped. */
export function lookupOf(fact: InstagramFact): { replyToMid: string | null; buttonPayload: string | null } {
  if (fact.kind === 'postback') return { replyToMid: null, buttonPayload: fact.payload };
  if (fact.kind !== 'message') return { replyToMid: null, buttonPayload: null };
  return {
    replyToMid: fact.replyTo?.type === 'message' ? fact.replyTo.messageId : null,
    buttonPayload: fact.quickReply,
  };
}

/** An attachment to fetch by its URL and store, in the seeds' attachment types. */
export interface InboundMediaRef {
  type: 'image' | 'video' | 'audio' | 'file';
  /** Null: Meta sent no usable URL; stored as missing. */
  url: string | null;
  /** Meta's attachment type, for the log and the missing media's record. */
  metaType: InstagramAttachmentType;
}

export type InstagramInboundType = 'message' | 'story_message' | 'story_mention' | 'comment' | 'live_comment';

export interface InstagramInbound {
  /** The mid, or a comment's id: unique per connection (Meta re-delivers, and delivers an ad's comment twice). */
  providerMessageId: string;
  type: InstagramInboundType;
  /**
   * The contact's instagram-scoped id. `username` null: a thread item carries none (the domain asks Meta's profile
   * API, or keeps the contact's).
   */
  from: { instagram_id: string; username: string | null };
  text: string | null;
  media: InboundMediaRef[];
  /** A story (reply or mention), a post or a live; a mention's story has no id in the payload. */
  post: { type: 'feed' | 'story' | 'live'; id: string | null; url: string | null } | null;
  reply_to_message_id: string | null;
  button: { id: string | null; title: string; source: ButtonSource } | null;
  /** A comment's parent (`parent_id`): the comment it answers. */
  parent_comment_id: string | null;
  is_unsupported: boolean;
  /** Meta's time; null: none sent (the domain takes now). */
  created_at: string | null;
}

/** A message the account sent (an echo): ours when its mid is stored, else written in Instagram's app. */
export interface InstagramAccountMessage {
  providerMessageId: string;
  contactId: string;
  text: string | null;
  media: InboundMediaRef[];
  is_unsupported: boolean;
  created_at: string;
}

export type InstagramDecision =
  | { action: 'record'; inbound: InstagramInbound }
  | { action: 'account_message'; message: InstagramAccountMessage }
  | {
      action: 'update';
      providerMessageId: string;
      change: { type: 'reaction'; emoji: string | null; at: string } | { type: 'edit'; text: string; at: string };
    }
  | { action: 'delete'; providerMessageId: string }
  | { action: 'thread_taken'; accountId: string; contactId: string }
  | { action: 'ignore'; reason: string };

const MEDIA_TYPE: Record<InstagramAttachmentType, InboundMediaRef['type']> = {
  image: 'image',
  video: 'video',
  audio: 'audio',
  file: 'file',
  share: 'image',
  ig_post: 'image',
  story_mention: 'image',
  ig_reel: 'video',
  reel: 'video',
};

/**
 * The attachments to store. A shared post arrives twice since November 2025 (`share` and `ig_post` of the same
 * media): the `share` goes when an `ig_post` names its media.
 */
export function mediaOf(attachments: readonly InstagramAttachment[]): InboundMediaRef[] {
  const posts = new Set<string>();
  for (const a of attachments) if (a.type === 'ig_post' && a.mediaId !== null) posts.add(a.mediaId);
  const media: InboundMediaRef[] = [];
  for (const a of attachments) {
    if (a.type === 'unsupported') continue;
    if (a.type === 'share' && a.mediaId !== null && posts.has(a.mediaId)) continue;
    media.push({ type: MEDIA_TYPE[a.type], url: a.url, metaType: a.type });
  }
  return media;
}

const sourceOf = (context: InboundContext): ButtonSource =>
  context.found?.senderType === 'api'
    ? 'api'
    : context.found?.senderType === 'workflow'
      ? 'workflow'
      : context.found === null && context.iceBreaker
        ? 'ice_breaker'
        : 'other';

/** The thread a fact shows active for us (any item but standby): it returns by itself from another app. */
export function threadOf(fact: InstagramFact): { accountId: string; contactId: string } | null {
  if (fact.kind === 'comment' || fact.kind === 'standby') return null;
  return { accountId: fact.accountId, contactId: fact.contactId };
}

/** What to do with a fact; `context`: what the domain found for `lookupOf(fact)`. */
export function decisionOf(fact: InstagramFact, context: InboundContext): InstagramDecision {
  switch (fact.kind) {
    case 'message':
      return fact.echo ? accountMessageOf(fact) : { action: 'record', inbound: messageInbound(fact, context) };
    case 'postback':
      return {
        action: 'record',
        inbound: {
          ...threadInbound(fact.messageId ?? `postback:${fact.contactId}:${fact.timestamp}`, fact.contactId),
          text: fact.title,
          reply_to_message_id: context.found?.id ?? null,
          button: { id: fact.payload, title: fact.title, source: sourceOf(context) },
          created_at: fact.timestamp,
        },
      };
    case 'reaction':
      return {
        action: 'update',
        providerMessageId: fact.messageId,
        change: { type: 'reaction', emoji: fact.action === 'react' ? fact.emoji : null, at: fact.timestamp },
      };
    case 'message_edit':
      // Meta has been seen to send num_edit 0 for a message never edited: nothing changed.
      return fact.editCount === 0
        ? { action: 'ignore', reason: 'an edit count of 0: the message was not edited' }
        : {
            action: 'update',
            providerMessageId: fact.messageId,
            change: { type: 'edit', text: fact.text, at: fact.timestamp },
          };
    case 'message_deleted':
      return { action: 'delete', providerMessageId: fact.messageId };
    case 'read':
      return { action: 'ignore', reason: 'a read receipt: nothing the API shows' };
    case 'standby':
      return { action: 'thread_taken', accountId: fact.accountId, contactId: fact.contactId };
    case 'comment':
      return commentDecision(fact);
  }
}

/** A thread message's inbound with nothing filled but its id and sender. */
const threadInbound = (providerMessageId: string, contactId: string): InstagramInbound => ({
  providerMessageId,
  type: 'message',
  from: { instagram_id: contactId, username: null },
  text: null,
  media: [],
  post: null,
  reply_to_message_id: null,
  button: null,
  parent_comment_id: null,
  is_unsupported: false,
  created_at: null,
});

function messageInbound(fact: InstagramMessageFact, context: InboundContext): InstagramInbound {
  const base = { ...threadInbound(fact.messageId, fact.contactId), created_at: fact.timestamp };
  const media = mediaOf(fact.attachments);
  if (fact.unsupported || (fact.text === null && media.length === 0)) return { ...base, is_unsupported: true };
  const mention = fact.attachments.find((a) => a.type === 'story_mention');
  const story = fact.replyTo?.type === 'story' ? fact.replyTo : null;
  const type: InstagramInboundType = mention ? 'story_mention' : story ? 'story_message' : 'message';
  const post: InstagramInbound['post'] = story
    ? { type: 'story', id: story.storyId, url: story.url }
    : mention && mention.type !== 'unsupported'
      ? { type: 'story', id: null, url: mention.url }
      : null;
  return {
    ...base,
    type,
    text: fact.text,
    media,
    post,
    reply_to_message_id: context.found?.id ?? null,
    button:
      fact.quickReply !== null && fact.text !== null
        ? { id: fact.quickReply, title: fact.text, source: sourceOf(context) }
        : null,
  };
}

function accountMessageOf(fact: InstagramMessageFact): InstagramDecision {
  const media = mediaOf(fact.attachments);
  const unsupported = fact.unsupported || (fact.text === null && media.length === 0);
  return {
    action: 'account_message',
    message: {
      providerMessageId: fact.messageId,
      contactId: fact.contactId,
      text: unsupported ? null : fact.text,
      media: unsupported ? [] : media,
      is_unsupported: unsupported,
      created_at: fact.timestamp,
    },
  };
}

function commentDecision(fact: InstagramCommentFact): InstagramDecision {
  if (fact.from.id === fact.accountId || fact.from.igsid === fact.accountId)
    return { action: 'ignore', reason: "the account's own comment (a public reply): recorded when it was sent" };
  const live = fact.field === 'live_comments';
  return {
    action: 'record',
    inbound: {
      providerMessageId: fact.commentId,
      type: live ? 'live_comment' : 'comment',
      // The id the author has in the account's threads, so a later direct message finds the same contact.
      from: { instagram_id: fact.from.igsid ?? fact.from.id, username: fact.from.username },
      text: fact.text,
      media: [],
      // An ad's comment belongs to the post the ad copies.
      post: { type: live ? 'live' : 'feed', id: fact.media.originalId ?? fact.media.id, url: null },
      reply_to_message_id: null,
      button: null,
      parent_comment_id: fact.parentId,
      is_unsupported: fact.text === null,
      created_at: fact.timestamp,
    },
  };
}
