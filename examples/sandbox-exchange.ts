// A full exchange with the sandbox alone, no phone needed: a contact writes on whatsapp, the API reads the
// conversation, sends text, buttons, an image, cards and a template, the contact taps a button, and a whatsapp
// send fails later. The contact's side goes through the sandbox routes of the admin API; the account's side is
// the public API with the typed client.
//
//   npm start                                                  # in one terminal: prints the key and the admin token's file
//   API_KEY=epk_… ADMIN_TOKEN=$(cat data/admin-token) npm run sandbox-exchange
//   (BASE_URL=http://… for a server elsewhere; default http://127.0.0.1:3000)
//
// test/server/sandbox-exchange.test.ts runs `sandboxExchange` against a test server, so this file stays true.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import createFetchClient from 'openapi-fetch';
import { createClient, errorCode, type ApiClient, type components } from '../client/index.js';
import type { paths as AdminPaths } from '../generated/admin-api.js';
import { baseUrl, check, runExample, settings } from './check.js';

type Message = components['schemas']['Message'];
type Conversation = components['schemas']['Conversation'];
/** Typed by the vendor console's own description (generated/admin-api.ts), not the public one. */
export type AdminClient = ReturnType<typeof createFetchClient<AdminPaths, 'application/json'>>;

/** The vendor console's client: the admin API with its token (ADMIN_TOKEN, or DATA_DIR/admin-token). */
export function createAdminClient(baseUrl: string, adminToken: string): AdminClient {
  return createFetchClient<AdminPaths, 'application/json'>({
    baseUrl: baseUrl.replace(/(?<!\/)\/+$/, ''),
    headers: { Authorization: `Bearer ${adminToken}` },
  });
}

/** A 1×1 PNG: the image the exchange uploads and sends. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export interface Exchange {
  conversation: Conversation;
  /** What the API sent, in order: text, text with buttons, image, cards, template, and the one that failed. */
  sent: Message[];
  /** The contact's messages: the first one, and the button tap. */
  received: Message[];
  /** The failed whatsapp send as read after the channel reported it. */
  failed: Message;
  /** The whole conversation, oldest first. */
  history: Message[];
}

