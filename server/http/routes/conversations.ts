// Conversations and messages: reading them, and the send. The rules live in domain/messaging.
import {
  getConversation,
  getMessage,
  listConversations,
  listMessages,
  type ConversationListQuery,
} from '../../domain/messaging/conversations.js';
import { sendMessage } from '../../domain/messaging/send.js';
import { publicBaseUrl } from '../base-url.js';
import type { Handlers } from '../context.js';
import { booleanParam, pageRequest, stringParam } from '../page.js';

export const conversationHandlers: Handlers = {
  listConversations: async ({ app, caller, query }) => {
    const filters: ConversationListQuery = {};
    const order = stringParam(query.order);
    const channel = stringParam(query.channel);
    const unread = booleanParam(query.unread);
    const after = stringParam(query.last_message_after);
    const contactId = stringParam(query.contact_id);
    if (order) filters.order = order;
    if (channel) filters.channel = channel;
    if (unread !== undefined) filters.unread = unread;
    if (after) filters.last_message_after = after;
    if (contactId) filters.contact_id = contactId;
    return {
      status: 200,
      body: await listConversations(app.database.db, app.clock, caller.account.id, filters, pageRequest(query)),
    };
  },
  getConversation: async ({ app, caller, params }) => ({
    status: 200,
    body: await getConversation(app.database.db, app.clock, caller.account.id, params.conversationId),
  }),
  listConversationMessages: async ({ req, app, caller, params, query }) => {
    const order = stringParam(query.order);
    const after = stringParam(query.created_after);
    return {
      status: 200,
      body: await listMessages(
        app.database.db,
        app.clock,
        caller.account.id,
        params.conversationId,
        { ...(order ? { order } : {}), ...(after ? { created_after: after } : {}) },
        pageRequest(query),
        publicBaseUrl(app, req),
      ),
    };
  },
  getMessage: async ({ req, app, caller, params }) => ({
    status: 200,
    body: await getMessage(app.database.db, caller.account.id, params.messageId, publicBaseUrl(app, req)),
  }),
};

export const sendHandlers: Handlers = {
  sendMessage: async ({ req, app, caller, params, body }) => ({
    status: 201,
    body: await sendMessage(
      {
        db: app.database.db,
        clock: app.clock,
        provider: app.provider,
        baseUrl: publicBaseUrl(app, req),
        logger: app.logger,
      },
      caller.account,
      caller.key,
      params.conversationId,
      body,
    ),
  }),
};
