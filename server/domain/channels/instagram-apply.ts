// An Instagram webhook payload, applied after Meta heard 200 (the CHANNEL_WEBHOOK_JOB that ./webhook-intake.ts
// committed, dispatched by ./webhook-apply.ts). The decoder (channels/instagram/decode.ts) reads the facts, the
// seeds' meaning of each is channels/instagram/inbound.ts (`decisionOf`); here each goes into the domain's own
// paths, as the sandbox's do:
// - the account: a fact names its Instagram account's id, matched against the attached accounts' ids only
//   (`findConnectionOfInstagramAccount`), never a Page's id (a Page's own Messenger threads arrive in the same
//   shape under `page`); an id no connection has is logged and skipped (Meta disables a webhook that keeps failing);
// - a contact's message, a tap, a comment, a live comment → `recordInbound` (events, the window, triggers), once
//   per connection and mid or comment id: a re-delivery, or an ad's comment delivered per placement, is one
//   message; its attachments fetched from the CDN address Meta gave and stored, or stored missing (never dropped);
// - an echo: a mid we hold (our own send, or one stored before) changes nothing; another is looked at again
//   ECHO_RECHECK_MS later (INSTAGRAM_ECHO_JOB: Meta may echo our send before the send stored the mid it answered
//   with), and if still unknown it is the account writing in Instagram's app, stored as the account's
//   (`unattributed`, messaging/message-changes.ts);
// - a reaction, an edit, an unsend → the seeds' change (messaging/message-changes.ts) of the message the mid names;
//   one that changes nothing (a re-delivery) emits nothing;
// - a standby item → the contact's conversation is owned elsewhere (`owned_elsewhere_since`); any later item of
//   the thread clears it.
import type { Kysely } from 'kysely';
import { decodeInstagramWebhook, type InstagramFact } from '../../channels/instagram/decode.js';
import {
  decisionOf,
  lookupOf,
  threadOf,
  type FoundMessage,
  type InboundContext,
  type InboundMediaRef,
  type InstagramAccountMessage,
  type InstagramDecision,
  type InstagramInbound,
} from '../../channels/instagram/inbound.js';
import { INSTAGRAM_ECHO_JOB, type ChannelWebhookPayload, type InstagramEchoPayload } from '../../job-kinds.js';
import { findConnectionById } from '../../store/console.js';
import { enqueue } from '../../store/jobs.js';
import { findConnectionOfInstagramAccount } from '../../store/channel-providers.js';
import { isUniqueViolationOf, type ConnectionRow } from '../../store/console.js';
import { lockContactByInstagramId } from '../../store/contacts.js';
import {
  clearOwnedElsewhere,
  findConversationOfInstagramContact,
  findMessageByProviderId,
  markOwnedElsewhere,
  selectRecentOutbound,
  type MessageRow,
} from '../../store/messaging.js';
import type { DB } from '../../store/schema.js';
import { recordInbound } from '../messaging/inbound.js';
import {
  applyMessageChange,
  recordAccountMessage,
  refusalOf,
  type MessageChange,
} from '../messaging/message-changes.js';
import { receivedAttachment, type WebhookApplyDeps } from './received-media.js';

/** Migration 0022's index: an inbound message once per connection and channel id. */
const INBOUND_UNIQUE_INDEX = 'messages_inbound_provider_id';
/**
 * How long after an unknown echo it is looked at again: longer than a send can wait on Meta's answer (the Graph
 * client's 15 s), so our own send has stored its mid by then unless its answer was lost.
 */
export const ECHO_RECHECK_MS = 30_000;
/** The account's messages of the thread a tap's button is looked for in (newest first). */
const TAP_LOOKBACK = 20;

/** What became of a payload's facts (logged, and read by the tests). */
export interface InstagramApplied {
  /** Contacts' messages, taps, comments and live comments stored. */
  recorded: number;
  /** Messages the account wrote in Instagram's app, stored as its own. */
  accountMessages: number;
  /** Reactions and edits applied (`message.updated`). */
  updated: number;
  /** Unsends applied (`message.deleted`). */
  deleted: number;
  /** Facts already applied (a mid or comment id stored, an echo of ours, a change already there). */
  duplicates: number;
  /** Echoes of a mid not stored yet, looked at again ECHO_RECHECK_MS later. */
  echoesLater: number;
  /** Facts that change nothing the API shows (a read, an edit count of 0, a change to a message we do not hold). */
  ignored: number;
  /** Threads another app took (standby), and threads back with us. */
  threadsTaken: number;
  threadsReturned: number;
  unknownAccounts: number;
}

