// The shapes of the fake Graph API (test/fakes/meta/): the numbers it knows, their templates, what it recorded
// and the answers a test can arrange. Types only.
import type { IncomingHttpHeaders } from 'node:http';

/** A message template as Meta lists it (`GET /{waba_id}/message_templates`). */
export interface FakeTemplate {
  name: string;
  /** Meta's locale code: `en_US`, `pt_BR`. */
  language: string;
  status: 'APPROVED' | 'PENDING' | 'REJECTED' | 'PAUSED' | 'DISABLED';
  category: 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';
  /** `{{1}}`, `{{2}}` in a BODY (or HEADER) text are the parameters a send must give. */
  components: { type: 'HEADER' | 'BODY' | 'FOOTER' | 'BUTTONS'; text?: string; format?: string }[];
  /** Meta's template id; made up when absent. */
  id?: string;
}

/** A WhatsApp Business number the fake serves. */
export interface FakeNumber {
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
  /** As Meta shows it on `GET /{phone_number_id}`: `+1 555-010-0001`. Webhooks carry its digits only. */
  displayPhoneNumber: string;
  verifiedName: string;
  templates: FakeTemplate[];
}

/**
 * An Instagram professional account the fake serves. Instagram Login: `accessToken` is the account's Instagram user
 * token (`graph.instagram.com`, `/me` is the account). Facebook Login: `pageId` is the linked Page and
 * `accessToken` a Page token (`graph.facebook.com`, `/me` is the Page). One server answers both hosts' routes.
 */
export interface FakeInstagramAccount {
  login: 'instagram' | 'facebook';
  igUserId: string;
  /** The linked Page (Facebook Login; required there). */
  pageId?: string;
  /** Without the `@`. */
  username: string;
  accessToken: string;
  /** The fields the last `subscribed_apps` subscribed the app to (set by the fake). */
  subscribedFields?: string[];
}

/** A request the fake received, in order of arrival. */
export interface RecordedRequest {
  method: string;
  /** Without the query: `/v23.0/106540352242922/messages`. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON; for a multipart upload its fields and the file's name, type and size; else the raw text. */
  body: unknown;
  at: Date;
}

/** The error Meta answers: code, HTTP status and message (Meta's own for the code when absent). */
export interface ScriptedError {
  kind: 'error';
  code: number;
  /** 400 unless the code is 190 or 0 (401) or a permission code, 10 or 200 – 299 (403). */
  status?: number;
  message?: string;
  details?: string;
  subcode?: number;
}

/** What the fake answers a request a test arranged an answer for. */
export type ScriptedAnswer =
  | ScriptedError
  /** Any HTTP answer as given: a 500, a 502 with an HTML page, a 200 whose body is not JSON. */
  | { kind: 'http'; status: number; body: string; contentType?: string }
  /** 200 with Meta's envelope but no `messages[0].id`. */
  | { kind: 'no_message_id' }
  /** Wait `ms` (past the client's timeout), then answer `then` (the usual answer when absent). */
  | { kind: 'delay'; ms: number; then?: ScriptedAnswer }
  /** Read the request, then reset the connection: after part of a 200 (`midAnswer`, the default) or before any. */
  | { kind: 'reset'; midAnswer?: boolean }
  /** Accept (200 with a wamid), then send a `failed` status webhook with `errors[0]` of this code. */
  | { kind: 'fail_later'; code: number; title?: string; message?: string; details?: string; afterMs?: number }
  /** The usual answer (useful as a step in a sequence). */
  | { kind: 'accept' };

export interface ScriptOptions {
  /** Answer every request from now on (until `clearScripts`), instead of once. */
  sticky?: boolean;
}

/** What a signed webhook POST got back from the server. */
export interface WebhookResult {
  status: number;
  body: string;
}

export interface FakeMetaOptions {
  /** 0 (the default): any free port. */
  port?: number;
  /** Signs webhooks (`X-Hub-Signature-256`): the server's `META_APP_SECRET`. */
  appSecret?: string;
  /** The server's `/channels/whatsapp/webhook`. */
  webhookUrl?: string;
  numbers?: FakeNumber[];
  /** The server's `/channels/instagram/webhook` (default `http://127.0.0.1:3000/channels/instagram/webhook`). */
  instagramWebhookUrl?: string;
  instagramAccounts?: FakeInstagramAccount[];
  /** Templates per page when the client gives no `limit` (small, so that a client must read every page). */
  templatePageSize?: number;
  /** The largest request body read (a media upload included); past it the answer is 413. */
  maxBodyBytes?: number;
  /** Statuses sent to the webhook after every accepted message, in order (none by default). */
  statusesAfterSend?: ('sent' | 'delivered' | 'read')[];
}
