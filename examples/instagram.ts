// A real Instagram account's round trip, played against the fake Graph API instead of Meta: attach the account
// (the admin API), a contact writes a direct message (a webhook the fake signs with the app secret and posts to the
// server), the API answers with reply buttons (sent through the Graph API as a button template: the fake records
// it), the contact taps one (a postback), then an automation triggered by a keyword in a comment answers the
// comment with a private reply (`recipient.comment_id`) and a public reply under it (its reply list). Every step
// reaches this example's own webhook receiver, signed.
//
//   META_APP_SECRET=dev-secret npm run fake:meta              # in one terminal: the fake, on 127.0.0.1:4010
//   META_APP_SECRET=dev-secret GRAPH_API_BASE_URL=http://127.0.0.1:4010 INSTAGRAM_GRAPH_BASE_URL=http://127.0.0.1:4010 \
//     INSTAGRAM_CDN_BASE_URL=http://127.0.0.1:4010 npm start                               # in another
//   API_KEY=epk_… ADMIN_TOKEN=$(cat data/admin-token) npm run instagram
//
// BASE_URL (default http://127.0.0.1:3000) is the server, FAKE_META_URL (default http://127.0.0.1:4010) the fake;
// IG_USER_ID and IG_ACCESS_TOKEN the account to attach with Instagram Login (default: the fake's demo account,
// whose username is the demo account's instagram connection, loja.demo). RECEIVER_PORT: the receiver's port
// (default a free one). The server must allow local receivers (WEBHOOK_DEV_TARGETS, on by default with
// `npm start`). The account stays attached at the end: `DELETE /admin/v1/connections/{id}/instagram` gives it
// back to the sandbox.
//
// test/server/instagram-example.test.ts runs `instagram` against a test server and a fake, on both engines.
import { randomInt, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { errorCode, isApiError, type ApiClient, type GraphNodes, type components } from '../client/index.js';
import type { components as AdminComponents } from '../generated/admin-api.js';
import { baseUrl, check, deleteWorkflowsDescribed, publishValidated } from './check.js';
import { runWithReceiver } from './cli.js';
import type { AdminClient } from './sandbox-exchange.js';
import type { ReceivedRequest, ReceiverControls } from './webhook-receiver.js';
import { envelopeOf, fakeControl, isRecord, webhookStatusOf } from './fake-meta-control.js';

type Message = components['schemas']['Message'];
type Contact = components['schemas']['Contact'];
type Endpoint = components['schemas']['WebhookEndpoint'];
type Workflow = components['schemas']['Workflow'];
type RepliesList = components['schemas']['RepliesList'];
type AttachedAccount = AdminComponents['schemas']['AdminInstagramAccount'];

/** The endpoints and the automation this example makes carry this description (earlier runs' are deleted). */
export const EXAMPLE_DESCRIPTION = 'examples/instagram.ts';
/** The reply list of the automation's public replies (reused by later runs: names are unique in an account). */
export const REPLIES_LIST_NAME = 'Exemplo instagram: respostas públicas';
const EVENT_TYPES = ['message.received', 'comment.received', 'message.sent'] as const;

/** An account on Instagram Login: what `PUT /admin/v1/connections/{id}/instagram` takes. */
export interface InstagramLogin {
  igUserId: string;
  accessToken: string;
}

/** `npm run fake:meta`'s demo account (scripts/fake-meta.ts `demoInstagram`): the demo account's `loja.demo`. */
export const FAKE_DEMO_INSTAGRAM: InstagramLogin = {
  igUserId: '17841405309211844',
  accessToken: 'fake-meta-demo-ig-token',
};

export interface InstagramOptions {
  /** The fake Graph API (`npm run fake:meta`): its `/_fake/instagram/…` endpoints play Meta's side. */
  fakeUrl: string;
  /** The server's `/channels/instagram/webhook`, where the fake posts what Meta would. */
  webhookUrl: string;
  account: InstagramLogin;
  /** The contact's instagram-scoped id (IGSID); default a new one each run: a new contact. */
  igsid?: string;
  /** The contact's username, which its comment brings; default `ana.souza`. */
  username?: string;
  /** The word in the comment that starts the automation; default `cupom`. */
  keyword?: string;
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

export interface InstagramRun {
  endpoint: Omit<Endpoint, 'secret'>;
  attached: AttachedAccount;
  igsid: string;
  /** The contact's direct message: its mid, what the server answered the signed webhook, and its arrival. */
  inbound: Arrived & { mid: string; webhookStatus: number };
  /** The reply buttons: the message, and the mid and send body the fake recorded for it (a button template). */
  buttons: { message: Message; mid: string; graphBody: Record<string, unknown> };
  /** The contact's tap on a button (a postback), as a contact message. */
  tap: Arrived & { webhookStatus: number };
  /** The comment-keyword automation, published, and its reply list. */
  automation: { workflow: Workflow; repliesList: RepliesList; keyword: string };
  /** The contact's comment with the keyword: the comment's id on Instagram, and its arrival (comment.received). */
  comment: Arrived & { commentId: string; webhookStatus: number };
  /** The automation's private reply: what the fake recorded (`recipient.comment_id`) and its message.sent. */
  privateReply: Arrived & { mid: string; graphBody: Record<string, unknown> };
  /** The public reply under the comment: the body of `POST /{comment_id}/replies` and its message.sent. */
  publicReply: Arrived & { graphBody: Record<string, unknown> };
  /** The contact as the API reads it at the end (the comment brought its username). */
  contact: Contact;
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
/** An instagram-scoped id no earlier run used (most likely): a new contact, a new conversation. */
const newIgsid = () => `1914${String(randomInt(0, 1_000_000_000_000)).padStart(12, '0')}`;

/** The first entry of the payload the fake sent (`entry[0]`). */
function entryOf(answer: Record<string, unknown>): Record<string, unknown> {
  const payload = answer.payload;
  const entry = isRecord(payload) && Array.isArray(payload.entry) ? payload.entry[0] : undefined;
  if (!isRecord(entry)) throw new Error('the fake sent a payload without an entry');
  return entry;
}

/** The mid of the direct message a payload the fake sent carries (`entry[0].messaging[0].message.mid`). */
function midOf(answer: Record<string, unknown>): string {
  const { messaging } = entryOf(answer);
  const item = Array.isArray(messaging) ? messaging[0] : undefined;
  const message = isRecord(item) ? item.message : undefined;
  if (!isRecord(message) || typeof message.mid !== 'string') throw new Error('the fake sent no message mid');
  return message.mid;
}

/** The id of the comment a payload the fake sent carries (`entry[0].changes[0].value.id`). */
function commentIdOf(answer: Record<string, unknown>): string {
  const { changes } = entryOf(answer);
  const change = Array.isArray(changes) ? changes[0] : undefined;
  const value = isRecord(change) ? change.value : undefined;
  if (!isRecord(value) || typeof value.id !== 'string') throw new Error('the fake sent no comment id');
  return value.id;
}

/** The automation: the comment's private reply, a message (the first message of a comment-started run). */
function commentGraph(): GraphNodes {
  return {
    root: { type: 'root', data: { next: ['cupom'] } },
    cupom: {
      type: 'message',
      data: { text: 'Oi! Aqui está o seu cupom: FRETE10 (frete grátis até domingo).', next: [null] },
    },
  };
}

export async function instagram(
  api: ApiClient,
  admin: AdminClient,
  receiverUrl: string,
  receiver: ReceiverControls,
  options: InstagramOptions,
): Promise<InstagramRun> {
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 20_000;
  const fake = fakeControl(options.fakeUrl);
  const igsid = options.igsid ?? newIgsid();
  const username = options.username ?? 'ana.souza';
  const keyword = options.keyword ?? 'cupom';
  const { webhookUrl, account } = options;
  /** What the receiver got before this run is not this run's. */
  const earlier = receiver.requests.length;

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
  /** Waits for an accepted event of `type` whose Message `matches`, and reads that message. */
  async function arrival(type: string, matches: (data: Record<string, unknown>) => boolean): Promise<Arrived> {
    const event = await poll(`${type} at the receiver`, () =>
      receiver.requests.slice(earlier).find((r) => {
        if (r.outcome !== 'accepted' || r.type !== type) return false;
        const envelope = envelopeOf(r);
        return envelope !== undefined && matches(envelope.data);
      }),
    );
    const messageId = envelopeOf(event)?.data.id;
    if (typeof messageId !== 'string') throw new Error(`${type} carries no message id`);
    const message = check(await api.GET('/v1/messages/{messageId}', { params: { path: { messageId } } }), 'read');
    return { message, event };
  }
  /** What the fake accepted for the account: each send's mid, recipient, kind and body. */
  async function recordedSends(): Promise<Record<string, unknown>[]> {
    const { messages } = await fake('instagram/sent');
    return (Array.isArray(messages) ? messages : []).filter(
      (m): m is Record<string, unknown> => isRecord(m) && m.igUserId === account.igUserId,
    );
  }
  /** The last send the fake accepted whose recipient `matches`, of Meta's `kind` (`text`, `button`…). */
  async function recordedSend(what: string, kind: string, matches: (recipient: Record<string, unknown>) => boolean) {
    const sent = await poll(what, async () =>
      (await recordedSends()).findLast((m) => m.kind === kind && isRecord(m.recipient) && matches(m.recipient)),
    );
    if (typeof sent.id !== 'string' || !isRecord(sent.body)) throw new Error(`the fake recorded ${what} without a mid`);
    return { mid: sent.id, body: sent.body };
  }
  const contactWrites = async (body: Record<string, unknown>) =>
    fake('instagram/inbound', { from: igsid, ig_user_id: account.igUserId, to_webhook_url: webhookUrl, ...body });

  const connections = check(await api.GET('/v1/connections'), 'list connections');
  const connection = connections.data.find((c) => c.channel === 'instagram');
  if (!connection) throw new Error('the account has no instagram connection');
  const connectionId = connection.id;
  await recordedSends(); // the fake is there before anything changes

  // 1. Register the receiver for the message and comment events. The secret is shown here only: the receiver
  //    keeps it. (Endpoints left by earlier runs go first: an account holds at most 10.)
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

  // 2. Attach the account (Instagram Login): the server reads the account behind the token, subscribes the app to
  //    its webhooks, and the connection is connected again, now through the Graph API. The answer never holds
  //    the token.
  const put = await admin.PUT('/admin/v1/connections/{connectionId}/instagram', {
    params: { path: { connectionId } },
    body: { login: 'instagram', ig_user_id: account.igUserId, access_token: account.accessToken },
  });
  if (put.data === undefined)
    throw new Error(
      `attach the account: ${put.response.status} ${JSON.stringify(put.error)} ` +
        `(is the server's INSTAGRAM_GRAPH_BASE_URL the fake's, ${options.fakeUrl}?)`,
    );
  const attached = put.data;
  log(
    `2. attached @${attached.username} (${attached.ig_user_id}, token …${attached.token_last4}) to ` +
      `${connection.name}: ${attached.connection.status}`,
  );

  // 3. A contact writes a direct message: the fake signs Meta's payload with the app secret and posts it; the
  //    server answers 200 at once and decodes it after the answer (message.received).
  const text = 'Oi! Vocês entregam em Campinas?';
  const sentIn = await contactWrites({ text });
  const inboundStatus = webhookStatusOf(sentIn, webhookUrl);
  const inboundMid = midOf(sentIn);
  const inbound = await arrival('message.received', (d) => d.text === text && d.direction === 'inbound');
  const contactId = inbound.message.contact_id;
  log(
    `3. ${igsid} wrote (…${inboundMid.slice(-12)}, webhook ${inboundStatus}): message.received ${inbound.message.id}`,
  );

  // 4. Answer with reply buttons through the public API (a send needs an Idempotency-Key: keep it to retry). On
  //    Instagram, text with buttons goes as Meta's button template, each reply button a postback.
  const conversationId = inbound.message.conversation_id;
  const buttonsMessage = check(
    await api.POST('/v1/conversations/{conversationId}/messages', {
      params: { path: { conversationId }, header: { 'Idempotency-Key': randomUUID() } },
      body: {
        text: 'Entregamos sim! Quando prefere receber?',
        buttons: [
          { type: 'reply', id: 'manha', title: 'De manhã' },
          { type: 'reply', id: 'tarde', title: 'À tarde' },
        ],
      },
    }),
    'send reply buttons',
  );
  const buttons = await recordedSend('the button template', 'button', (r) => r.id === igsid);
  log(`4. sent buttons ${buttonsMessage.id}: the Graph API got a button template, mid …${buttons.mid.slice(-12)}`);

  // 5. The contact taps "À tarde": Meta's postback carries the button's payload (its id); it reads as a contact
  //    message answering the buttons, with the button and its source (`api`: our send's).
  const sentTap = await contactWrites({ text: 'À tarde', postback_payload: 'tarde' });
  const tapStatus = webhookStatusOf(sentTap, webhookUrl);
  const tap = await arrival('message.received', (d) => d.reply_to_message_id === buttonsMessage.id);
  log(
    `5. tapped: "${tap.message.text ?? ''}" button ${tap.message.button?.id ?? '?'} ` +
      `(source ${tap.message.button?.source ?? '?'})`,
  );

  // 6. An automation on the connection that a comment with the keyword starts: its first message goes as the
  //    private reply to the comment (a direct message, outside the 24-hour window's rule), and its reply list's
  //    reply is posted under the comment. An earlier run's automation goes first (it uses the reply list).
  await deleteWorkflowsDescribed(api, connectionId, EXAMPLE_DESCRIPTION);
  const replies = ['Te mandei no direct! 📩'];
  const created = await api.POST('/v1/replies-lists', { body: { name: REPLIES_LIST_NAME, replies } });
  let repliesList: RepliesList;
  if (created.data !== undefined) repliesList = created.data;
  else {
    // The list of an earlier run: the 409 names it; its replies are set again.
    const context: unknown = isApiError(created.error) ? created.error.context : undefined;
    const existing = isRecord(context) ? context.replies_list_id : undefined;
    if (errorCode(created.error) !== 'replies_list_already_exists' || typeof existing !== 'string')
      throw new Error(`create the reply list: ${created.response.status} ${JSON.stringify(created.error)}`);
    repliesList = check(
      await api.PATCH('/v1/replies-lists/{repliesListId}', {
        params: { path: { repliesListId: existing } },
        body: { replies },
      }),
      'update the reply list',
    );
  }
  const draft = check(
    await api.POST('/v1/workflows', {
      body: {
        title: 'Cupom nos comentários',
        description: EXAMPLE_DESCRIPTION,
        channel: { type: 'instagram', connection_id: connectionId },
        trigger: { events: ['comment'], match: 'contains', keywords: [keyword], replies_list_id: repliesList.id },
        graph: { nodes: commentGraph() },
      },
    }),
    'create automation',
  );
  const workflow = await publishValidated(api, draft.id);
  log(`6. published ${workflow.id} on ${connection.name}: a comment with "${keyword}" starts it`);

  const commentText = `Quero o ${keyword}!`;
  const sentComment = await fake('instagram/comment', {
    from: igsid,
    username,
    text: commentText,
    ig_user_id: account.igUserId,
    to_webhook_url: webhookUrl,
  });
  const commentStatus = webhookStatusOf(sentComment, webhookUrl);
  const commentId = commentIdOf(sentComment);
  const comment = await arrival('comment.received', (d) => d.text === commentText && d.contact_id === contactId);
  log(`   @${username} commented ${commentId} (webhook ${commentStatus}): comment.received ${comment.message.id}`);

  const privateSend = await recordedSend('the private reply', 'text', (r) => r.comment_id === commentId);
  const privateReply = await arrival(
    'message.sent',
    (d) => d.type === 'comment_dm_reply' && d.contact_id === contactId,
  );
  log(`   private reply ${privateReply.message.id} (recipient.comment_id, mid …${privateSend.mid.slice(-12)})`);

  const publicRequest = await poll('the public reply at the fake', async () => {
    const { requests } = await fake(`requests?path=${encodeURIComponent(`/${commentId}/replies`)}`);
    return (Array.isArray(requests) ? requests : []).find(
      (r): r is Record<string, unknown> => isRecord(r) && r.method === 'POST' && isRecord(r.body),
    );
  });
  const publicBody = isRecord(publicRequest.body) ? publicRequest.body : {};
  const publicReply = await arrival('message.sent', (d) => d.type === 'comment_reply' && d.contact_id === contactId);
  log(`   public reply ${publicReply.message.id} under the comment: "${publicReply.message.text ?? ''}"`);

  const contact = check(
    await api.GET('/v1/contacts/{contactId}', { params: { path: { contactId } } }),
    'read the contact',
  );

  return {
    endpoint,
    attached,
    igsid,
    inbound: { ...inbound, mid: inboundMid, webhookStatus: inboundStatus },
    buttons: { message: buttonsMessage, mid: buttons.mid, graphBody: buttons.body },
    tap: { ...tap, webhookStatus: tapStatus },
    automation: { workflow, repliesList, keyword },
    comment: { ...comment, commentId, webhookStatus: commentStatus },
    privateReply: { ...privateReply, mid: privateSend.mid, graphBody: privateSend.body },
    publicReply: { ...publicReply, graphBody: publicBody },
    contact,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const account: InstagramLogin = {
    igUserId: process.env.IG_USER_ID ?? FAKE_DEMO_INSTAGRAM.igUserId,
    accessToken: process.env.IG_ACCESS_TOKEN ?? FAKE_DEMO_INSTAGRAM.accessToken,
  };
  const fakeUrl = process.env.FAKE_META_URL ?? 'http://127.0.0.1:4010';
  const webhookUrl = `${baseUrl().replace(/(?<!\/)\/+$/, '')}/channels/instagram/webhook`;
  try {
    await runWithReceiver(async (api, admin, receiver) => {
      await instagram(api, admin, receiver.url, receiver, { fakeUrl, webhookUrl, account, log: (l) => console.log(l) });
      console.log(
        'The account stays attached: DELETE /admin/v1/connections/{id}/instagram gives it back to the sandbox.',
      );
    });
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
