// The request a piece of work runs for, kept across awaits and callbacks (AsyncLocalStorage). The request-id
// middleware sets it; the process-level handlers of main.ts read it, so an unhandled rejection or exception
// that comes from serving a request is logged with that request's id.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

/** The id of the request the current code runs for, if any. */
export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;
