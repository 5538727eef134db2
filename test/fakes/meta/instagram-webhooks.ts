// Meta's webhook payloads for an Instagram professional account, pure, in the shapes of Meta's documented examples
// (test/fixtures/instagram/, which the decoder server/channels/instagram/decode.ts reads):
// `{object: 'instagram', entry: [{time, id: ig_user_id, messaging | standby | changes}]}`. One builder per kind the
// decoder reads: a text, attachments (image, video, audio, file, share/ig_post, story_mention, ig_reel), a quick
// reply, a reply to a message or a story, a postback, a reaction and its removal, an edit, an unsend, an unsupported
// message, an echo, a read, a standby item, a comment (post, reel, ad, reply) and a live comment. `onPage` rewrites a
// thread payload as Facebook Login delivers it (`object: 'page'`, `entry.id` the Page).
import { randomBytes, randomInt } from 'node:crypto';

/** What a payload names of the account. */
export interface InstagramWebhookAccount {
  igUserId: string;
}

export interface InstagramWebhookPayload {
  object: 'instagram' | 'page';
  entry: {
    id: string;
    time: number;
    messaging?: Record<string, unknown>[];
    standby?: Record<string, unknown>[];
    changes?: { field: 'comments' | 'live_comments'; value: Record<string, unknown> }[];
  }[];
}

/** The contact writing in the thread, and the item's own id and time (made up when absent). */
export interface ThreadSender {
  /** The contact's instagram-scoped id (IGSID). */
  from: string;
  /** The message's mid; a new one when absent. */
  mid?: string;
  /** Unix milliseconds (Instagram's unit); now when absent. */
  timestamp?: number;
}

/** A mid like Meta's: base64 of `ig_item:1:IGMessage:…`, so it starts with `aWdf`. */
export const newMid = (igUserId = '17841405309211844'): string =>
  Buffer.from(`ig_item:1:IGMessage:${igUserId}:${randomBytes(24).toString('hex')}`).toString('base64url');

/** An id of Meta's form (17 digits), for comments, media and stories. */
export const newIgId = (): string => `1${randomInt(10_000_000, 99_999_999)}${randomInt(10_000_000, 99_999_999)}`;

const now = (): number => Date.now();

/** One thread item (`messaging`, or `standby`) for the account, from the contact (or from the account: `echo`). */
export function threadItem(
  account: InstagramWebhookAccount,
  sender: ThreadSender,
  content: Record<string, unknown>,
  options: { list?: 'messaging' | 'standby'; echo?: boolean } = {},
): InstagramWebhookPayload {
  const [from, to] = options.echo ? [account.igUserId, sender.from] : [sender.from, account.igUserId];
  const item = { sender: { id: from }, recipient: { id: to }, timestamp: sender.timestamp ?? now(), ...content };
  return {
    object: 'instagram',
    entry: [{ time: now(), id: account.igUserId, [options.list ?? 'messaging']: [item] }],
  };
}

const message = (sender: ThreadSender, account: InstagramWebhookAccount, fields: Record<string, unknown>) => ({
  message: { mid: sender.mid ?? newMid(account.igUserId), ...fields },
});

/** A text, optionally answering one of the thread's messages (`replyToMid`). */
export const text = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { text: string; replyToMid?: string },
): InstagramWebhookPayload =>
  threadItem(
    account,
    input,
    message(input, account, {
      text: input.text,
      ...(input.replyToMid === undefined ? {} : { reply_to: { mid: input.replyToMid } }),
    }),
  );

export type InstagramAttachmentKind =
  'image' | 'video' | 'audio' | 'file' | 'share' | 'ig_post' | 'story_mention' | 'ig_reel';

export interface AttachmentInput {
  type: InstagramAttachmentKind;
  /** The CDN URL of the bytes (Meta's lookaside URL); a made-up one when absent, none when null (media gone). */
  url?: string | null;
  /** A shared post's (`ig_post_media_id`) or a reel's (`reel_video_id`) media id. */
  mediaId?: string;
  /** A shared post's or reel's caption. */
  title?: string;
}

/** A lookaside URL like the ones Meta sends. */
export const cdnUrl = (assetId = newIgId()): string => {
  const signature = randomBytes(12).toString('base64url');
  return `https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=${assetId}&signature=${signature}`;
};

