// The fake's own HTTP endpoints (`/_fake/…`, no token: loopback only), for a client team driving it from a shell
// or another process: send a signed inbound text or a status to the server, arrange an answer for a recipient, and
// read what the fake recorded.
//   GET  /_fake/requests               every Graph request recorded (`?path=` keeps those whose path has it)
//   GET  /_fake/sent                   the messages accepted, with their wamids
//   POST /_fake/inbound  {from, text, name?, phone_number_id?, context_id?, button_id?, to_webhook_url?}
//                        (with `button_id`: a tap on the reply button of that id, titled `text`, on the message
//                        `context_id`, an interactive button_reply)
//   POST /_fake/status   {message_id, status, recipient?, error_code?, phone_number_id?, to_webhook_url?}
//   POST /_fake/script   {to, answer: ScriptedAnswer, sticky?}
// Instagram (to the instagram webhook URL; `ig_user_id` names the account, the fake's first when absent):
//   GET  /_fake/instagram/sent         the Instagram messages accepted, with their mids
//   POST /_fake/instagram/inbound  {from, text, ig_user_id?, reply_to_mid?, quick_reply_payload?, postback_payload?,
//                                   to_webhook_url?}  (a DM; with `postback_payload`: a tap on a template's button
//                                   titled `text`; with `quick_reply_payload`: a quick reply)
//   POST /_fake/instagram/comment  {from, username, text, ig_user_id?, comment_id?, media_id?, live?, to_webhook_url?}
//                                  (`from` is the author's IGSID; `live`: a live comment)
//   POST /_fake/instagram/script   {recipient, answer: ScriptedAnswer, sticky?}  (an IGSID or a comment id)
import type { ServerResponse } from 'node:http';
import { isRecord } from '../../../server/guards.js';
import { sendAnswer } from './http.js';
import type { FakeState } from './state.js';
import * as ig from './instagram-webhooks.js';
import type { FakeInstagramAccount, FakeNumber, ScriptedAnswer } from './types.js';
import { buttonReply, status, text, type WebhookPayload } from './webhooks.js';

const ANSWER_KINDS = ['error', 'http', 'no_message_id', 'delay', 'reset', 'fail_later', 'accept'];

const reply = (res: ServerResponse, status: number, body: unknown) => sendAnswer(res, { status, body });

const optionalText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The number a control request names (`phone_number_id`), or the fake's first. */
function numberFor(state: FakeState, body: Record<string, unknown>): FakeNumber | undefined {
  const id = optionalText(body.phone_number_id);
  return id === undefined ? state.numbers[0] : state.number(id);
}

/** Answers a `/_fake/…` request. */
export async function handleControl(
  state: FakeState,
  method: string,
  url: URL,
  raw: Buffer,
  res: ServerResponse,
): Promise<void> {
  const route = `${method} ${url.pathname}`;
  if (route === 'GET /_fake/requests') {
    const part = url.searchParams.get('path');
    return reply(res, 200, { requests: state.requests.filter((r) => part === null || r.path.includes(part)) });
  }
  if (route === 'GET /_fake/sent') return reply(res, 200, { messages: state.sent, reads: state.reads });
  if (route === 'GET /_fake/instagram/sent') return reply(res, 200, { messages: state.instagramSent });
  if (method !== 'POST') return reply(res, 404, { error: `no ${route}; see the header of test/fakes/meta/control.ts` });
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return reply(res, 400, { error: 'the body must be JSON' });
  }
  if (!isRecord(body)) return reply(res, 400, { error: 'the body must be a JSON object' });
  if (url.pathname === '/_fake/inbound') return inbound(state, body, res);
  if (url.pathname === '/_fake/status') return sendStatus(state, body, res);
  if (url.pathname === '/_fake/script') return script(state, body, res);
  if (url.pathname === '/_fake/instagram/inbound') return instagramInbound(state, body, res);
  if (url.pathname === '/_fake/instagram/comment') return instagramComment(state, body, res);
  if (url.pathname === '/_fake/instagram/script') return instagramScript(state, body, res);
  return reply(res, 404, { error: `no ${route}` });
}

/** Signs and sends `payload` to `to_webhook_url` (or the fake's webhook URL); answers what the server said. */
async function deliver(state: FakeState, payload: WebhookPayload, body: Record<string, unknown>, res: ServerResponse) {
  try {
    const result = await state.sendWebhook(payload, { url: optionalText(body.to_webhook_url) });
    return reply(res, 200, { payload, webhook: result });
  } catch (error) {
    return reply(res, 502, { payload, error: error instanceof Error ? error.message : String(error) });
  }
}

async function inbound(state: FakeState, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
  const number = numberFor(state, body);
  const from = optionalText(body.from);
  const message = optionalText(body.text);
  if (!number) return reply(res, 400, { error: 'unknown phone_number_id' });
  if (!from || !message) return reply(res, 400, { error: 'from and text are required' });
  const sender = { from, name: optionalText(body.name) };
  const contextId = optionalText(body.context_id);
  const buttonId = optionalText(body.button_id);
  if (buttonId !== undefined && contextId === undefined)
    return reply(res, 400, { error: 'a button tap needs context_id, the wamid of the message with the button' });
  const payload =
    buttonId !== undefined && contextId !== undefined
      ? buttonReply(number, { ...sender, buttonId, title: message, contextId })
      : text(number, { ...sender, text: message, contextId });
  return deliver(state, payload, body, res);
}

