// What both real-channel examples (whatsapp-cloud.ts, instagram.ts) share: the fake Graph API's control endpoints
// (`npm run fake:meta`, test/fakes/meta/control.ts), what the server answered a webhook the fake posted, and the
// envelope of an event the example's receiver accepted.
import type { ReceivedRequest } from './webhook-receiver.js';

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An accepted event's envelope (`data` is the resource, here a Message). */
export function envelopeOf(request: ReceivedRequest): { type: string; data: Record<string, unknown> } | undefined {
  const parsed: unknown = JSON.parse(request.body);
  if (!isRecord(parsed) || typeof parsed.type !== 'string' || !isRecord(parsed.data)) return undefined;
  return { type: parsed.type, data: parsed.data };
}

/** The fake's control endpoints (test/fakes/meta/control.ts): JSON in, JSON out. */
export function fakeControl(fakeUrl: string) {
  const url = fakeUrl.replace(/(?<!\/)\/+$/, '');
  return async (path: string, body?: Record<string, unknown>): Promise<Record<string, unknown>> => {
    let response: Response;
    try {
      response = await fetch(`${url}/_fake/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new Error(`cannot reach the fake Graph API at ${url}: is npm run fake:meta running? (FAKE_META_URL)`);
    }
    const parsed: unknown = await response.json().catch(() => undefined);
    if (!response.ok || !isRecord(parsed))
      throw new Error(`the fake answered ${response.status} to /_fake/${path}: ${JSON.stringify(parsed)}`);
    return parsed;
  };
}

/** What the server answered a webhook the fake signed and posted; a refusal says which setting is off. */
export function webhookStatusOf(answer: Record<string, unknown>, webhookUrl: string): number {
  const result = answer.webhook;
  const status = isRecord(result) && typeof result.status === 'number' ? result.status : 0;
  if (status === 404)
    throw new Error(`${webhookUrl} answered 404: start the server with META_APP_SECRET (the fake's app secret)`);
  if (status === 401)
    throw new Error(`${webhookUrl} refused the signature (401): the server's META_APP_SECRET is not the fake's`);
  if (status !== 200) throw new Error(`${webhookUrl} answered ${status || JSON.stringify(answer)}`);
  return status;
}
