// Sends a handler's result: every success carries `Cache-Control: no-store` (Part A), then its own headers.
import type { Response } from 'express';

export interface Result {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function sendResult(res: Response, result: Result): void {
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  if (result.body === undefined) res.status(result.status).end();
  else res.status(result.status).json(result.body);
}