export async function sandboxExchange(api: ApiClient, admin: AdminClient, phone = '+5511988887777'): Promise<Exchange> {
  const connections = check(await api.GET('/v1/connections'), 'list connections');
  const whatsapp = connections.data.find((c) => c.channel === 'whatsapp' && c.status === 'connected');
  if (!whatsapp) throw new Error('the account has no connected whatsapp number');
  const connectionId = whatsapp.id;

  // 1. The contact writes (someone new: the sandbox creates the contact and the conversation, and the
  //    24-hour reply window opens).
  const first = check(
    await admin.POST('/admin/v1/sandbox/connections/{connectionId}/inbound', {
      params: { path: { connectionId } },
      body: { from: { phone, name: 'Bia Lima' }, text: 'Oi! Vocês têm o Runner no 38?' },
    }),
    'contact writes',
  );

  // 2. The API finds the conversation and reads it.
  const conversationId = first.conversation.id;
  const conversation = check(
    await api.GET('/v1/conversations/{conversationId}', { params: { path: { conversationId } } }),
    'read conversation',
  );
  const inbox = check(await api.GET('/v1/conversations', { params: { query: { unread: true } } }), 'list unread');
  if (!inbox.data.some((c) => c.id === conversationId)) throw new Error('the new conversation is not unread');

  // A send requires an Idempotency-Key: keep it to retry safely (here each send is new, so a new key).
  const send = async (body: components['schemas']['SendMessageRequest'], what: string) =>
    check(
      await api.POST('/v1/conversations/{conversationId}/messages', {
        params: { path: { conversationId }, header: { 'Idempotency-Key': randomUUID() } },
        body,
      }),
      what,
    );

  // 3. Text, then text with reply buttons (it reads back as one card whose title is the text).
  const sent: Message[] = [];
  sent.push(await send({ text: 'Oi, Bia! Temos sim.' }, 'send text'));
  sent.push(
    await send(
      {
        text: 'Qual cor você prefere?',
        buttons: [
          { type: 'reply', id: 'color_blue', title: 'Azul' },
          { type: 'reply', id: 'color_black', title: 'Preto' },
        ],
      },
      'send buttons',
    ),
  );

  // 4. An image: create the media, upload the bytes to its link within 5 minutes, send it with a caption.
  const media = check(
    await api.POST('/v1/media', { body: { content_type: 'image/png', filename: 'runner.png' } }),
    'create media',
  );
  const upload = await fetch(media.upload_url, {
    method: 'PUT',
    headers: { 'Content-Type': 'image/png' },
    body: PNG,
  });
  if (!upload.ok) throw new Error(`upload: ${upload.status}`);
  const image = { type: 'image' as const, media_id: media.id };
  sent.push(await send({ text: 'Runner, azul', attachments: [image] }, 'send image'));

  // 5. Cards (whatsapp: 2 to 10, each with an image and the same kind and count of buttons, text above).
  const card = (title: string, id: string) => ({
    title,
    media_id: media.id,
    buttons: [{ type: 'reply' as const, id, title: 'Quero este' }],
  });
  sent.push(
    await send(
      {
        text: 'Os dois mais pedidos:',
        attachments: [{ type: 'cards', cards: [card('Runner 38', 'runner_38'), card('Runner 39', 'runner_39')] }],
      },
      'send cards',
    ),
  );

  // 6. A template (the only form that reaches a whatsapp contact once the window has closed).
  sent.push(
    await send(
      { template: { name: 'order_update', language: 'pt_BR', body_variables: ['Bia', '4821'] } },
      'send template',
    ),
  );

  // 7. The contact taps "Azul": a contact message with the title as text and the button it tapped.
  const tap = check(
    await admin.POST('/admin/v1/sandbox/messages/{messageId}/button-taps', {
      params: { path: { messageId: sent[1]!.id } },
      body: { button_id: 'color_blue' },
    }),
    'contact taps a button',
  );

  // 8. The channel holds the account's sends once (arranged): 429 provider_throttled releases the
  //    Idempotency-Key, so the retry with the same key sends. whatsapp then reports that message undelivered.
  check(
    await admin.POST('/admin/v1/sandbox/connections/{connectionId}/send-outcomes', {
      params: { path: { connectionId } },
      body: { outcome: 'provider_throttled' },
    }),
    'arrange the answer',
  );
  const idempotencyKey = randomUUID();
  const retried = async () =>
    api.POST('/v1/conversations/{conversationId}/messages', {
      params: { path: { conversationId }, header: { 'Idempotency-Key': idempotencyKey } },
      body: { text: 'Pedido 4821 confirmado.' },
    });
  const throttled = await retried();
  if (errorCode(throttled.error) !== 'provider_throttled')
    throw new Error(`expected provider_throttled, got ${throttled.response.status}`);
  const doomed = check(await retried(), 'send again with the same key');
  sent.push(doomed);
  check(
    await admin.POST('/admin/v1/sandbox/messages/{messageId}/failure', {
      params: { path: { messageId: doomed.id } },
      body: { provider_code: '131026', provider_message: 'Message undeliverable' },
    }),
    'whatsapp reports the send undelivered',
  );
  const failed = check(
    await api.GET('/v1/messages/{messageId}', { params: { path: { messageId: doomed.id } } }),
    'read the failed message',
  );

  // 9. The whole conversation, oldest first, page by page.
  const history: Message[] = [];
  let cursor: string | undefined;
  do {
    const page = check(
      await api.GET('/v1/conversations/{conversationId}/messages', {
        params: { path: { conversationId }, query: { order: 'asc', limit: 100, ...(cursor ? { cursor } : {}) } },
      }),
      'list messages',
    );
    history.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);

  return { conversation, sent, received: [first.message, tap.message], failed, history };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { API_KEY, ADMIN_TOKEN } = settings('API_KEY', 'ADMIN_TOKEN');
  await runExample(async () => {
    const exchange = await sandboxExchange(
      createClient({ baseUrl: baseUrl(), apiKey: API_KEY }),
      createAdminClient(baseUrl(), ADMIN_TOKEN),
    );
    for (const m of exchange.history)
      console.log(
        `${m.created_at}  ${m.direction.padEnd(8)} ${m.sender.type.padEnd(7)} ${m.status.padEnd(8)} ${
          m.text ?? `[${m.attachments.map((a) => a.type).join(', ') || m.type}]`
        }`,
      );
  });
}
