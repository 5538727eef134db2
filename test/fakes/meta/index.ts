// A fake of Meta's Graph API for WhatsApp Cloud and Instagram, on loopback (test only, and `npm run fake:meta` for
// client teams): the routes the server calls, checked as Meta checks them, Meta's error bodies, arranged answers per
// recipient or path, media it accepts and serves, and signed webhooks of every inbound kind and status (Instagram's:
// instagram-webhooks.ts). See server.ts.
export { startFakeMeta, type FakeMeta } from './server.js';
export { checkMessage, type MessageRequest } from './checks.js';
export { graphError, titleOf, type GraphAnswer } from './graph-errors.js';
export { signature256, type Delivery, type ReadReceipt, type SendOptions, type SentMessage } from './state.js';
export * as webhooks from './webhooks.js';
export * as instagramWebhooks from './instagram-webhooks.js';
export { checkInstagramMessage, type InstagramSendRequest } from './instagram-checks.js';
export { instagramError } from './instagram.js';
export type { InstagramAttachment, InstagramSentMessage } from './state.js';
export type {
  FakeInstagramAccount,
  FakeMetaOptions,
  FakeNumber,
  FakeTemplate,
  RecordedRequest,
  ScriptedAnswer,
  ScriptOptions,
  WebhookResult,
} from './types.js';
