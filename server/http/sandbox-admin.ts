// The sandbox routes of the admin API (`/admin/v1/sandbox/…`): thin handlers over domain/sandbox. Each
// addresses its resource by id alone, as the admin API does, and answers 404 while the sandbox is off.
import type { AdminOperationId } from '../../generated/operations.js';
import { isAdvanceable } from '../clock.js';
import { connectionById } from '../domain/console/connections.js';
import { accountOfContact, getContact } from '../domain/contacts/contacts.js';
import { contactView, contactViewOf } from '../domain/contacts/view.js';
import { accountOfMessage, conversationById, conversationViewOf } from '../domain/messaging/conversations.js';
import type { InboundInput, InboundResult } from '../domain/messaging/inbound.js';
import { storeReceivedMedia } from '../domain/messaging/media.js';
import { conversationView, messageView } from '../domain/messaging/views.js';
import {
  accountWritesInApp,
  blockContact,
  changeConversation,
  channelFailsMessage,
  contactDeletes,
  contactEdits,
  contactReacts,
  contactTapsButton,
  contactWrites,
  makeSamePerson,
  sandboxClockView,
  sandboxDisabled,
} from '../domain/sandbox/actions.js';
import { arrangeSendOutcome, clearSendOutcomes } from '../domain/sandbox/outcomes.js';
import { listWaits } from '../domain/sandbox/waits.js';
import {
  createSandboxSpreadsheet,
  getSandboxSpreadsheet,
  resetSandboxSpreadsheet,
  sandboxSpreadsheetView,
} from '../domain/sandbox/spreadsheets.js';
import { contactOpensLink } from '../domain/workflows/tracked-links.js';
import { publicBaseUrl } from './base-url.js';
import type { AdminHandler, AdminHandlerInput } from './context.js';

type SandboxOperationId = Extract<AdminOperationId, `${string}Sandbox${string}`>;

/** Runs the handler only while the sandbox is on. */
const sandbox =
  <Id extends SandboxOperationId>(handler: AdminHandler<Id>): AdminHandler<Id> =>
  (input) => {
    if (!input.app.config.sandboxEnabled) throw sandboxDisabled();
    return handler(input);
  };

async function inboundView(
  input: Pick<AdminHandlerInput<'adminSendSandboxInbound'>, 'app' | 'req'>,
  accountId: string,
  result: InboundResult,
) {
  const { app } = input;
  // As the message left them at its commit: the conversation holds this unread message, and a contact the
  // message made holds no tags or values yet, so neither is read again.
  const conversation = conversationView(result.conversation, result.contact, true, app.clock.now());
  const contact = result.contactCreated
    ? contactView(result.contact, [], [])
    : await contactViewOf(app.database.db, accountId, result.contact);
  return {
    contact,
    conversation,
    message: messageView(result.message, publicBaseUrl(app, input.req)),
    contact_created: result.contactCreated,
  };
}

