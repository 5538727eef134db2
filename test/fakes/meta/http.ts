// The fake's HTTP plumbing: a request body read up to a bound, a JSON answer as the Graph API sends it, and a
// webhook POST whose answer is read up to a bound too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphAnswer } from './graph-errors.js';
import type { WebhookResult } from './types.js';

/** The body, or `too_large` once more than `max` bytes came (the rest is not read). */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.pause();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A JSON answer with Meta's content type. */
export function sendAnswer(res: ServerResponse, answer: GraphAnswer): void {
  if (res.headersSent || res.destroyed) return;
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(body),
    ...answer.headers,
  });
  res.end(body);
}

/** Meta's answer to a body past the bound. */
export const TOO_LARGE: GraphAnswer = {
  status: 413,
  body: { error: { message: 'Request Entity Too Large', type: 'OAuthException', code: 1, fbtrace_id: 'fake' } },
};

/** The answer's text, cut at `max` bytes (a server that answers a webhook with a novel is not read whole). */
async function readBounded(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size >= max) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** POST `bytes` to `url` with `headers`; the server's status and (bounded) answer. */
export async function postBytes(
  url: string,
  bytes: Buffer,
  headers: Record<string, string>,
  timeoutMs = 10_000,
): Promise<WebhookResult> {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: bytes,
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, body: await readBounded(response, 64 * 1024) };
}
