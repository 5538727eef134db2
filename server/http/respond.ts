// Sends a handler's result: every success carries `Cache-Control: no-store` (Part A), then its own headers.
import type { Express, Response } from 'express';

export interface Result {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function sendResult(res: Response, result: Result): void {
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  res.statusCode = result.status;
  if (result.body === undefined) res.end();
  else res.json(result.body);
}

/**
 * Express's `res.json` for this app, without the work its `send` does at every answer that this API never needs:
 * re-reading the app's JSON settings, parsing the Content-Type it just set to add the charset, the ETag and
 * freshness checks (ETags are off; every success is `no-store`). The bytes and headers are Express's:
 * `application/json; charset=utf-8` and the Content-Length. An answer with its own Content-Type, a 204 or 304, or
 * no body goes through Express's own.
 */
export function sendJsonDirectly(app: Express): void {
  const expressJson = app.response.json;
  app.response.json = function json(this: Response, body?: unknown) {
    const text = body === undefined ? undefined : JSON.stringify(body);
    if (text === undefined || this.hasHeader('Content-Type') || this.statusCode === 204 || this.statusCode === 304)
      return expressJson.call(this, body);
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', Buffer.byteLength(text));
    // A HEAD request's answer drops the body here (Node knows the method it came with).
    this.end(text);
    return this;
  };
}