export const sandboxAdminHandlers: { [Id in SandboxOperationId]: AdminHandler<Id> } = {
  adminSendSandboxInbound: sandbox(async (input) => {
    const { app, params } = input;
    const b = input.body;
    const connection = await connectionById(app.database.db, params.connectionId);
    const attachment = b.attachment;
    // The sandbox makes a file of the size given: what a real channel would hand over. Stored only once the
    // message passes the checks.
    const storeAttachment = attachment
      ? async () => {
          const media = await storeReceivedMedia(app.database.db, app.storage, app.clock, connection.account_id, {
            content_type: attachment.content_type,
            filename: attachment.filename ?? null,
            bytes: Buffer.alloc(attachment.size, 0x2a),
          });
          return {
            type: attachment.type,
            media_id: media.id,
            content_type: media.content_type,
            size: media.size === null ? null : Number(media.size),
            filename: media.filename,
            expires_at: media.expires_at,
          };
        }
      : undefined;
    const inbound: InboundInput = {
      from: b.from,
      type: b.type ?? 'message',
      text: b.text ?? null,
      attachments: [],
      post: b.post ? { id: b.post.id, type: b.post.type, url: b.post.url ?? null } : null,
      reply_to_message_id: b.reply_to_message_id ?? null,
      button: null,
      is_unsupported: b.is_unsupported ?? false,
      ...(b.created_at !== undefined ? { created_at: b.created_at } : {}),
    };
    const base = publicBaseUrl(app, input.req);
    const result = await contactWrites(app.database.db, app.clock, connection, inbound, base, storeAttachment);
    return { status: 201, body: await inboundView(input, connection.account_id, result) };
  }),
  adminSendSandboxButtonTap: sandbox(async (input) => {
    const { app, params } = input;
    const accountId = await accountOfMessage(app.database.db, params.messageId);
    const { button_id } = input.body;
    const result = await contactTapsButton(
      app.database.db,
      app.clock,
      accountId,
      params.messageId,
      button_id,
      publicBaseUrl(app, input.req),
    );
    return { status: 201, body: { message: messageView(result.message, publicBaseUrl(app, input.req)) } };
  }),
  adminSendSandboxLinkOpen: sandbox(async (input) => {
    const { app } = input;
    return { status: 200, body: await contactOpensLink(app.database.db, app.clock, input.body.url, app.logger) };
  }),
  adminUpdateSandboxReaction: sandbox(async (input) => {
    const { app, params } = input;
    const accountId = await accountOfMessage(app.database.db, params.messageId);
    const { emoji } = input.body;
    const base = publicBaseUrl(app, input.req);
    const row = await contactReacts(app.database.db, app.clock, accountId, params.messageId, emoji, base);
    return { status: 200, body: messageView(row, base) };
  }),
  adminDeleteSandboxReaction: sandbox(async (input) => {
    const { app, params } = input;
    const accountId = await accountOfMessage(app.database.db, params.messageId);
    const base = publicBaseUrl(app, input.req);
    const row = await contactReacts(app.database.db, app.clock, accountId, params.messageId, null, base);
    return { status: 200, body: messageView(row, base) };
  }),
  adminUpdateSandboxMessage: sandbox(async (input) => {
    const { app, params } = input;
    const accountId = await accountOfMessage(app.database.db, params.messageId);
    const { text } = input.body;
    const base = publicBaseUrl(app, input.req);
    const row = await contactEdits(app.database.db, app.clock, accountId, params.messageId, text, base);
    return { status: 200, body: messageView(row, base) };
  }),
  adminDeleteSandboxMessage: sandbox(async (input) => {
    const { app, params } = input;
    const accountId = await accountOfMessage(app.database.db, params.messageId);
    const base = publicBaseUrl(app, input.req);
    const row = await contactDeletes(app.database.db, app.clock, accountId, params.messageId, base);
    return { status: 200, body: messageView(row, base) };
  }),
  adminCreateSandboxFailure: sandbox(async (input) => {
    const { app, params } = input;
    const accountId = await accountOfMessage(app.database.db, params.messageId);
    const b = input.body ?? {};
    const base = publicBaseUrl(app, input.req);
    const failure = { provider_code: b.provider_code ?? null, provider_message: b.provider_message ?? null };
    const row = await channelFailsMessage(app.database.db, app.clock, accountId, params.messageId, failure, base);
    return { status: 200, body: messageView(row, base) };
  }),
  adminAddSandboxSendOutcome: sandbox(async ({ app, params, body }) => {
    const connection = await connectionById(app.database.db, params.connectionId);
    const arranged = await arrangeSendOutcome(app.database.db, app.clock, connection, body);
    return { status: 201, body: arranged };
  }),
  adminClearSandboxSendOutcomes: sandbox(async ({ app, params }) => {
    const connection = await connectionById(app.database.db, params.connectionId);
    await clearSendOutcomes(app.database.db, connection);
    return { status: 200, body: { queued: 0 } };
  }),
  adminUpdateSandboxContact: sandbox(async ({ app, params, body }) => {
    const accountId = await accountOfContact(app.database.db, params.contactId);
    const { blocked_from_automations } = body;
    await blockContact(app.database.db, accountId, params.contactId, blocked_from_automations);
    return { status: 200, body: await getContact(app.database.db, accountId, params.contactId) };
  }),
  adminAddSandboxSamePerson: sandbox(async ({ app, params, body }) => {
    const accountId = await accountOfContact(app.database.db, params.contactId);
    const { contact_id } = body;
    await makeSamePerson(app.database.db, accountId, params.contactId, contact_id);
    const contacts = [
      await getContact(app.database.db, accountId, params.contactId),
      await getContact(app.database.db, accountId, contact_id),
    ];
    return { status: 200, body: { contacts } };
  }),
  adminUpdateSandboxConversation: sandbox(async ({ app, params, body }) => {
    const conversation = await conversationById(app.database.db, params.conversationId);
    await changeConversation(app.database.db, app.clock, conversation.account_id, conversation.id, {
      ...(body.read !== undefined ? { read: body.read } : {}),
      ...(body.unread !== undefined ? { unread: body.unread } : {}),
    });
    const fresh = await conversationById(app.database.db, conversation.id);
    return {
      status: 200,
      body: await conversationViewOf(app.database.db, app.clock, conversation.account_id, fresh),
    };
  }),
  adminCreateSandboxNativeMessage: sandbox(async (input) => {
    const { app, params } = input;
    const conversation = await conversationById(app.database.db, params.conversationId);
    const { text } = input.body;
    const base = publicBaseUrl(app, input.req);
    const row = await accountWritesInApp(
      app.database.db,
      app.clock,
      conversation.account_id,
      conversation.id,
      text,
      base,
    );
    return { status: 201, body: messageView(row, base) };
  }),
  adminCreateSandboxSpreadsheet: sandbox(async ({ app, body }) => {
    const { spreadsheet_account_id: owner, name, tabs } = body;
    const row = await createSandboxSpreadsheet(app.database.db, app.clock, owner, { name, tabs });
    return { status: 201, body: sandboxSpreadsheetView(row) };
  }),
  adminGetSandboxSpreadsheet: sandbox(async ({ app, params }) => ({
    status: 200,
    body: sandboxSpreadsheetView(await getSandboxSpreadsheet(app.database.db, params.spreadsheetId)),
  })),
  adminUpdateSandboxSpreadsheet: sandbox(async ({ app, params, body }) => {
    const input = { name: body.name, tabs: body.tabs };
    const row = await resetSandboxSpreadsheet(app.database.db, app.clock, params.spreadsheetId, input);
    return { status: 200, body: sandboxSpreadsheetView(row) };
  }),
  adminGetSandboxClock: sandbox(async ({ app }) => ({ status: 200, body: sandboxClockView(app.clock) })),
  adminUpdateSandboxClock: sandbox(async ({ app, body }) => {
    // main.ts gives the service an OffsetClock and tests a ManualClock: both advance.
    if (!isAdvanceable(app.clock)) throw new Error('the service clock cannot be advanced');
    app.clock.advance(body.advance_seconds * 1000);
    return { status: 200, body: sandboxClockView(app.clock) };
  }),
  adminListSandboxWaits: sandbox(async ({ app, params }) => ({
    status: 200,
    body: await listWaits(app.database.db, params.accountId),
  })),
};
