// The component tests' checks of an HTTP answer: its status and parsed body, the error envelope, and a message's
// attachment read as the kind it must be.
import { expect } from 'vitest';
import type { components, SchemaCardsAttachment, SchemaMediaAttachment, SchemaMessage } from '../../generated/api.js';

type Schemas = components['schemas'];
/** Every error answer the spec names: the schemas whose `type` is `error`. */
type ErrorSchema = Extract<Schemas[keyof Schemas], { type: 'error' }>;
/**
 * The error envelope (Part A, Errors) as a test reads it before knowing the code: `type` and `message` as every
 * error schema has them, and the context of any code (a test that knows the code reads that schema instead).
 */
export type ErrorBody = Pick<ErrorSchema, 'type' | 'message'> & { context: Record<string, unknown> };

/** The parsed body of a response that must answer `status` (200 unless told); a wrong status shows the body. */
export async function json<T>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/**
 * The whole error envelope of a response that must answer `status`: `type` error, a message (for humans and may
 * change, so only its presence is checked) and exactly `context` — or what an asymmetric matcher in its place
 * accepts, e.g. `expect.objectContaining({ code })`. Returns the body.
 */
export async function expectError(res: Response, status: number, context: Record<string, unknown>): Promise<ErrorBody> {
  const body = await json<ErrorBody>(res, status);
  expect(body).toEqual({ type: 'error', message: expect.any(String), context });
  expect(body.message).not.toBe('');
  return body;
}

/** The message's first attachment, which must be media (its url, media_id, expires_at): otherwise the test fails. */
export function firstMedia(message: SchemaMessage): SchemaMediaAttachment {
  const [attachment] = message.attachments;
  if (attachment === undefined || attachment.type === 'cards')
    throw new Error(`the first attachment is not media: ${JSON.stringify(message.attachments)}`);
  return attachment;
}

/** The message's first attachment, which must be cards: otherwise the test fails. */
export function firstCards(message: SchemaMessage): SchemaCardsAttachment {
  const [attachment] = message.attachments;
  if (attachment?.type !== 'cards')
    throw new Error(`the first attachment is not cards: ${JSON.stringify(message.attachments)}`);
  return attachment;
}
