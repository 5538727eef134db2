// A WhatsApp Cloud API webhook payload, applied after Meta heard 200 (the CHANNEL_WEBHOOK_JOB that
// ./webhook-intake.ts committed, dispatched by ./webhook-apply.ts). Each fact goes into the domain's own paths, as
// the sandbox's do:
// - a contact's message → `recordInbound` (events, the 24-hour window, triggers and runs as on the sandbox), once
//   per connection and wamid: a payload Meta delivers twice, or two at once, makes one message;
// - its media → fetched through the provider (`GET /{media-id}`, then the short-lived URL, with the number's
//   token) and stored as the platform's received media; a fetch that fails stores the message with the
//   attachment marked missing (a media whose content answers 410 media_expired), never drops it;
// - a status → `applyProviderStatus` (only forward; `failed` → `message.failed`);
// - a template's new status (`message_template_status_update`: approved, paused, disabled, …) → every number of
//   that business account reads its templates again (a template sync job each), so the account's templates show
//   what Meta holds before a send finds out.
// A number no connection has is logged and skipped: Meta disables a webhook that keeps failing.
import {
  decodeWhatsAppWebhook,
  type WhatsAppMessageFact,
  type WhatsAppTemplateChange,
} from '../../channels/whatsapp-cloud/decode.js';
import { inboundOf } from '../../channels/whatsapp-cloud/inbound.js';
import type { ChannelWebhookPayload } from '../../job-kinds.js';
import { findConnectionOfNumber, selectNumbersOfBusinessAccount } from '../../store/channel-providers.js';
import { isUniqueViolationOf, type ConnectionRow } from '../../store/console.js';
import { findMessageByProviderId } from '../../store/messaging.js';
import { recordInbound } from '../messaging/inbound.js';
import { applyProviderStatus } from '../messaging/statuses.js';
import { templatesGone } from './channel-answers.js';
import { receivedAttachment, type WebhookApplyDeps } from './received-media.js';

/** Migration 0022's index: an inbound message once per connection and channel id. */
const INBOUND_UNIQUE_INDEX = 'messages_inbound_provider_id';

/** What became of a payload's facts (logged, and read by the tests). */
export interface WhatsAppApplied {
  recorded: number;
  duplicates: number;
  statuses: number;
  ignored: number;
  unknownNumbers: number;
  /** Numbers whose templates are read again after a template's new status. */
  templateSyncs: number;
}

export async function applyWhatsAppWebhook(
  deps: WebhookApplyDeps,
  payload: ChannelWebhookPayload,
): Promise<WhatsAppApplied> {
  const decoded = decodeWhatsAppWebhook(JSON.parse(payload.body));
  const { skipped } = decoded;
  const templateChanges = decoded.facts.filter((fact) => fact.kind === 'template_change');
  const facts = decoded.facts.filter((fact) => fact.kind !== 'template_change');
  if (skipped.length > 0)
    deps.logger.warn({ skipped: skipped.slice(0, 20) }, 'parts of a whatsapp webhook were skipped');
  const applied: WhatsAppApplied = {
    recorded: 0,
    duplicates: 0,
    statuses: 0,
    ignored: 0,
    unknownNumbers: 0,
    templateSyncs: await syncChangedTemplates(deps, templateChanges),
  };
  const connections = new Map<string, ConnectionRow | undefined>();
  for (const fact of facts) {
    if (!connections.has(fact.phoneNumberId))
      connections.set(fact.phoneNumberId, await findConnectionOfNumber(deps.db, fact.phoneNumberId));
    const connection = connections.get(fact.phoneNumberId);
    if (!connection) {
      applied.unknownNumbers += 1;
      deps.logger.warn({ phone_number_id: fact.phoneNumberId }, 'a whatsapp webhook names a number no connection has');
      continue;
    }
    if (fact.kind === 'number_error') {
      deps.logger.error({ connection_id: connection.id, error: fact.error }, 'meta reported an error for a number');
      applied.ignored += 1;
      continue;
    }
    if (fact.kind === 'status') {
      const failure = fact.error && { provider_code: fact.error.code, provider_message: fact.error.message };
      const report = { providerMessageId: fact.messageId, status: fact.status, failure };
      await applyProviderStatus(deps.db, deps.clock, connection.id, report, payload.base_url);
      applied.statuses += 1;
      continue;
    }
    const outcome = await applyMessage(deps, connection, fact, payload.base_url);
    applied[outcome] += 1;
  }
  return applied;
}

