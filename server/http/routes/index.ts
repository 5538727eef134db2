// Every handler of the public API, by operationId. An operation without a handler answers 501.
import type { Handlers } from '../context.js';
import { accountHandlers } from './account.js';
import { connectionHandlers } from './connections.js';
import { contactHandlers } from './contacts.js';
import { conversationHandlers, sendHandlers } from './conversations.js';
import { customFieldHandlers } from './custom-fields.js';
import { mediaHandlers } from './media.js';
import { tagHandlers } from './tags.js';

export const handlers: Handlers = {
  ...accountHandlers,
  ...connectionHandlers,
  ...contactHandlers,
  ...conversationHandlers,
  ...customFieldHandlers,
  ...mediaHandlers,
  ...sendHandlers,
  ...tagHandlers,
};
