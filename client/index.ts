// Typed client of the Engagement Platform API, on openapi-fetch, typed by generated/api.ts.
//
//   const api = createClient({ baseUrl: 'http://127.0.0.1:4010', apiKey: process.env.API_KEY! });
//   const { data, error, response } = await api.GET('/v1/contacts', { params: { query: { limit: 100 } } });
//   if (error) console.error(error.context?.code); else for (const c of data.data) console.log(c.id);
//
// Server-to-server only: never ship an API key to a browser or a mobile app.
import { randomUUID } from 'node:crypto';
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import { operations, type OperationInfo } from '../generated/operations.js';

export type { components, paths, webhooks } from '../generated/api.js';
export { operations, type OperationId } from '../generated/operations.js';
export * from './webhooks.js';
// The automation blocks: `Block<'buttons'>`, `BlockData<'message'>`, `GraphNodes`, and the catalog's version.
export * from '../generated/block-catalog.js';

export type ApiClient = Client<paths, 'application/json'>;

export interface ClientConfig {
  /** Base address, without `/v1` (`https://api.engagement.example`, or the mock `http://127.0.0.1:4010`). */
  baseUrl: string;
  /** The API key; sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /**
   * Fill `Idempotency-Key` with a random UUID on routes that take one, when the call gives none. Default true.
   * To make your own retries safe, pass your own key and reuse it for the retry.
   */
  autoIdempotencyKey?: boolean;
  /** Extra headers sent on every call. */
  headers?: Record<string, string>;
  /** A fetch implementation (default: the global one). */
  fetch?: (input: Request) => Promise<Response>;
}

const byRoute = new Map<string, OperationInfo>(
  Object.values(operations).map((op: OperationInfo) => [`${op.method.toUpperCase()} ${op.path}`, op]),
);

/** The operation (scope, rate kind, idempotency) a request goes to, from its schema path. */
export function operationFor(method: string, schemaPath: string): OperationInfo | undefined {
  return byRoute.get(`${method.toUpperCase()} ${schemaPath}`);
}

export function createClient(config: ClientConfig): ApiClient {
  const client = createFetchClient<paths, 'application/json'>({
    baseUrl: config.baseUrl.replace(/(?<!\/)\/+$/, ''),
    headers: { ...config.headers, Authorization: `Bearer ${config.apiKey}` },
    ...(config.fetch ? { fetch: config.fetch } : {}),
  });
  if (config.autoIdempotencyKey ?? true) {
    const idempotency: Middleware = {
      onRequest({ request, schemaPath }) {
        const op = operationFor(request.method, schemaPath);
        if (op && op.idempotency !== 'none' && !request.headers.has('Idempotency-Key')) {
          request.headers.set('Idempotency-Key', randomUUID());
        }
        return request;
      },
    };
    client.use(idempotency);
  }
  return client;
}

/** The error envelope of the API: `{type: "error", message, context: {code, …}}` (a 400 has no `code`). */
export interface ApiErrorBody {
  type: 'error';
  message: string;
  context: { code?: string; [extra: string]: unknown };
}

/** True when `body` is the API's error envelope (gateway answers carry only `message` and are not). */
export function isApiError(body: unknown): body is ApiErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return b.type === 'error' && typeof b.message === 'string' && typeof b.context === 'object' && b.context !== null;
}

/** `context.code` of an error body, when it has one. Decide on it, never on `message`. */
export function errorCode(body: unknown): string | undefined {
  return isApiError(body) && typeof body.context.code === 'string' ? body.context.code : undefined;
}
