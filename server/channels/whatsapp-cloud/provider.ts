// The WhatsApp Cloud API behind the channel interface (issue 35): deliver (upload the media, then send), mark a
// contact's message read, fetch a contact's media. Meta's answers become the seeds' outcomes through the one table
// (./errors.ts); the plan is docs/decisions.md "The WhatsApp Cloud API (issue 35)".
//
// - Credentials and outbound media bytes come through ports the domain implements (`WhatsAppCloudCredentials`,
//   `OutboundMediaSource`): this room reads no store. The caller's session is not used: nothing here waits on it.
// - Retries: only a call that never connected is sent again, once (nothing left, nothing can go out twice).
//   Everything else that leaves the outcome open — HTTP 5xx, a timeout or a reset after the request was written,
//   a 2xx without `messages[0].id`, an answer that is not JSON — is `outcome_unknown`, `providerAccepted` false.
// - A refusal that says our request was malformed (100, 131008, 131009, 131051) is our encoder's defect: logged at
//   error with Meta's message and trace id, answered `provider_rejected`.
// - The access token is never in a log line, an error or a result.
import type { Logger } from 'pino';
import { isRecord } from '../../guards.js';
import {
  MEDIA_BYTES_LIMIT,
  graphErrorOf,
  type DownloadAnswer,
  type GraphAnswer,
  type GraphBody,
  type GraphClient,
} from '../graph/client.js';
import type {
  ChannelConnection,
  ChannelDelivery,
  ChannelProvider,
  DeliveryResult,
  InboundMedia,
  InboundMessageRef,
} from '../provider.js';
import { EncodeError, encodeMessage, mediaToUpload } from './encode.js';
import { graphSendError } from './errors.js';

/**
 * A number's credentials, kept sealed by the domain (issue 35, section 2); undefined: none attached. A send reads
 * them in its caller's `session` (an automation sends inside its transaction: on PGlite, one session, a read
 * outside it would wait for the transaction that waits for it).
 */
export interface WhatsAppCloudCredentials<Session = unknown> {
  credentialsFor(
    connectionId: string,
    session?: Session,
  ): Promise<{ phoneNumberId: string; accessToken: string } | undefined>;
}

/** The bytes of a media of the account, to upload before a send (read in the send's `session`, as above). */
export interface OutboundMediaSource<Session = unknown> {
  read(
    accountId: string,
    mediaId: string,
    session?: Session,
  ): Promise<{ bytes: Uint8Array; contentType: string; filename: string | null }>;
}

/** Longest a media upload or download may take, start to end (a file of up to 100 MB). */
export const MEDIA_TOTAL_TIMEOUT_MS = 120_000;

export interface WhatsAppCloudOptions<Session = unknown> {
  graph: GraphClient;
  credentials: WhatsAppCloudCredentials<Session>;
  media: OutboundMediaSource<Session>;
  logger: Pick<Logger, 'error' | 'warn'>;
  mediaTimeoutMs?: number;
}

type Credentials = NonNullable<Awaited<ReturnType<WhatsAppCloudCredentials['credentialsFor']>>>;
type Answered = Extract<GraphAnswer, { kind: 'answered' }>;

const unknownOutcome: DeliveryResult = { outcome: 'outcome_unknown', providerAccepted: false, providerMessageId: null };
const isSuccess = (status: number) => status >= 200 && status <= 299;

/** Sends again once when the first call never connected (nothing was written). */
async function withConnectRetry<T extends { kind: string }>(call: () => Promise<T>): Promise<T> {
  const first = await call();
  return first.kind === 'not_connected' ? call() : first;
}

/** `messages[0].id` of a send's answer (Meta's `wamid.…`), or undefined. */
function sentMessageId(body: GraphBody): string | undefined {
  if (!body.json || !isRecord(body.value) || !Array.isArray(body.value.messages)) return undefined;
  const first: unknown = body.value.messages[0];
  return isRecord(first) && typeof first.id === 'string' && first.id !== '' ? first.id : undefined;
}

/** `id` of an upload's answer, or undefined. */
function uploadedMediaId(body: GraphBody): string | undefined {
  return body.json && isRecord(body.value) && typeof body.value.id === 'string' && body.value.id !== ''
    ? body.value.id
    : undefined;
}

