// What every example does with an answer of the typed client: the data, or a failure named by the API's error
// code, which is what a program decides on (never the message).
import { errorCode, type ApiClient } from '../client/index.js';

export function check<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined)
    throw new Error(`${what}: ${result.response.status} ${errorCode(result.error) ?? JSON.stringify(result.error)}`);
  return result.data;
}

/** The server the examples talk to: BASE_URL, or the address `npm start` prints. */
export const baseUrl = (): string => process.env.BASE_URL ?? 'http://127.0.0.1:3000';

const SETTINGS = {
  API_KEY: 'API_KEY to the key `npm start` printed',
  ADMIN_TOKEN: 'ADMIN_TOKEN to the admin token (data/admin-token)',
} as const;

/** The settings an example reads from the environment; without one, one line saying what to set, and exit 2. */
export function settings<N extends keyof typeof SETTINGS>(...names: N[]): Record<N, string> {
  const values: Partial<Record<N, string>> = {};
  for (const name of names) values[name] = process.env[name];
  if (names.some((name) => !values[name])) {
    console.error(
      `Set ${names.map((name) => SETTINGS[name]).join(' and ')}; ` +
        `BASE_URL to the server's address if it is not http://127.0.0.1:3000.`,
    );
    process.exit(2);
  }
  return values as Record<N, string>;
}

// What fetch's error carries (in `cause`, or in an AggregateError's `errors`) when nothing answers there.
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);

function unreachable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && UNREACHABLE.has(code)) return true;
  return (
    unreachable(cause, depth + 1) || (Array.isArray(errors) && errors.some((e: unknown) => unreachable(e, depth + 1)))
  );
}

/** Runs an example's command line: a server that is not there is one line and exit 1, not a stack. */
export async function runExample(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (!unreachable(error)) throw error;
    console.error(`cannot reach the server at ${baseUrl()}: is npm start running?`);
    process.exit(1);
  }
}

/**
 * Validates the saved draft of automation `workflowId` and publishes exactly the revision that validation checked
 * (`If-Match`): an edit in between makes the publish fail instead of putting something unchecked live. An invalid
 * draft throws with its errors.
 */
export async function publishValidated(api: ApiClient, workflowId: string) {
  const checked = check(
    await api.POST('/v1/workflows/{workflowId}/validate', { params: { path: { workflowId } } }),
    'validate',
  );
  if (!checked.valid) throw new Error(`invalid: ${checked.errors.map((e) => `${e.code} at ${e.path}`).join(', ')}`);
  return check(
    await api.POST('/v1/workflows/{workflowId}/publish', {
      params: { path: { workflowId }, header: { 'If-Match': `"${checked.revision}"` } },
    }),
    'publish',
  );
}

/** Deletes the automations on `connectionId` that an earlier run of an example left (they carry `description`). */
export async function deleteWorkflowsDescribed(api: ApiClient, connectionId: string, description: string) {
  const earlier = check(
    await api.GET('/v1/workflows', { params: { query: { connection_id: connectionId, limit: 100 } } }),
    'list automations',
  );
  for (const old of earlier.data)
    if (old.description === description)
      check(await api.DELETE('/v1/workflows/{workflowId}', { params: { path: { workflowId: old.id } } }), 'delete');
}
