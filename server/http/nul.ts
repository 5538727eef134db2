// PostgreSQL text cannot hold U+0000, and jsonb refuses a lone UTF-16 surrogate (JSON allows the escape
// "\ud800", but it is no Unicode character: the store would fail deep down as a 500, or after a send the
// channel already took). Refuse both up front, next to the format check, as the 400 they are.
import type { NextFunction, Request, Response } from 'express';

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a string the store cannot hold, or undefined. */
function problem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it has a lone UTF-16 surrogate)';
  return undefined;
}

interface Found {
  pointer: string;
  message: string;
}

function find(value: unknown, pointer: string): Found | undefined {
  if (typeof value === 'string') {
    const message = problem(value);
    return message === undefined ? undefined : { pointer, message };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = find(value[i], `${pointer}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const here = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const message = problem(key);
      if (message !== undefined) return { pointer: here, message };
      const found = find(item, here);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export function refuseNulCharacters(req: Request, _res: Response, next: NextFunction): void {
  // No '?': no query to look at (Express 5 would parse the empty one at this read).
  const found = (req.url.includes('?') ? find(req.query, '/query') : undefined) ?? find(req.body, '/body');
  if (found === undefined) return next();
  // The same shape as the validator's errors, so the error middleware builds the same 400 envelope.
  next({ status: 400, errors: [{ path: found.pointer, message: found.message }] });
}
