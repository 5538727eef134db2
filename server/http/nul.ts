// PostgreSQL text cannot hold U+0000, so a NUL character anywhere in the body or the query would fail deep in
// the store as a 500. Refuse it up front, next to the format check, as the 400 it is.
import type { NextFunction, Request, Response } from 'express';

function findNul(value: unknown, pointer: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? pointer : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${pointer}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const here = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (key.includes('\u0000')) return here;
      const found = findNul(item, here);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export function refuseNulCharacters(req: Request, _res: Response, next: NextFunction): void {
  const at = findNul(req.query, '/query') ?? findNul(req.body, '/body');
  if (at === undefined) return next();
  // The same shape as the validator's errors, so the error middleware builds the same 400 envelope.
  next({ status: 400, errors: [{ path: at, message: 'must not contain the NUL character (U+0000)' }] });
}
