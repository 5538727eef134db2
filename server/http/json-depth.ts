// How deep a JSON body may nest. A deeper one is refused on its raw bytes, before JSON.parse and before anything
// walks it (a recursive walk of a body nested thousands deep overflows the stack: a 500 for a client's mistake).
// The scan is a loop over the bytes, not a recursion: brackets inside strings do not count. Multi-byte UTF-8
// characters never contain the bytes of `"`, `\`, `[`, `]`, `{` or `}`.

/** The deepest a JSON body may nest: the body itself is level 1 (documented in the spec, Part A "Limits"). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]);
const CLOSE = new Set([0x5d, 0x7d]);

/** Whether the JSON text in `bytes` nests deeper than `max` (malformed text is the parser's to refuse). */
export function nestsDeeperThan(bytes: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const byte of bytes) {
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === BACKSLASH) escaped = true;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (OPEN.has(byte)) {
      if (++depth > max) return true;
    } else if (CLOSE.has(byte)) depth--;
  }
  return false;
}

/** The body parser's error for a body nested too deep (its `type` names it for the error middleware). */
export class TooDeepError extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';
  constructor() {
    super(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
}

/** express.json's `verify`: refuses a body nested too deep before it is parsed. */
export function refuseDeepJson(_req: unknown, _res: unknown, bytes: Buffer): void {
  if (nestsDeeperThan(bytes)) throw new TooDeepError();
}
