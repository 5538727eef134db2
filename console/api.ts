// The page's two clients, typed by the generated spec types: the admin API with the admin token, and the
// public API with a key the page creates for the chosen account through the admin API (kept for this browser
// tab only). Every change the page makes goes through one of them: it has no route of its own.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components as adminComponents, paths as adminPaths } from '../generated/admin-api.js';
import type { components, paths } from '../generated/api.js';
import { operations, SCOPES, type OperationInfo } from '../generated/operations.js';

export type Schemas = components['schemas'];
export type AdminSchemas = adminComponents['schemas'];
export type Api = Client<paths, 'application/json'>;
export type AdminApi = Client<adminPaths, 'application/json'>;

/** What a refusal shows beside its form: the API's `context.code` (when it has one) and message. */
export interface Problem {
  code: string | undefined;
  message: string;
  status: number | undefined;
}

export function problemOf(error: unknown, response?: Response): Problem {
  const status = response?.status;
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
    const context = 'context' in error ? error.context : undefined;
    const code =
      typeof context === 'object' && context !== null && 'code' in context && typeof context.code === 'string'
        ? context.code
        : undefined;
    return { code, message: `${error.message}${detailsOf(context)}`, status };
  }
  return { code: undefined, message: error instanceof Error ? error.message : String(error), status };
}

/** A validation refusal's `context.details`, said after its message: which field, and what is wrong with it. */
function detailsOf(context: unknown): string {
  if (typeof context !== 'object' || context === null || !('details' in context) || !Array.isArray(context.details))
    return '';
  const said = context.details.flatMap((d: unknown) => {
    if (typeof d !== 'object' || d === null || !('message' in d) || typeof d.message !== 'string') return [];
    const where = 'path' in d && typeof d.path === 'string' ? d.path : 'location' in d ? String(d.location) : '';
    return [where ? `${where}: ${d.message}` : d.message];
  });
  return said.length > 0 ? ` (${said.join('; ')})` : '';
}

/** Thrown by `ok` for a refused call; the forms show its problem. */
export class ApiProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.code ? `${problem.code}: ${problem.message}` : problem.message);
  }
}

/** The data of an openapi-fetch answer, or an ApiProblem with the API's error. */
export function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error !== undefined || answer.data === undefined)
    throw new ApiProblem(problemOf(answer.error ?? { message: `HTTP ${answer.response.status}` }, answer.response));
  return answer.data;
}

const byRoute = new Map<string, OperationInfo>(
  Object.values(operations).map((op: OperationInfo) => [`${op.method.toUpperCase()} ${op.path}`, op]),
);

/** A fresh Idempotency-Key on the public routes that take one (as the typed client in client/ does). */
const idempotency: Middleware = {
  onRequest({ request, schemaPath }) {
    const op = byRoute.get(`${request.method.toUpperCase()} ${schemaPath}`);
    if (op && op.idempotency !== 'none' && !request.headers.has('Idempotency-Key'))
      request.headers.set('Idempotency-Key', crypto.randomUUID());
    return request;
  },
};

export function adminClient(token: string): AdminApi {
  return createClient<adminPaths, 'application/json'>({
    baseUrl: location.origin,
    headers: { Authorization: `Bearer ${token}` },
  });
}

export function publicClient(key: string): Api {
  const client = createClient<paths, 'application/json'>({
    baseUrl: location.origin,
    headers: { Authorization: `Bearer ${key}` },
  });
  client.use(idempotency);
  return client;
}

const KEY_NAME = 'Sandbox console (browser tab)';

/**
 * The public API key of this tab for `accountId`: made through the admin API (every scope, the shortest
 * validity) and kept in the tab's session storage, so a reload does not make another.
 */
export async function sessionKey(admin: AdminApi, accountId: string): Promise<string> {
  const stored = sessionStorage.getItem(`console-key:${accountId}`);
  // A key kept from before may be gone (revoked, or the database was reset): then a new one.
  if (stored && (await publicClient(stored).GET('/v1/me')).response.status !== 401) return stored;
  const created = ok(
    await admin.POST('/admin/v1/accounts/{accountId}/keys', {
      params: { path: { accountId } },
      body: { name: KEY_NAME, scopes: [...SCOPES], validity_days: 30 },
    }),
  );
  sessionStorage.setItem(`console-key:${accountId}`, created.secret);
  return created.secret;
}