/** The numbers of each business account a template changed on read their templates again: how many. */
async function syncChangedTemplates(deps: WebhookApplyDeps, changes: WhatsAppTemplateChange[]): Promise<number> {
  let syncs = 0;
  for (const wabaId of new Set(changes.map((change) => change.wabaId))) {
    const numbers = await selectNumbersOfBusinessAccount(deps.db, wabaId);
    const changed = changes.filter((change) => change.wabaId === wabaId).slice(0, 20);
    deps.logger.info({ waba_id: wabaId, changed, numbers: numbers.length }, 'meta changed templates: read again');
    if (numbers.length === 0) continue;
    await deps.db.transaction().execute(async (tx) => {
      for (const number of numbers) await templatesGone(tx, deps.clock, number.account_id, number.connection_id);
    });
    syncs += numbers.length;
  }
  return syncs;
}

async function applyMessage(
  deps: WebhookApplyDeps,
  connection: ConnectionRow,
  fact: WhatsAppMessageFact,
  baseUrl: string,
): Promise<'recorded' | 'duplicates' | 'ignored'> {
  const { db, clock } = deps;
  const quotedRow =
    fact.replyTo === null ? undefined : await findMessageByProviderId(db, connection.id, 'outbound', fact.replyTo);
  const decision = inboundOf(fact, quotedRow ? { id: quotedRow.id, senderType: quotedRow.sender_type } : null);
  if (decision.action === 'ignore') {
    deps.logger.debug({ wamid: fact.messageId, reason: decision.reason }, 'a whatsapp message was not recorded');
    return 'ignored';
  }
  const { inbound } = decision;
  // A wamid seen before is a duplicate: the unique index says so at the insert (its transaction then rolls back),
  // so the statement is spent first only where a media would otherwise be fetched again for nothing.
  if (inbound.media && (await findMessageByProviderId(db, connection.id, 'inbound', fact.messageId)))
    return 'duplicates';
  const media = inbound.media;
  const attachments = media
    ? [
        await receivedAttachment(deps, connection, {
          type: media.type,
          fetchKey: media.mediaId,
          contentType: media.contentType,
          filename: media.filename,
        }),
      ]
    : [];
  // Meta's time, never ahead of the service's clock (a skewed timestamp must not hold the window open).
  const now = clock.now().toISOString();
  const createdAt = Date.parse(inbound.created_at) < Date.parse(now) ? inbound.created_at : now;
  try {
    await recordInbound(
      db,
      clock,
      connection.account_id,
      connection,
      {
        from: { phone: inbound.from.phone, name: inbound.from.name },
        type: 'message',
        text: inbound.text,
        attachments,
        post: null,
        reply_to_message_id: inbound.reply_to_message_id,
        button: inbound.button,
        is_unsupported: inbound.is_unsupported,
        created_at: createdAt,
        provider_message_id: inbound.providerMessageId,
      },
      baseUrl,
      deps.jobs,
    );
    return 'recorded';
  } catch (error) {
    // The same wamid recorded meanwhile by another worker (Meta delivered the payload twice at once).
    // (Another unique write, a new contact's, made at once by another message of it: the job runs again.)
    if (isUniqueViolationOf(error, INBOUND_UNIQUE_INDEX)) return 'duplicates';
    throw error;
  }
}
