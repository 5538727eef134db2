// What the fake holds while it runs: its numbers and their templates, the media, the arranged answers, what it
// recorded (requests, accepted messages, read receipts, webhook deliveries), and the work it does later (a delayed
// answer, a status webhook after a send), which `idle()` waits for and `close()` cancels.
import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isRecord } from '../../../server/guards.js';
import { postBytes } from './http.js';
import { MediaStore, parseUpload } from './media.js';
import { Scripts } from './scripts.js';
import { commentsIn, type InstagramWebhookPayload } from './instagram-webhooks.js';
import { InstagramCdn } from './instagram-cdn.js';
import type {
  FakeInstagramAccount,
  FakeMetaOptions,
  FakeNumber,
  FakeTemplate,
  RecordedRequest,
  WebhookResult,
} from './types.js';
import { digitsOf, metaJson, newWamid, status, type WebhookPayload } from './webhooks.js';

/** A message the fake accepted (answered with a wamid). */
export interface SentMessage {
  id: string;
  phoneNumberId: string;
  to: string;
  type: string;
  body: Record<string, unknown>;
  at: Date;
}

/** An Instagram message the fake accepted (answered with a mid). */
export interface InstagramSentMessage {
  /** The mid the send answered (`aWdf…`). */
  id: string;
  igUserId: string;
  /** As the send gave it: the contact, or the comment a private reply answers. */
  recipient: { id: string } | { comment_id: string };
  /** The contact's IGSID the answer named (`recipient_id`). */
  recipientId: string;
  /** `text`, `button`, `generic`, or the media type. */
  kind: string;
  body: Record<string, unknown>;
  at: Date;
}

/** What `message_attachments` stored: an upload by URL or bytes, owned by one account. */
export interface InstagramAttachment {
  id: string;
  igUserId: string;
  type: string;
  url?: string;
  file?: { name: string; type: string; size: number };
}

/** The default Instagram webhook URL (`npm run start`'s port). */
export const DEFAULT_INSTAGRAM_WEBHOOK_URL = 'http://127.0.0.1:3000/channels/instagram/webhook';

/** A read receipt the fake accepted (`{status: 'read', message_id}`). */
export interface ReadReceipt {
  phoneNumberId: string;
  messageId: string;
  at: Date;
}

/** A webhook the fake sent, and what the server answered (or why it could not). */
export interface Delivery {
  url: string;
  body: string;
  result?: WebhookResult;
  error?: string;
}

/** How a webhook is signed: the right signature (the default), another header value, or none (`null`). */
export interface SendOptions {
  url?: string;
  secret?: string;
  signature?: string | null;
}

