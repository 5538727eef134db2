// The one error type of the service. A handler or service throws ApiError; the error middleware turns it
// into the envelope `{type: "error", message, context: {code, ...extras}}` of Part A.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extras: Record<string, unknown> = {},
    /** Extra response headers (Retry-After on 429…). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): { type: 'error'; message: string; context: Record<string, unknown> } {
    return { type: 'error', message: this.message, context: { code: this.code, ...this.extras } };
  }
}

/**
 * A gateway answer: a body holding only `message` (401 for a missing, unknown, revoked or expired key or admin
 * token). Thrown by server/http/ only; the gateway's 403 is `noApiAccess`, which the domain throws too.
 */
export class GatewayError extends Error {
  constructor(
    readonly status: 401 | 403,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

/**
 * 403 for an account without access to the API: the gateway refuses its keys (http/auth.ts), and a service that a
 * cached key still reaches refuses a suspended account. The HTTP layer answers it as the gateway does: only
 * `message`.
 */
export const noApiAccess = () => new ApiError(403, 'no_api_access', 'This account has no access to the API.');
export const notFound = (message = 'No such resource.') => new ApiError(404, 'not_found', message);
export const serviceUnavailable = (message = 'The service could not guarantee the request. Nothing ran; retry.') =>
  new ApiError(503, 'service_unavailable', message);