type Outcome = Exclude<keyof InstagramApplied, 'threadsReturned' | 'unknownAccounts'>;

export async function applyInstagramWebhook(
  deps: WebhookApplyDeps,
  payload: ChannelWebhookPayload,
): Promise<InstagramApplied> {
  const { facts, skipped } = decodeInstagramWebhook(JSON.parse(payload.body));
  if (skipped.length > 0)
    deps.logger.warn({ skipped: skipped.slice(0, 20) }, 'parts of an instagram webhook were skipped');
  const applied: InstagramApplied = {
    recorded: 0,
    accountMessages: 0,
    updated: 0,
    deleted: 0,
    duplicates: 0,
    echoesLater: 0,
    ignored: 0,
    threadsTaken: 0,
    threadsReturned: 0,
    unknownAccounts: 0,
  };
  const connections = new Map<string, ConnectionRow | undefined>();
  for (const fact of facts) {
    if (!connections.has(fact.accountId))
      connections.set(fact.accountId, await findConnectionOfInstagramAccount(deps.db, fact.accountId));
    const connection = connections.get(fact.accountId);
    if (!connection) {
      applied.unknownAccounts += 1;
      deps.logger.warn({ ig_user_id: fact.accountId }, 'an instagram webhook names an account no connection has');
      continue;
    }
    // Any item of the thread but a standby one: the thread is ours again.
    const thread = threadOf(fact);
    if (thread)
      applied.threadsReturned += await clearOwnedElsewhere(
        deps.db,
        connection.account_id,
        connection.id,
        thread.contactId,
      );
    const decision = decisionOf(fact, await contextOf(deps.db, connection, fact));
    applied[await applyDecision(deps, connection, decision, payload)] += 1;
  }
  return applied;
}

/** What `decisionOf` needs found: the message answered, or the account's message holding the tapped button. */
async function contextOf(db: Kysely<DB>, connection: ConnectionRow, fact: InstagramFact): Promise<InboundContext> {
  const { replyToMid, buttonPayload } = lookupOf(fact);
  let found: FoundMessage | null = null;
  if (buttonPayload !== null && fact.kind !== 'comment')
    found = await tappedMessage(db, connection, fact, buttonPayload);
  if (found === null && replyToMid !== null) {
    const quoted =
      (await findMessageByProviderId(db, connection.id, 'outbound', replyToMid)) ??
      (await findMessageByProviderId(db, connection.id, 'inbound', replyToMid));
    found = quoted ? { id: quoted.id, senderType: quoted.sender_type } : null;
  }
  // The account's conversation starters (ice breakers) are not held by the service: a tap on one reads `other`.
  return { found, iceBreaker: false };
}

/** The account's latest message to the contact with a reply button whose id is the tap's payload. */
async function tappedMessage(
  db: Kysely<DB>,
  connection: ConnectionRow,
  fact: Exclude<InstagramFact, { kind: 'comment' }>,
  payload: string,
): Promise<FoundMessage | null> {
  const conversation = await findConversationOfInstagramContact(
    db,
    connection.account_id,
    connection.id,
    fact.contactId,
  );
  if (!conversation) return null;
  const recent = await selectRecentOutbound(db, connection.account_id, conversation.id, TAP_LOOKBACK);
  const message = recent.find((m) => hasReplyButton(m, payload));
  return message ? { id: message.id, senderType: message.sender_type } : null;
}

const hasReplyButton = (message: MessageRow, buttonId: string) =>
  message.attachments.some(
    (a) => a.type === 'cards' && a.cards.some((c) => c.buttons.some((b) => b.type === 'postback' && b.id === buttonId)),
  );

async function applyDecision(
  deps: WebhookApplyDeps,
  connection: ConnectionRow,
  decision: InstagramDecision,
  payload: ChannelWebhookPayload,
): Promise<Outcome> {
  const { base_url: baseUrl, body } = payload;
  switch (decision.action) {
    case 'record':
      return recordContactMessage(deps, connection, decision.inbound, baseUrl);
    case 'account_message':
      return recordAppMessage(deps, connection, decision.message, { baseUrl, look: 'first', body });
    case 'update':
      return changeMessage(
        deps,
        connection,
        decision.providerMessageId,
        reactionOrEdit(deps, decision.change),
        baseUrl,
      );
    case 'delete':
      return changeMessage(deps, connection, decision.providerMessageId, { kind: 'delete' }, baseUrl);
    case 'thread_taken': {
      const at = deps.clock.now().toISOString();
      const marked = await markOwnedElsewhere(deps.db, connection.account_id, connection.id, decision.contactId, at);
      if (marked > 0) return 'threadsTaken';
      // Nothing to send to yet: the contact is not known here (its messages went to the other app).
      deps.logger.info({ connection_id: connection.id }, 'another app owns the thread of a contact not known here');
      return 'ignored';
    }
    case 'ignore':
      deps.logger.debug({ connection_id: connection.id, reason: decision.reason }, 'an instagram fact changes nothing');
      return 'ignored';
  }
}