/** A few words on an answer that was not what a call wanted, for an error or a log line (never the token). */
function describe(answer: GraphAnswer | DownloadAnswer): string {
  switch (answer.kind) {
    case 'answered': {
      const error = graphErrorOf(answer.body);
      const meta = error ? `, code ${error.code ?? 'none'}: ${error.message ?? ''}` : '';
      return `HTTP ${answer.status}${answer.body.json ? '' : ` (${answer.body.reason})`}${meta}`;
    }
    case 'not_connected':
      return `no connection (${answer.reason})`;
    case 'lost':
      return `the answer was lost (${answer.reason})`;
    case 'too_large':
      return `more than ${answer.limit} bytes`;
    case 'downloaded':
      return 'downloaded';
  }
}

export class WhatsAppCloudProvider<Session> implements ChannelProvider<Session> {
  constructor(private readonly options: WhatsAppCloudOptions<Session>) {}

  async deliver(session: Session, delivery: ChannelDelivery, _now: Date): Promise<DeliveryResult> {
    const { connection, recipient, content } = delivery;
    if (connection.channel !== 'whatsapp' || recipient.channel !== 'whatsapp')
      throw new Error(`the whatsapp cloud provider got a ${connection.channel} connection`);
    if (!recipient.phone) return { outcome: 'recipient_unavailable' };
    const credentials = await this.options.credentials.credentialsFor(connection.id, session);
    if (!credentials) return { outcome: 'authorization_lost' };

    const mediaIds = new Map<string, string>();
    for (const mediaId of mediaToUpload(content)) {
      const uploaded = await this.upload(connection, credentials, mediaId, session);
      if (typeof uploaded !== 'string') return uploaded;
      mediaIds.set(mediaId, uploaded);
    }
    let body;
    try {
      body = encodeMessage({ phone: recipient.phone, content, replyTo: delivery.replyTo, mediaIds });
    } catch (error) {
      if (!(error instanceof EncodeError)) throw error;
      this.options.logger.error(
        { connection_id: connection.id, form: content.form, reason: error.message },
        'a whatsapp message could not be encoded: the send rules let through a form the encoder does not write',
      );
      return { outcome: 'provider_rejected', providerMessage: 'The message could not be written for whatsapp.' };
    }
    const answer = await withConnectRetry(() =>
      this.options.graph.call({
        method: 'POST',
        segments: [credentials.phoneNumberId, 'messages'],
        token: credentials.accessToken,
        json: body,
      }),
    );
    if (answer.kind === 'answered' && isSuccess(answer.status)) {
      const providerMessageId = sentMessageId(answer.body);
      if (providerMessageId) return { outcome: 'accepted', providerMessageId };
    }
    return this.outcomeOf(connection, answer);
  }

  /** Uploads one media of the message: Meta's id for it, or the send's outcome when the upload failed. */
  private async upload(
    connection: ChannelConnection,
    credentials: Credentials,
    mediaId: string,
    session: Session,
  ): Promise<string | DeliveryResult> {
    let file: Awaited<ReturnType<OutboundMediaSource['read']>>;
    try {
      file = await this.options.media.read(connection.accountId, mediaId, session);
    } catch (error) {
      // No bytes to hand Meta (a console upload the console keeps, an expired file): nothing was sent.
      this.options.logger.warn({ err: error, media_id: mediaId }, 'a media could not be read for a whatsapp send');
      return { outcome: 'provider_rejected', providerMessage: 'The media could not be uploaded to whatsapp.' };
    }
    const answer = await withConnectRetry(() =>
      this.options.graph.upload({
        segments: [credentials.phoneNumberId, 'media'],
        token: credentials.accessToken,
        fields: { messaging_product: 'whatsapp', type: file.contentType },
        file: { field: 'file', bytes: file.bytes, contentType: file.contentType, filename: file.filename ?? mediaId },
        totalTimeoutMs: this.options.mediaTimeoutMs ?? MEDIA_TOTAL_TIMEOUT_MS,
      }),
    );
    if (answer.kind === 'answered' && isSuccess(answer.status)) {
      const id = uploadedMediaId(answer.body);
      if (id) return id;
    }
    return this.outcomeOf(connection, answer);
  }

  /** The outcome of a call that did not give what it asked for (Meta's table for an error body). */
  private outcomeOf(connection: ChannelConnection, answer: GraphAnswer): DeliveryResult {
    if (answer.kind !== 'answered' || isSuccess(answer.status) || answer.status >= 500 || !answer.body.json) {
      this.options.logger.warn(
        { connection_id: connection.id, answer: describe(answer) },
        'whatsapp left the outcome of a send open',
      );
      return unknownOutcome;
    }
    return this.refusal(connection, answer);
  }

