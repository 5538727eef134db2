// `startFakeMeta`: a loopback HTTP server that acts as the Graph API for WhatsApp Cloud (graph.ts) and Instagram
// (instagram.ts, both hosts), with the fake's own endpoints (control.ts), and the handle a test drives it with: its
// numbers, templates and Instagram accounts, arranged answers, inbound media, signed webhooks to the server, and
// what it recorded.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleControl } from './control.js';
import { download, graphPath, handleGraph } from './graph.js';
import { graphError } from './graph-errors.js';
import { readBody, sendAnswer, TOO_LARGE } from './http.js';
import { INSTAGRAM_CDN_PATH } from './instagram-cdn.js';
import * as instagramWebhooks from './instagram-webhooks.js';
import type { StoredMedia } from './media.js';
import {
  FakeState,
  signature256,
  type Delivery,
  type InstagramAttachment,
  type InstagramSentMessage,
  type ReadReceipt,
  type SendOptions,
  type SentMessage,
} from './state.js';
import type {
  FakeInstagramAccount,
  FakeMetaOptions,
  FakeNumber,
  RecordedRequest,
  ScriptedAnswer,
  ScriptOptions,
  WebhookResult,
} from './types.js';
import * as webhooks from './webhooks.js';

export interface FakeMeta {
  /** `http://127.0.0.1:<port>`: the server's `GRAPH_API_BASE_URL`. */
  url: string;
  /** The numbers it knows; change them in place (a token, a template's status) or `addNumber`. */
  numbers: FakeNumber[];
  /** Every Graph request, in order (not `/_fake/…`). */
  requests: RecordedRequest[];
  /** The messages it accepted (answered with a wamid). */
  sent: SentMessage[];
  /** The read receipts it accepted. */
  reads: ReadReceipt[];
  /** The webhooks it sent and what the server answered. */
  deliveries: Delivery[];
  /** The webhook payload builders (webhooks.ts), pure. */
  webhooks: typeof webhooks;
  /** A number by its id; the first when absent. */
  number(phoneNumberId?: string): FakeNumber;
  addNumber(number: FakeNumber): void;
  /** The next send to `recipientPhone` gets `answer` (or every one, `sticky`). Several calls queue in order. */
  script(recipientPhone: string, answer: ScriptedAnswer, options?: ScriptOptions): void;
  /** The next request to `path` (after the version: `{phone_number_id}`, `{waba_id}/message_templates`) gets it. */
  scriptPath(path: string, answer: ScriptedAnswer, options?: ScriptOptions): void;
  clearScripts(): void;
  /** Bytes a contact sent, behind a media id a webhook carries; owned by the number (the first when absent). */
  registerMedia(input: { bytes: Buffer; mimeType: string; phoneNumberId?: string; id?: string }): string;
  media(id: string): StoredMedia | undefined;
  /** Where webhooks go (the server's `/channels/whatsapp/webhook`), when it is known only after the fake starts. */
  setWebhookUrl(url: string): void;
  /** Writes `payload` as Meta does, signs the raw bytes under the app secret and POSTs them. */
  sendWebhook(payload: webhooks.WebhookPayload, options?: SendOptions): Promise<WebhookResult>;
  /** POSTs bytes as they are: signed (the default), with `signature` as the header, or unsigned (`null`). */
  sendRawWebhook(bytes: string | Buffer, options?: SendOptions): Promise<WebhookResult>;
  /** `sha256=<hex>` of the bytes under the app secret (or `secret`). */
  sign(bytes: string | Buffer, secret?: string): string;
  /** The recorded requests whose path ends with `suffix` (and of `method`, when given). */
  requestsTo(suffix: string, method?: string): RecordedRequest[];
  /** Forgets what it recorded and the arranged answers (the numbers, templates and media stay). */
  reset(): void;
  /** Resolves once no delayed answer or webhook is left to send. */
  idle(): Promise<void>;
  close(): Promise<void>;
  /** Instagram (instagram.ts): the accounts it knows; change them in place or `addInstagramAccount`. */
  instagramAccounts: FakeInstagramAccount[];
  /** The Instagram messages it accepted (answered with a mid), private replies included. */
  instagramSent: InstagramSentMessage[];
  /** The Instagram webhook payload builders (instagram-webhooks.ts), pure. */
  instagramWebhooks: typeof instagramWebhooks;
  /** An Instagram account by its id or its Page's id; the first when absent. */
  instagram(id?: string): FakeInstagramAccount;
  addInstagramAccount(account: FakeInstagramAccount): void;
  /** The next Instagram send to `id` (a contact's IGSID, or the comment a private reply answers) gets `answer`. */
  scriptInstagram(id: string, answer: ScriptedAnswer, options?: ScriptOptions): void;
  /** What `message_attachments` stored, by its attachment id. */
  instagramAttachment(id: string): InstagramAttachment | undefined;
  /**
   * Bytes behind a new lookaside URL (`https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=…`) for a webhook's
   * attachment; the fake serves them at that path and query (the server's INSTAGRAM_CDN_BASE_URL: `url`).
   */
  registerInstagramCdn(bytes: Buffer, mimeType: string, assetId?: string): string;
  /** Where Instagram webhooks go (the server's `/channels/instagram/webhook`). */
  setInstagramWebhookUrl(url: string): void;
  /** Writes an Instagram payload as Meta does, signs it under the app secret and POSTs it to that URL. */
  sendInstagramWebhook(
    payload: instagramWebhooks.InstagramWebhookPayload,
    options?: SendOptions,
  ): Promise<WebhookResult>;
}