/** `sha256=` and the hex HMAC-SHA256 of the raw bytes, Meta's `X-Hub-Signature-256`. */
export const signature256 = (secret: string, bytes: Buffer | string): string =>
  `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

export class FakeState {
  readonly numbers: FakeNumber[];
  readonly media = new MediaStore();
  readonly scripts = new Scripts();
  readonly requests: RecordedRequest[] = [];
  readonly sent: SentMessage[] = [];
  readonly reads: ReadReceipt[] = [];
  readonly deliveries: Delivery[] = [];
  readonly instagramAccounts: FakeInstagramAccount[];
  readonly instagramSent: InstagramSentMessage[] = [];
  readonly instagramAttachments = new Map<string, InstagramAttachment>();
  /** The bytes behind the attachment URLs Instagram webhooks carry (instagram-cdn.ts). */
  readonly instagramCdn = new InstagramCdn();
  /** Comments a private reply answered (Meta takes one per comment). */
  readonly repliedComments = new Set<string>();
  /** A comment's author's IGSID, from the comment webhooks the fake sent (a private reply's `recipient_id`). */
  readonly commentAuthors = new Map<string, string>();
  baseUrl = '';
  webhookUrl: string | undefined;
  instagramWebhookUrl: string;
  appSecret: string | undefined;
  readonly templatePageSize: number;
  readonly maxBodyBytes: number;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly options: FakeMetaOptions) {
    this.numbers = options.numbers ?? [];
    this.webhookUrl = options.webhookUrl;
    this.instagramAccounts = options.instagramAccounts ?? [];
    this.instagramWebhookUrl = options.instagramWebhookUrl ?? DEFAULT_INSTAGRAM_WEBHOOK_URL;
    this.appSecret = options.appSecret;
    this.templatePageSize = options.templatePageSize ?? 2;
    this.maxBodyBytes = options.maxBodyBytes ?? 20 * 1024 * 1024;
  }

  number(phoneNumberId: string): FakeNumber | undefined {
    return this.numbers.find((n) => n.phoneNumberId === phoneNumberId);
  }

  numbersOfWaba(wabaId: string): FakeNumber[] {
    return this.numbers.filter((n) => n.wabaId === wabaId);
  }

  /** A WABA's templates (its numbers share them). */
  templatesOfWaba(wabaId: string): FakeTemplate[] {
    return this.numbersOfWaba(wabaId).flatMap((n) => n.templates);
  }

  tokenKnown(token: string): boolean {
    return (
      this.numbers.some((n) => n.accessToken === token) || this.instagramAccounts.some((a) => a.accessToken === token)
    );
  }

  /** The Instagram account whose id (or linked Page's id) this is. */
  instagramAccount(id: string): FakeInstagramAccount | undefined {
    return this.instagramAccounts.find((a) => a.igUserId === id || a.pageId === id);
  }

  /** Signs and POSTs an Instagram payload to the server's instagram webhook (or `options.url`). */
  sendInstagramWebhook(payload: InstagramWebhookPayload, options: SendOptions = {}): Promise<WebhookResult> {
    for (const { commentId, igsid } of commentsIn(payload)) this.commentAuthors.set(commentId, igsid);
    return this.sendRaw(metaJson(payload), { ...options, url: options.url ?? this.instagramWebhookUrl });
  }

  /** Runs `work` after `ms`, unless the fake closes first; `idle()` waits for it. */
  later(ms: number, work: () => unknown): void {
    let done = () => {};
    const settled = new Promise<void>((resolve) => (done = resolve));
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void Promise.resolve()
        .then(work)
        .catch(() => undefined)
        .finally(done);
    }, ms);
    this.timers.add(timer);
    this.track(settled);
  }

  track(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Every delayed answer and webhook sent: resolves when none is left. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Cancels what was to happen later (the fake is closing). */
  cancel(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.pending.clear();
  }

  /** Records a message as accepted and sends the statuses the options ask for after every send. */
  accept(number: FakeNumber, to: string, type: string, body: Record<string, unknown>): SentMessage {
    const message = { id: newWamid(), phoneNumberId: number.phoneNumberId, to, type, body, at: new Date() };
    this.sent.push(message);
    for (const [index, next] of (this.options.statusesAfterSend ?? []).entries())
      this.later(10 * (index + 1), () =>
        this.sendWebhook(status(number, { messageId: message.id, recipient: to, status: next })),
      );
    return message;
  }

  /** Signs and POSTs `payload` (written as Meta writes it) to the server's webhook. */
  sendWebhook(payload: WebhookPayload, options: SendOptions = {}): Promise<WebhookResult> {
    return this.sendRaw(metaJson(payload), options);
  }

  /** POSTs `bytes` as they are, signed (the default), with another signature, or unsigned (`signature: null`). */
  async sendRaw(bytes: string | Buffer, options: SendOptions = {}): Promise<WebhookResult> {
    const url = options.url ?? this.webhookUrl;
    if (!url) throw new Error('fake Meta: no webhook URL (the `webhookUrl` option, or `url` here)');
    const raw = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'utf8');
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'facebookexternalua' };
    const signature = options.signature === undefined ? this.signatureFor(raw, options.secret) : options.signature;
    if (signature !== null) headers['x-hub-signature-256'] = signature;
    const delivery: Delivery = { url, body: raw.toString('utf8') };
    this.deliveries.push(delivery);
    try {
      delivery.result = await postBytes(url, raw, headers);
      return delivery.result;
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
      throw error;
    }
  }

  private signatureFor(raw: Buffer, secret = this.appSecret): string {
    if (secret === undefined) throw new Error('fake Meta: no app secret to sign with (the `appSecret` option)');
    return signature256(secret, raw);
  }

  /** Records a request with its body parsed: JSON, a multipart upload's fields and file, or the text. */
  async record(req: IncomingMessage, url: URL, raw: Buffer): Promise<void> {
    const entry: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: await parsedBody(raw, req.headers['content-type'] ?? ''),
      at: new Date(),
    };
    this.requests.push(entry);
  }

  /** The recipient of one of our messages, by its wamid. */
  recipientOf(messageId: string): string | undefined {
    const message = this.sent.find((m) => m.id === messageId);
    return message ? digitsOf(message.to) : undefined;
  }
}

async function parsedBody(raw: Buffer, contentType: string): Promise<unknown> {
  if (raw.length === 0) return undefined;
  const upload = await parseUpload(raw, contentType);
  if (upload) {
    const file = upload.file && { name: upload.file.name, type: upload.file.type, size: upload.file.bytes.length };
    return { fields: upload.fields, file };
  }
  const text = raw.toString('utf8');
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) || Array.isArray(parsed) ? parsed : text;
  } catch {
    return text;
  }
}