/** Meta's time, never ahead of the service's clock (a skewed timestamp must not hold the window open). */
function notAhead(deps: WebhookApplyDeps, at: string | null): string {
  const now = deps.clock.now().toISOString();
  return at !== null && Date.parse(at) < Date.parse(now) ? at : now;
}

function reactionOrEdit(
  deps: WebhookApplyDeps,
  change: Extract<InstagramDecision, { action: 'update' }>['change'],
): MessageChange {
  return change.type === 'reaction'
    ? { kind: 'reaction', emoji: change.emoji, at: notAhead(deps, change.at) }
    : { kind: 'edit', text: change.text };
}

/**
 * A thread item names no username (Meta's profile API would; not asked): a new contact is `ig_` and its IGSID
 * until a comment of it brings the username; a known contact keeps its own.
 */
export const placeholderUsername = (igsid: string): string => `ig_${igsid}`;

/**
 * A story mention carries no story id, only its CDN address: the story is named by the address's `asset_id` (the
 * same story, the same id), else by the mention's own mid.
 */
export function mentionedStoryId(url: string | null, mid: string): string {
  if (url !== null && URL.canParse(url)) {
    const asset = new URL(url).searchParams.get('asset_id');
    if (asset !== null && /^[0-9]{1,64}$/.test(asset)) return asset;
  }
  return mid;
}

async function fetchedAttachments(deps: WebhookApplyDeps, connection: ConnectionRow, media: InboundMediaRef[]) {
  const attachments: unknown[] = [];
  for (const m of media)
    attachments.push(
      await receivedAttachment(deps, connection, { type: m.type, fetchKey: m.url, contentType: null, filename: null }),
    );
  return attachments;
}

async function recordContactMessage(
  deps: WebhookApplyDeps,
  connection: ConnectionRow,
  inbound: InstagramInbound,
  baseUrl: string,
): Promise<Outcome> {
  const { db, clock } = deps;
  // A mid seen before is a duplicate: the unique index says so at the insert (its transaction then rolls back),
  // so the statement is spent first only where media would otherwise be fetched again for nothing.
  if (
    inbound.media.length > 0 &&
    (await findMessageByProviderId(db, connection.id, 'inbound', inbound.providerMessageId))
  )
    return 'duplicates';
  const attachments = await fetchedAttachments(deps, connection, inbound.media);
  const post = inbound.post && {
    type: inbound.post.type,
    id: inbound.post.id ?? mentionedStoryId(inbound.post.url, inbound.providerMessageId),
    url: inbound.post.url,
  };
  const { instagram_id, username } = inbound.from;
  try {
    await recordInbound(
      db,
      clock,
      connection.account_id,
      connection,
      {
        from: {
          instagram_id,
          ...(username === null ? { username_if_new: placeholderUsername(instagram_id) } : { username }),
          name: null,
        },
        type: inbound.type,
        text: inbound.text,
        attachments,
        post,
        reply_to_message_id: inbound.reply_to_message_id,
        button: inbound.button,
        is_unsupported: inbound.is_unsupported,
        created_at: notAhead(deps, inbound.created_at),
        provider_message_id: inbound.providerMessageId,
      },
      baseUrl,
      deps.jobs,
    );
    return 'recorded';
  } catch (error) {
    // The same mid or comment id recorded meanwhile by another worker (Meta delivered it twice at once).
    if (isUniqueViolationOf(error, INBOUND_UNIQUE_INDEX)) return 'duplicates';
    throw error;
  }
}