/** Starts the fake on loopback. */
export async function startFakeMeta(options: FakeMetaOptions = {}): Promise<FakeMeta> {
  const state = new FakeState(options);
  const server = createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      sendAnswer(res, graphError({ code: 1, status: 500, message: `fake Meta failed: ${message}` }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = isAddress(address) ? address.port : 0;
  state.baseUrl = `http://127.0.0.1:${port}`;
  const close = async () => {
    state.cancel();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return handleOf(state, close);
}

const isAddress = (value: unknown): value is AddressInfo =>
  typeof value === 'object' && value !== null && 'port' in value;

function handleOf(state: FakeState, close: () => Promise<void>): FakeMeta {
  return {
    url: state.baseUrl,
    numbers: state.numbers,
    requests: state.requests,
    sent: state.sent,
    reads: state.reads,
    deliveries: state.deliveries,
    webhooks,
    number: (id) => {
      const found = id === undefined ? state.numbers[0] : state.number(id);
      if (!found) throw new Error(`fake Meta: no number ${id ?? '(none configured)'}`);
      return found;
    },
    addNumber: (number) => void state.numbers.push(number),
    script: (phone, answer, opts) => state.scripts.forRecipient(phone, answer, opts),
    scriptPath: (path, answer, opts) => state.scripts.forPath(path, answer, opts),
    clearScripts: () => state.scripts.clear(),
    registerMedia: ({ bytes, mimeType, phoneNumberId, id }) => {
      const owner = phoneNumberId ?? state.numbers[0]?.phoneNumberId;
      if (owner === undefined) throw new Error('fake Meta: no number to own the media');
      return state.media.add({ phoneNumberId: owner, bytes, mimeType, id }).id;
    },
    media: (id) => state.media.get(id),
    setWebhookUrl: (url) => void (state.webhookUrl = url),
    sendWebhook: (payload, opts) => state.sendWebhook(payload, opts),
    sendRawWebhook: (bytes, opts) => state.sendRaw(bytes, opts),
    sign: (bytes, secret = state.appSecret) => {
      if (secret === undefined) throw new Error('fake Meta: no app secret');
      return signature256(secret, bytes);
    },
    requestsTo: (suffix, method) =>
      state.requests.filter((r) => r.path.endsWith(suffix) && (method === undefined || r.method === method)),
    reset: () => {
      for (const list of [state.requests, state.sent, state.reads, state.deliveries, state.instagramSent])
        list.length = 0;
      state.repliedComments.clear();
      state.scripts.clear();
    },
    idle: () => state.idle(),
    close,
    instagramAccounts: state.instagramAccounts,
    instagramSent: state.instagramSent,
    instagramWebhooks,
    instagram: (id) => {
      const found = id === undefined ? state.instagramAccounts[0] : state.instagramAccount(id);
      if (!found) throw new Error(`fake Meta: no instagram account ${id ?? '(none configured)'}`);
      return found;
    },
    addInstagramAccount: (account) => void state.instagramAccounts.push(account),
    scriptInstagram: (id, answer, opts) => state.scripts.forInstagram(id, answer, opts),
    instagramAttachment: (id) => state.instagramAttachments.get(id),
    registerInstagramCdn: (bytes, mimeType, assetId) => state.instagramCdn.add({ bytes, mimeType }, assetId),
    setInstagramWebhookUrl: (url) => void (state.instagramWebhookUrl = url),
    sendInstagramWebhook: (payload, opts) => state.sendInstagramWebhook(payload, opts),
  };
}

async function handle(state: FakeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', state.baseUrl);
  const raw = await readBody(req, state.maxBodyBytes);
  if (raw === 'too_large') {
    res.setHeader('connection', 'close');
    return sendAnswer(res, TOO_LARGE);
  }
  const method = req.method ?? 'GET';
  if (url.pathname.startsWith('/_fake/')) return handleControl(state, method, url, raw, res);
  await state.record(req, url, raw);
  if (url.pathname === '/whatsapp_business/attachments/') return download(state, req, url, res);
  if (url.pathname === INSTAGRAM_CDN_PATH) return state.instagramCdn.serve(url, res);
  const path = graphPath(url.pathname);
  if (!path) return sendAnswer(res, graphError({ code: 2500, message: `Unknown path components: ${url.pathname}` }));
  return handleGraph(state, { req, res, url, raw, ...path, edge: path.edge });
}
