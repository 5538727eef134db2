// Plays an arranged answer (types.ts `ScriptedAnswer`) on a response: a Meta error, any HTTP answer, a 200 without
// `messages[0].id`, a delay, a connection reset (before or in the middle of the answer), or the usual answer,
// optionally followed by a `failed` status webhook (accepted, then failed later).
import type { ServerResponse } from 'node:http';
import { graphError, type GraphAnswer } from './graph-errors.js';
import { sendAnswer } from './http.js';
import type { FakeState, SentMessage } from './state.js';
import type { ScriptedAnswer } from './types.js';
import { status } from './webhooks.js';

/** The answer the fake gives when nothing was arranged, and the message it accepted with it (a send). */
export interface Usual {
  answer: GraphAnswer;
  accepted?: { message: SentMessage; number: Parameters<typeof status>[0] };
}

/** Answers `res` with `answer` (the usual one when undefined); `usual` runs only when the request is accepted. */
export function play(
  state: FakeState,
  res: ServerResponse,
  answer: ScriptedAnswer | undefined,
  usual: () => Usual,
): void {
  if (answer === undefined || answer.kind === 'accept') return sendAnswer(res, usual().answer);
  switch (answer.kind) {
    case 'error':
      return sendAnswer(res, graphError(answer));
    case 'http':
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/html; charset=utf-8' });
      res.end(answer.body);
      return;
    case 'no_message_id':
      return sendAnswer(res, { status: 200, body: { messaging_product: 'whatsapp', contacts: [], messages: [] } });
    case 'delay':
      return state.later(answer.ms, () => play(state, res, answer.then, usual));
    case 'reset':
      return reset(res, answer.midAnswer !== false);
    case 'fail_later':
      return failLater(state, res, answer, usual());
  }
}

/** Resets the connection: after the status line and part of a JSON body (`midAnswer`), or before any byte. */
function reset(res: ServerResponse, midAnswer: boolean): void {
  const socket = res.socket;
  if (!socket) return;
  if (!midAnswer) {
    socket.resetAndDestroy();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': 400 });
  res.write('{"messaging_product":"whatsapp","contacts":[{"input":', () =>
    setTimeout(() => socket.resetAndDestroy(), 20),
  );
}

function failLater(
  state: FakeState,
  res: ServerResponse,
  answer: Extract<ScriptedAnswer, { kind: 'fail_later' }>,
  usual: Usual,
): void {
  sendAnswer(res, usual.answer);
  const accepted = usual.accepted;
  if (!accepted) return;
  const { code, title, message, details } = answer;
  const payload = status(accepted.number, {
    messageId: accepted.message.id,
    recipient: accepted.message.to,
    status: 'failed',
    error: { code, title, message, details },
  });
  state.later(answer.afterMs ?? 20, () => state.sendWebhook(payload));
}