/** An echo: ours (a mid we hold) changes nothing; another was written in Instagram's app, stored as the account's. */
async function recordAppMessage(
  deps: WebhookApplyDeps,
  connection: ConnectionRow,
  echo: InstagramAccountMessage,
  /** The first look, with the webhook's body to look again in; or the second. */
  look: { baseUrl: string; look: 'first'; body: string } | { baseUrl: string; look: 'again' },
): Promise<Outcome> {
  const { baseUrl } = look;
  const { db, clock } = deps;
  const { account_id: accountId } = connection;
  if (await findMessageByProviderId(db, connection.id, 'outbound', echo.providerMessageId)) return 'duplicates';
  if (look.look === 'first') {
    const payload = { connection_id: connection.id, body: look.body, mid: echo.providerMessageId, base_url: baseUrl };
    await db.transaction().execute((tx) =>
      enqueue(tx, clock, {
        kind: INSTAGRAM_ECHO_JOB,
        accountId,
        payload,
        runAt: new Date(clock.now().getTime() + ECHO_RECHECK_MS),
      }),
    );
    return 'echoesLater';
  }
  if (echo.is_unsupported) {
    deps.logger.info({ connection_id: connection.id }, 'the account sent what Meta cannot show: nothing stored');
    return 'ignored';
  }
  const attachments = await fetchedAttachments(deps, connection, echo.media);
  const stored = await db.transaction().execute(async (tx) => {
    // The contact's row first, then the conversation's: the order an inbound message and a send lock them in.
    const contact = await lockContactByInstagramId(tx, accountId, connection.id, echo.contactId);
    const conversation =
      contact &&
      (await findConversationOfInstagramContact(tx, accountId, connection.id, echo.contactId, { forUpdate: true }));
    if (!conversation) return 'no_contact';
    // Under the locks: a re-delivery arriving at once waits here and then finds the first one's row.
    if (await findMessageByProviderId(tx, connection.id, 'outbound', echo.providerMessageId)) return 'duplicate';
    const message = { text: echo.text, attachments, providerMessageId: echo.providerMessageId };
    const at = notAhead(deps, echo.created_at);
    return recordAccountMessage(tx, clock, conversation, message, at, baseUrl, deps.jobs);
  });
  if (stored === 'duplicate') return 'duplicates';
  if (stored === 'no_contact') {
    // Someone the account wrote to first in Instagram's app, who never wrote here: no contact is made for it.
    deps.logger.info({ connection_id: connection.id }, 'the account wrote to someone with no contact here');
    return 'ignored';
  }
  deps.jobs?.runSoon(stored.claimed);
  return 'accountMessages';
}

/** A reaction, an edit or an unsend of the message the mid names, as the seeds' rules allow it. */
async function changeMessage(
  deps: WebhookApplyDeps,
  connection: ConnectionRow,
  mid: string,
  change: MessageChange,
  baseUrl: string,
): Promise<Outcome> {
  return deps.db.transaction().execute(async (tx) => {
    const message =
      (await findMessageByProviderId(tx, connection.id, 'inbound', mid, { forUpdate: true })) ??
      (await findMessageByProviderId(tx, connection.id, 'outbound', mid, { forUpdate: true }));
    if (!message) {
      deps.logger.info({ connection_id: connection.id, change: change.kind }, 'a change to a message not held here');
      return 'ignored';
    }
    if (alreadyChanged(message, change)) return 'duplicates';
    const refusal = refusalOf(message, change);
    if (refusal) {
      deps.logger.info({ message_id: message.id, reason: refusal.reason }, 'an instagram change does not apply');
      return 'ignored';
    }
    await applyMessageChange(tx, message, change, deps.clock.now().toISOString(), baseUrl);
    return change.kind === 'delete' ? 'deleted' : 'updated';
  });
}

/** The message already shows the change (a re-delivery): nothing to emit again. */
function alreadyChanged(message: MessageRow, change: MessageChange): boolean {
  switch (change.kind) {
    case 'reaction': {
      const current = message.reactions.find((r) => r.by === 'contact');
      return change.emoji === null ? current === undefined : current?.emoji === change.emoji;
    }
    case 'edit':
      return message.is_edited && message.text === change.text;
    case 'delete':
      return message.is_removed;
  }
}

/** INSTAGRAM_ECHO_JOB: an echo whose mid was unknown, looked at again; still unknown, the account's own message. */
export async function applyInstagramEcho(
  deps: WebhookApplyDeps,
  payload: InstagramEchoPayload,
): Promise<'stored' | 'ours' | 'ignored'> {
  const connection = await findConnectionById(deps.db, payload.connection_id);
  // Detached or deleted meanwhile: the account's messages are no longer ours to record.
  if (!connection || connection.provider !== 'instagram_graph') return 'ignored';
  const echo = decodeInstagramWebhook(JSON.parse(payload.body))
    .facts.map((fact) => decisionOf(fact, { found: null, iceBreaker: false }))
    .find(
      (decision): decision is Extract<InstagramDecision, { action: 'account_message' }> =>
        decision.action === 'account_message' && decision.message.providerMessageId === payload.mid,
    );
  if (!echo) return 'ignored';
  const outcome = await recordAppMessage(deps, connection, echo.message, { baseUrl: payload.base_url, look: 'again' });
  return outcome === 'accountMessages' ? 'stored' : outcome === 'duplicates' ? 'ours' : 'ignored';
}
