// Every handler of the public API, by operationId. An operation without a handler answers 501. And the
// replayers of the operations whose Idempotency-Key replay shows the resource as it is now (../idempotency.ts).
import type { Handlers, Replayers } from '../context.js';
import { accountHandlers } from './account.js';
import { connectionHandlers } from './connections.js';
import { contactHandlers } from './contacts.js';
import { conversationHandlers, sendHandlers } from './conversations.js';
import { customFieldHandlers } from './custom-fields.js';
import { folderHandlers } from './folders.js';
import { mediaHandlers } from './media.js';
import { repliesListHandlers } from './replies-lists.js';
import { tagHandlers } from './tags.js';
import { webhookHandlers, webhookReplayers } from './webhooks.js';
import { workflowHandlers } from './workflows.js';

export const handlers: Handlers = {
  ...accountHandlers,
  ...connectionHandlers,
  ...contactHandlers,
  ...conversationHandlers,
  ...customFieldHandlers,
  ...folderHandlers,
  ...mediaHandlers,
  ...repliesListHandlers,
  ...sendHandlers,
  ...tagHandlers,
  ...webhookHandlers,
  ...workflowHandlers,
};

export const replayers: Replayers = {
  ...webhookReplayers,
};
