// A real WhatsApp number's round trip, played against the fake Graph API instead of Meta: connect the number
// (the admin API), a contact writes (a webhook the fake signs with the app secret and posts to the server), the
// API answers with reply buttons (sent through the Graph API: the fake records the wamid), the contact taps one
// (a button_reply on that wamid), the API confirms, and whatsapp reports the confirmation undelivered (a failed
// status), which reaches this example's own webhook receiver as `message.failed`, signed.
//
//   META_APP_SECRET=dev-secret npm run fake:meta              # in one terminal: the fake, on 127.0.0.1:4010
//   META_APP_SECRET=dev-secret GRAPH_API_BASE_URL=http://127.0.0.1:4010 npm start      # in another
//   API_KEY=epk_… ADMIN_TOKEN=$(cat data/admin-token) npm run whatsapp-cloud
//
// BASE_URL (default http://127.0.0.1:3000) is the server, FAKE_META_URL (default http://127.0.0.1:4010) the fake;
// WA_PHONE_NUMBER_ID, WA_WABA_ID and WA_ACCESS_TOKEN the number to attach (default: the fake's demo number, whose
// display number is the demo account's whatsapp number). RECEIVER_PORT: the receiver's port (default a free
// one). The server must allow local receivers (WEBHOOK_DEV_TARGETS, on by default with `npm start`). The number
// stays attached at the end: `DELETE /admin/v1/connections/{id}/whatsapp-cloud` gives it back to the sandbox.
//
// test/server/whatsapp-cloud-example.test.ts runs `whatsappCloud` against a test server and a fake, on both engines.
import { randomInt, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { ApiClient, components } from '../client/index.js';
import type { components as AdminComponents } from '../generated/admin-api.js';
import { baseUrl, check } from './check.js';
import { runWithReceiver } from './cli.js';
import type { AdminClient } from './sandbox-exchange.js';
import type { ReceivedRequest, ReceiverControls } from './webhook-receiver.js';
import { envelopeOf, fakeControl, isRecord, webhookStatusOf } from './fake-meta-control.js';

type Message = components['schemas']['Message'];
type Endpoint = components['schemas']['WebhookEndpoint'];
type AttachedNumber = AdminComponents['schemas']['AdminWhatsAppCloudNumber'];

/** The endpoints this example registers carry this description (earlier runs' are deleted at the start). */
export const EXAMPLE_DESCRIPTION = 'examples/whatsapp-cloud.ts';
const EVENT_TYPES = ['message.received', 'message.sent', 'message.failed'] as const;

/** A number on the Graph API: what `PUT /admin/v1/connections/{id}/whatsapp-cloud` takes. */
export interface GraphNumber {
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
}

/** `npm run fake:meta`'s demo number (scripts/fake-meta.ts `demoNumber`): the demo account's whatsapp number. */
export const FAKE_DEMO_NUMBER: GraphNumber = {
  phoneNumberId: '106540352242922',
  wabaId: '102290129340398',
  accessToken: 'fake-meta-demo-token',
};

export interface WhatsAppCloudOptions {
  /** The fake Graph API (`npm run fake:meta`): its `/_fake/…` endpoints play Meta's side. */
  fakeUrl: string;
  /** The server's `/channels/whatsapp/webhook`, where the fake posts what Meta would. */
  webhookUrl: string;
  number: GraphNumber;
  /** The contact's phone; default a new Brazilian mobile number each run. */
  contactPhone?: string;
  /** How long one wait may take before the example gives up; default 20 s. */
  timeoutMs?: number;
  /** Progress lines; default none. */
  log?: (line: string) => void;
}

/** A message as the API read it, and the event that brought it to the receiver. */
export interface Arrived {
  message: Message;
  event: ReceivedRequest;
}

export interface WhatsAppCloudRun {
  endpoint: Omit<Endpoint, 'secret'>;
  attached: AttachedNumber;
  contactPhone: string;
  /** The contact's text: its wamid, what the server answered the signed webhook, and its arrival. */
  inbound: Arrived & { wamid: string; webhookStatus: number };
  /** The reply buttons: the message, and the wamid and body the fake recorded for it. */
  buttons: { message: Message; wamid: string; graphBody: Record<string, unknown> };
  /** The fake got a read receipt for the contact's text (a send marks what the contact sent as read). */
  markedRead: boolean;
  /** The contact's tap on a button, as a contact message. */
  tap: Arrived & { webhookStatus: number };
  /** The confirmation, failed by whatsapp's status: the event, and the message read back after it. */
  failed: Arrived & { wamid: string };
}

const digitsOf = (phone: string) => phone.replace(/\D/g, '');
const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
/** A Brazilian mobile number no earlier run used (most likely): a new contact, a new conversation. */
const newPhone = () => `+55119${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;

/** The wamid of the message a payload the fake sent carries (`entry[0].changes[0].value.messages[0].id`). */
function wamidOf(answer: Record<string, unknown>): string {
  const payload = answer.payload;
  const entry = isRecord(payload) && Array.isArray(payload.entry) ? payload.entry[0] : undefined;
  const change = isRecord(entry) && Array.isArray(entry.changes) ? entry.changes[0] : undefined;
  const value = isRecord(change) ? change.value : undefined;
  const message = isRecord(value) && Array.isArray(value.messages) ? value.messages[0] : undefined;
  if (!isRecord(message) || typeof message.id !== 'string') throw new Error('the fake sent no message id');
  return message.id;
}

export async function whatsappCloud(
  api: ApiClient,
  admin: AdminClient,
  receiverUrl: string,
  receiver: ReceiverControls,
  options: WhatsAppCloudOptions,
): Promise<WhatsAppCloudRun> {
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 20_000;
  const fake = fakeControl(options.fakeUrl);
  const contactPhone = options.contactPhone ?? newPhone();
  const { webhookUrl, number } = options;

  /** Asks `probe` every 20 ms until it gives a value; past the timeout, the error says what did not come. */
  async function poll<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what} did not come within ${timeoutMs / 1000} s`);
      await sleep(20);
    }
  }
  /** Waits for an accepted event of `type` whose Message `matches`. */
  const arrival = (type: string, matches: (data: Record<string, unknown>) => boolean) =>
    poll(`${type} at the receiver`, () =>
      receiver.requests.find((r) => {
        if (r.outcome !== 'accepted' || r.type !== type) return false;
        const envelope = envelopeOf(r);
        return envelope !== undefined && matches(envelope.data);
      }),
    );
  const readMessage = async (messageId: string) =>
    check(await api.GET('/v1/messages/{messageId}', { params: { path: { messageId } } }), 'read the message');
  /** The last message the fake accepted for the contact, of Meta's `type` (`text`, `interactive`). */
  async function recordedSend(type: string) {
    const { messages } = await fake('sent');
    const mine = (Array.isArray(messages) ? messages : []).filter(
      (m): m is Record<string, unknown> =>
        isRecord(m) && m.type === type && typeof m.to === 'string' && digitsOf(m.to) === digitsOf(contactPhone),
    );
    const last = mine.at(-1);
    if (!last || typeof last.id !== 'string' || !isRecord(last.body))
      throw new Error(`the fake recorded no ${type} message to ${contactPhone}`);
    return { wamid: last.id, body: last.body };
  }

  const connections = check(await api.GET('/v1/connections'), 'list connections');
  const whatsapp = connections.data.find((c) => c.channel === 'whatsapp');
  if (!whatsapp) throw new Error('the account has no whatsapp number');
  const connectionId = whatsapp.id;
  await fake('sent'); // the fake is there before anything changes

  // 1. Register the receiver for message events. The secret is shown here only: the receiver keeps it.
  //    (Endpoints left by earlier runs go first: an account holds at most 10.)
  for (const old of check(await api.GET('/v1/webhooks'), 'list webhooks').data)
    if (old.description === EXAMPLE_DESCRIPTION)
      check(await api.DELETE('/v1/webhooks/{webhookId}', { params: { path: { webhookId: old.id } } }), 'delete');
  const { secret, ...endpoint } = check(
    await api.POST('/v1/webhooks', {
      body: { url: receiverUrl, description: EXAMPLE_DESCRIPTION, event_types: [...EVENT_TYPES] },
    }),
    'register the endpoint',
  );
  receiver.setSecrets([secret]);
  log(`1. webhook endpoint ${endpoint.id} → ${endpoint.url} for ${endpoint.event_types.join(', ')}`);

  // 2. Attach the number: the server checks the token with the Graph API, reads the approved templates, and the
  //    connection is connected again, now through the Graph API. The answer never holds the token.
  const put = await admin.PUT('/admin/v1/connections/{connectionId}/whatsapp-cloud', {
    params: { path: { connectionId } },
    body: { phone_number_id: number.phoneNumberId, waba_id: number.wabaId, access_token: number.accessToken },
  });
  if (put.data === undefined)
    throw new Error(
      `attach the number: ${put.response.status} ${JSON.stringify(put.error)} ` +
        `(is the server's GRAPH_API_BASE_URL the fake's, ${options.fakeUrl}?)`,
    );
  const attached = put.data;
  log(
    `2. attached ${attached.phone_number_id} (${attached.verified_name ?? 'no verified name'}, token …${attached.token_last4}) ` +
      `to ${whatsapp.name}: ${attached.connection.status}, ${attached.templates_synced} templates read`,
  );

  // 3. A contact writes: the fake signs Meta's payload with the app secret and posts it; the server answers 200
  //    at once and decodes it after the answer (message.received).
  const text = 'Oi! Vocês têm o Runner no 38?';
  const sentIn = await fake('inbound', { from: contactPhone, name: 'Ana Souza', text, to_webhook_url: webhookUrl });
  const inboundStatus = webhookStatusOf(sentIn, webhookUrl);
  const inboundWamid = wamidOf(sentIn);
  const inboundEvent = await arrival('message.received', (d) => d.text === text && d.direction === 'inbound');
  const inboundId = envelopeOf(inboundEvent)?.data.id;
  if (typeof inboundId !== 'string') throw new Error('message.received carries no message id');
  const inbound = await readMessage(inboundId);
  log(
    `3. ${contactPhone} wrote (${inboundWamid.slice(0, 16)}…, webhook ${inboundStatus}): message.received ${inbound.id}`,
  );

  // 4. Answer with reply buttons through the public API (a send needs an Idempotency-Key: keep it to retry).
  const conversationId = inbound.conversation_id;
  const buttonsMessage = check(
    await api.POST('/v1/conversations/{conversationId}/messages', {
      params: { path: { conversationId }, header: { 'Idempotency-Key': randomUUID() } },
      body: {
        text: 'Temos sim! Qual tamanho?',
        buttons: [
          { type: 'reply', id: 'size_38', title: '38' },
          { type: 'reply', id: 'size_39', title: '39' },
        ],
      },
    }),
    'send reply buttons',
  );
  const recorded = await recordedSend('interactive');
  // The read receipt goes after the send's answer, without holding it up.
  const markedRead = await poll('the read receipt', async () => {
    const { reads } = await fake('sent');
    return Array.isArray(reads) && reads.some((r) => isRecord(r) && r.messageId === inboundWamid) ? true : undefined;
  }).catch(() => false);
  log(
    `4. sent buttons ${buttonsMessage.id}: the Graph API got interactive.button, wamid ${recorded.wamid.slice(0, 16)}…` +
      (markedRead ? ", and the contact's message marked read" : ''),
  );

  // 5. The contact taps "38": Meta's button_reply names our message's wamid (context.id); it reads as a contact
  //    message answering the buttons, with the button and its source.
  const sentTap = await fake('inbound', {
    from: contactPhone,
    name: 'Ana Souza',
    text: '38',
    button_id: 'size_38',
    context_id: recorded.wamid,
    to_webhook_url: webhookUrl,
  });
  const tapStatus = webhookStatusOf(sentTap, webhookUrl);
  const tapEvent = await arrival('message.received', (d) => d.reply_to_message_id === buttonsMessage.id);
  const tapId = envelopeOf(tapEvent)?.data.id;
  if (typeof tapId !== 'string') throw new Error('the tap carries no message id');
  const tap = await readMessage(tapId);
  log(`5. tapped: "${tap.text ?? ''}" button ${tap.button?.id ?? '?'} (source ${tap.button?.source ?? '?'})`);

  // 6. Confirm, and let whatsapp report the confirmation undelivered (a failed status with Meta's error 131026):
  //    the message reads failed and message.failed reaches the receiver with Meta's code and message.
  const confirmation = check(
    await api.POST('/v1/conversations/{conversationId}/messages', {
      params: { path: { conversationId }, header: { 'Idempotency-Key': randomUUID() } },
      body: { text: 'Anotado: Runner 38. Seu pedido sai hoje.' },
    }),
    'send the confirmation',
  );
  const confirmationSend = await recordedSend('text');
  webhookStatusOf(
    await fake('status', {
      message_id: confirmationSend.wamid,
      status: 'failed',
      error_code: 131026,
      to_webhook_url: webhookUrl,
    }),
    webhookUrl,
  );
  const failedEvent = await arrival('message.failed', (d) => d.id === confirmation.id);
  const failed = await readMessage(confirmation.id);
  log(
    `6. whatsapp failed ${failed.id}: ${failed.status}, ${failed.failure?.provider_code ?? '?'} ` +
      `"${failed.failure?.provider_message ?? ''}" (message.failed, signed, at the receiver)`,
  );

  return {
    endpoint,
    attached,
    contactPhone,
    inbound: { message: inbound, event: inboundEvent, wamid: inboundWamid, webhookStatus: inboundStatus },
    buttons: { message: buttonsMessage, wamid: recorded.wamid, graphBody: recorded.body },
    markedRead,
    tap: { message: tap, event: tapEvent, webhookStatus: tapStatus },
    failed: { message: failed, event: failedEvent, wamid: confirmationSend.wamid },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const number: GraphNumber = {
    phoneNumberId: process.env.WA_PHONE_NUMBER_ID ?? FAKE_DEMO_NUMBER.phoneNumberId,
    wabaId: process.env.WA_WABA_ID ?? FAKE_DEMO_NUMBER.wabaId,
    accessToken: process.env.WA_ACCESS_TOKEN ?? FAKE_DEMO_NUMBER.accessToken,
  };
  const fakeUrl = process.env.FAKE_META_URL ?? 'http://127.0.0.1:4010';
  const webhookUrl = `${baseUrl().replace(/(?<!\/)\/+$/, '')}/channels/whatsapp/webhook`;
  try {
    await runWithReceiver(async (api, admin, receiver) => {
      await whatsappCloud(api, admin, receiver.url, receiver, {
        fakeUrl,
        webhookUrl,
        number,
        log: (line) => console.log(line),
      });
      console.log(
        'The number stays attached: DELETE /admin/v1/connections/{id}/whatsapp-cloud gives it back to the sandbox.',
      );
    });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
