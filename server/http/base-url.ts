// The absolute base of the links the API hands out (attachment urls, upload and download links):
// PUBLIC_BASE_URL when set (behind a proxy or a load balancer), else the address the request came to.
import type { Request } from 'express';
import type { AppContext } from './context.js';

export function publicBaseUrl(app: AppContext, req: Request): string {
  return (app.config.publicBaseUrl ?? `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`).replace(/\/+$/, '');
}