async function sendStatus(state: FakeState, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
  const number = numberFor(state, body);
  const messageId = optionalText(body.message_id);
  const value = body.status;
  if (!number) return reply(res, 400, { error: 'unknown phone_number_id' });
  if (!messageId) return reply(res, 400, { error: 'message_id is required' });
  if (value !== 'sent' && value !== 'delivered' && value !== 'read' && value !== 'failed')
    return reply(res, 400, { error: 'status must be sent, delivered, read or failed' });
  const recipient = optionalText(body.recipient) ?? state.recipientOf(messageId);
  if (!recipient) return reply(res, 400, { error: 'recipient is required for a message the fake did not send' });
  const code = typeof body.error_code === 'number' ? body.error_code : 131026;
  const payload = status(number, { messageId, recipient, status: value, error: { code } });
  return deliver(state, payload, body, res);
}

function script(state: FakeState, body: Record<string, unknown>, res: ServerResponse): void {
  const to = optionalText(body.to);
  const answer = body.answer;
  if (!to || !isScriptedAnswer(answer))
    return reply(res, 400, { error: `to and answer {kind: ${ANSWER_KINDS.join('|')}, …} are required` });
  state.scripts.forRecipient(to, answer, { sticky: body.sticky === true });
  return reply(res, 200, { scripted: { to, answer } });
}

/** An answer's kind and the fields each kind needs. */
function isScriptedAnswer(value: unknown): value is ScriptedAnswer {
  if (!isRecord(value) || typeof value.kind !== 'string' || !ANSWER_KINDS.includes(value.kind)) return false;
  if (value.kind === 'error' || value.kind === 'fail_later') return typeof value.code === 'number';
  if (value.kind === 'http') return typeof value.status === 'number' && typeof value.body === 'string';
  if (value.kind === 'delay')
    return typeof value.ms === 'number' && (value.then === undefined || isScriptedAnswer(value.then));
  return true;
}

/** The Instagram account a control request names (`ig_user_id`), or the fake's first. */
function accountFor(state: FakeState, body: Record<string, unknown>): FakeInstagramAccount | undefined {
  const id = optionalText(body.ig_user_id);
  return id === undefined ? state.instagramAccounts[0] : state.instagramAccount(id);
}

async function deliverInstagram(
  state: FakeState,
  payload: ig.InstagramWebhookPayload,
  body: Record<string, unknown>,
  res: ServerResponse,
): Promise<void> {
  try {
    const result = await state.sendInstagramWebhook(payload, { url: optionalText(body.to_webhook_url) });
    return reply(res, 200, { payload, webhook: result });
  } catch (error) {
    return reply(res, 502, { payload, error: error instanceof Error ? error.message : String(error) });
  }
}

async function instagramInbound(state: FakeState, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
  const account = accountFor(state, body);
  const from = optionalText(body.from);
  const message = optionalText(body.text);
  if (!account) return reply(res, 400, { error: 'unknown ig_user_id' });
  if (!from || !message) return reply(res, 400, { error: 'from (an IGSID) and text are required' });
  const postbackPayload = optionalText(body.postback_payload);
  const quickReplyPayload = optionalText(body.quick_reply_payload);
  const payload =
    postbackPayload !== undefined
      ? ig.postback(account, { from, title: message, payload: postbackPayload })
      : quickReplyPayload !== undefined
        ? ig.quickReply(account, { from, text: message, payload: quickReplyPayload })
        : ig.text(account, { from, text: message, replyToMid: optionalText(body.reply_to_mid) });
  return deliverInstagram(state, payload, body, res);
}

async function instagramComment(state: FakeState, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
  const account = accountFor(state, body);
  const from = optionalText(body.from);
  const username = optionalText(body.username);
  if (!account) return reply(res, 400, { error: 'unknown ig_user_id' });
  if (!from || !username) return reply(res, 400, { error: 'from (an IGSID) and username are required' });
  const input = {
    from: { id: from, username },
    text: optionalText(body.text),
    commentId: optionalText(body.comment_id),
    mediaId: optionalText(body.media_id),
  };
  const payload = body.live === true ? ig.liveComment(account, input) : ig.comment(account, input);
  return deliverInstagram(state, payload, body, res);
}

function instagramScript(state: FakeState, body: Record<string, unknown>, res: ServerResponse): void {
  const recipient = optionalText(body.recipient);
  const answer = body.answer;
  if (!recipient || !isScriptedAnswer(answer))
    return reply(res, 400, { error: `recipient and answer {kind: ${ANSWER_KINDS.join('|')}, …} are required` });
  state.scripts.forInstagram(recipient, answer, { sticky: body.sticky === true });
  return reply(res, 200, { scripted: { recipient, answer } });
}