  /** Meta's error body, through the one table (./errors.ts). */
  private refusal(connection: ChannelConnection, answer: Answered): DeliveryResult {
    const error = graphErrorOf(answer.body);
    const providerCode = error?.code === undefined ? null : String(error.code);
    const meaning = graphSendError(error?.code);
    switch (meaning.kind) {
      case 'window_closed':
        return { outcome: 'window_closed' };
      case 'recipient_unavailable':
        return { outcome: 'recipient_unavailable' };
      case 'throttled':
        return { outcome: 'provider_throttled' };
      case 'template':
        return {
          outcome: 'template_refused',
          code: meaning.code,
          resync: meaning.resync,
          providerCode: providerCode ?? '',
        };
      case 'authorization_lost':
        return { outcome: 'authorization_lost' };
      case 'rejected':
        if (meaning.ourDefect)
          this.options.logger.error(
            {
              connection_id: connection.id,
              status: answer.status,
              provider_code: providerCode,
              provider_subcode: error?.subcode ?? null,
              provider_message: error?.message ?? null,
              provider_details: error?.details ?? null,
              fbtrace_id: error?.fbtraceId ?? null,
            },
            'whatsapp refused the shape of a request: the encoder has a defect',
          );
        return {
          outcome: 'provider_rejected',
          providerMessage: error?.message || 'The channel refused the message.',
          providerCode,
        };
    }
  }

  /** Tells whatsapp the account read the contact's message (and, Meta's rule, every one before it). */
  /** Every send waits on the Graph API. */
  remote(): boolean {
    return true;
  }

  async markRead(message: InboundMessageRef): Promise<void> {
    const credentials = await this.requireCredentials(message.connection);
    const answer = await withConnectRetry(() =>
      this.options.graph.call({
        method: 'POST',
        segments: [credentials.phoneNumberId, 'messages'],
        token: credentials.accessToken,
        json: { messaging_product: 'whatsapp', status: 'read', message_id: message.providerMessageId },
      }),
    );
    if (answer.kind !== 'answered' || !isSuccess(answer.status))
      throw new Error(`whatsapp did not mark the message read: ${describe(answer)}`);
  }

  /** A contact's media: its short-lived URL (`GET /{media-id}`), then the bytes, with the same token. */
  async fetchInboundMedia(connection: ChannelConnection, mediaId: string): Promise<InboundMedia> {
    const credentials = await this.requireCredentials(connection);
    const info = await withConnectRetry(() =>
      this.options.graph.call({
        method: 'GET',
        segments: [mediaId],
        query: { phone_number_id: credentials.phoneNumberId },
        token: credentials.accessToken,
      }),
    );
    const media = info.kind === 'answered' && isSuccess(info.status) ? mediaInfoOf(info.body) : undefined;
    if (!media) throw new Error(`whatsapp did not give the media's address: ${describe(info)}`);
    if (media.fileSize !== null && media.fileSize > MEDIA_BYTES_LIMIT)
      throw new Error(`the media has ${media.fileSize} bytes, more than the platform keeps`);
    const download = await withConnectRetry(() =>
      this.options.graph.download({
        url: media.url,
        token: credentials.accessToken,
        totalTimeoutMs: this.options.mediaTimeoutMs ?? MEDIA_TOTAL_TIMEOUT_MS,
      }),
    );
    if (download.kind !== 'downloaded') throw new Error(`whatsapp did not hand over the media: ${describe(download)}`);
    return { bytes: download.bytes, contentType: media.mimeType ?? download.contentType, filename: null };
  }

  private async requireCredentials(connection: ChannelConnection): Promise<Credentials> {
    const credentials = await this.options.credentials.credentialsFor(connection.id);
    if (!credentials) throw new Error(`the whatsapp connection ${connection.id} has no credentials`);
    return credentials;
  }
}

/** `GET /{media-id}`'s answer: `url`, `mime_type`, `file_size`. */
function mediaInfoOf(body: GraphBody): { url: string; mimeType: string | null; fileSize: number | null } | undefined {
  if (!body.json || !isRecord(body.value) || typeof body.value.url !== 'string') return undefined;
  const { url, mime_type, file_size } = body.value;
  return {
    url,
    mimeType: typeof mime_type === 'string' ? mime_type : null,
    fileSize: typeof file_size === 'number' ? file_size : typeof file_size === 'string' ? Number(file_size) : null,
  };
}