function attachmentOf(input: AttachmentInput): Record<string, unknown> {
  if (input.url === null) return { type: input.type };
  const payload: Record<string, unknown> = {};
  if (input.mediaId !== undefined)
    payload[input.type === 'ig_reel' ? 'reel_video_id' : 'ig_post_media_id'] = input.mediaId;
  if (input.title !== undefined) payload.title = input.title;
  payload.url = input.url ?? cdnUrl();
  return { type: input.type, payload };
}

/** A message of attachments (a shared post arrives as `share` and `ig_post` side by side, as Meta sends it). */
export const attachments = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { attachments: AttachmentInput[]; text?: string },
): InstagramWebhookPayload =>
  threadItem(
    account,
    input,
    message(input, account, {
      ...(input.text === undefined ? {} : { text: input.text }),
      attachments: input.attachments.map(attachmentOf),
    }),
  );

/** One attachment (image, video, audio, file, a reel, a story mention…). */
export const attachment = (
  account: InstagramWebhookAccount,
  input: ThreadSender & AttachmentInput,
): InstagramWebhookPayload => attachments(account, { ...input, attachments: [input] });

/** A shared post, as Meta sends it since November 2025: `share` and `ig_post` of the same post. */
export const postShare = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { mediaId?: string; title?: string; url?: string },
): InstagramWebhookPayload => {
  const post = { mediaId: input.mediaId ?? newIgId(), title: input.title, url: input.url ?? cdnUrl() };
  return attachments(account, {
    ...input,
    attachments: [
      { type: 'share', ...post },
      { type: 'ig_post', ...post },
    ],
  });
};

/** The contact mentioned the account in a story (Meta sends its URL only). */
export const storyMention = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { url?: string | null },
): InstagramWebhookPayload => attachment(account, { ...input, type: 'story_mention' });

/** A reply to the account's story (`reply_to.story`). */
export const storyReply = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { text: string; storyId?: string; url?: string },
): InstagramWebhookPayload =>
  threadItem(
    account,
    input,
    message(input, account, {
      text: input.text,
      reply_to: { story: { url: input.url ?? cdnUrl(), id: input.storyId ?? newIgId() } },
    }),
  );

/** A tap on one of our quick replies: its text and payload. */
export const quickReply = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { text: string; payload: string },
): InstagramWebhookPayload =>
  threadItem(account, input, message(input, account, { text: input.text, quick_reply: { payload: input.payload } }));

/** A tap on a button of our button or generic template (`postback`). */
export const postback = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { title: string; payload: string },
): InstagramWebhookPayload =>
  threadItem(account, input, {
    postback: { mid: input.mid ?? newMid(account.igUserId), title: input.title, payload: input.payload },
  });

/** An emoji on a message (`messageMid`); `unreact` removes it (no emoji). */
export const reaction = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { messageMid: string; emoji?: string; action?: 'react' | 'unreact' },
): InstagramWebhookPayload => {
  const action = input.action ?? 'react';
  const fields = action === 'react' ? { reaction: 'love', emoji: input.emoji ?? '❤️' } : {};
  return threadItem(account, input, { reaction: { mid: input.messageMid, action, ...fields } });
};

/** The contact edited a message (`num_edit`: 1 unless given). */
export const messageEdit = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { messageMid: string; text: string; numEdit?: number },
): InstagramWebhookPayload =>
  threadItem(account, input, {
    message_edit: { mid: input.messageMid, text: input.text, num_edit: input.numEdit ?? 1 },
  });

/** The contact unsent a message (`is_deleted`). */
export const deleted = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { messageMid: string },
): InstagramWebhookPayload => threadItem(account, input, { message: { mid: input.messageMid, is_deleted: true } });

/** A message Meta cannot show (`is_unsupported`). */
export const unsupported = (account: InstagramWebhookAccount, input: ThreadSender): InstagramWebhookPayload =>
  threadItem(account, input, message(input, account, { is_unsupported: true }));

/**
 * A message the account sent (`is_echo`, the account the sender): our own send (its `mid` is the one the send
 * answered) or one written in Instagram's app. `from` is the contact it went to.
 */
export const echo = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { text: string },
): InstagramWebhookPayload =>
  threadItem(account, input, message(input, account, { text: input.text, is_echo: true }), { echo: true });

