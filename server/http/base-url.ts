// The absolute base of the links the API hands out (attachment urls, upload and download links):
// PUBLIC_BASE_URL when set (behind a proxy or a load balancer), else the address the request came to. The
// Host header is the client's to choose and such links end up in stored messages and events, so production
// requires PUBLIC_BASE_URL (config.ts) and never falls back to it.
import type { Request } from 'express';
import type { AppContext } from './context.js';
import { trimEnd } from '../text.js';

export function publicBaseUrl(app: AppContext, req: Request): string {
  return trimEnd(app.config.publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`, '/');
}