/** The contact saw the thread up to `messageMid`. */
export const read = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { messageMid: string },
): InstagramWebhookPayload => threadItem(account, input, { read: { mid: input.messageMid } });

/** Another app owns the thread: the contact's message delivered to us as a watcher (`standby`). */
export const standby = (
  account: InstagramWebhookAccount,
  input: ThreadSender & { text?: string },
): InstagramWebhookPayload =>
  threadItem(account, input, message(input, account, { text: input.text ?? 'Is anyone there?' }), {
    list: 'standby',
  });

/** A comment's author: `from.id` and username; `igsid` (`self_ig_scoped_id`) is the id in the account's threads. */
export interface CommentAuthor {
  id: string;
  username: string;
  igsid?: string;
}

export interface CommentInput {
  from: CommentAuthor;
  text?: string;
  /** The comment's id; a new one when absent. */
  commentId?: string;
  /** The commented media (a live for `liveComment`); a new id when absent. */
  mediaId?: string;
  /** `FEED` (the default for a comment), `REELS`, `AD`… (`LIVE` for a live comment). */
  productType?: string;
  /** The comment this one answers. */
  parentId?: string;
  /** A comment on an ad: the ad and the organic post it copies (Meta delivers it per placement). */
  ad?: { adId: string; title?: string; originalMediaId: string };
  /** Unix seconds (`entry.time`, as comments carry it); now when absent. */
  time?: number;
}

function change(
  account: InstagramWebhookAccount,
  field: 'comments' | 'live_comments',
  input: CommentInput,
): InstagramWebhookPayload {
  const from: Record<string, unknown> = { id: input.from.id, username: input.from.username };
  if (input.from.igsid !== undefined) from.self_ig_scoped_id = input.from.igsid;
  const media: Record<string, unknown> = {
    id: input.mediaId ?? newIgId(),
    media_product_type: input.productType ?? (field === 'live_comments' ? 'LIVE' : 'FEED'),
  };
  if (input.ad) {
    media.ad_id = input.ad.adId;
    if (input.ad.title !== undefined) media.ad_title = input.ad.title;
    media.original_media_id = input.ad.originalMediaId;
  }
  const value: Record<string, unknown> = { from, media, id: input.commentId ?? newIgId() };
  if (input.text !== undefined) value.text = input.text;
  if (input.parentId !== undefined) value.parent_id = input.parentId;
  return {
    object: 'instagram',
    entry: [
      {
        id: account.igUserId,
        time: input.time ?? Math.floor(now() / 1000),
        changes: [{ field, value }],
      },
    ],
  };
}

/** A comment on one of the account's posts, reels or ads (`field: comments`). */
export const comment = (account: InstagramWebhookAccount, input: CommentInput): InstagramWebhookPayload =>
  change(account, 'comments', input);

/** A comment on the account's live (`field: live_comments`). */
export const liveComment = (account: InstagramWebhookAccount, input: CommentInput): InstagramWebhookPayload =>
  change(account, 'live_comments', input);

/** A thread payload as Facebook Login delivers it: `object: 'page'`, each entry under the Page's id. */
export const onPage = (payload: InstagramWebhookPayload, pageId: string): InstagramWebhookPayload => ({
  object: 'page',
  entry: payload.entry.map((entry) => ({ ...entry, id: pageId })),
});

/** Several payloads as one delivery (Meta batches): their entries side by side. */
export const batch = (...payloads: InstagramWebhookPayload[]): InstagramWebhookPayload => ({
  object: payloads[0]?.object ?? 'instagram',
  entry: payloads.flatMap((payload) => payload.entry),
});

/** The comments a payload carries, with the IGSID of each author (to answer a private reply's `recipient_id`). */
export function commentsIn(payload: InstagramWebhookPayload): { commentId: string; igsid: string }[] {
  const found: { commentId: string; igsid: string }[] = [];
  for (const entry of payload.entry)
    for (const { value } of entry.changes ?? []) {
      const from = value.from;
      const id = value.id;
      if (typeof id !== 'string' || typeof from !== 'object' || from === null) continue;
      const igsid = 'self_ig_scoped_id' in from ? from.self_ig_scoped_id : 'id' in from ? from.id : undefined;
      if (typeof igsid === 'string') found.push({ commentId: id, igsid });
    }
  return found;
}
