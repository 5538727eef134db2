// Variables of automation texts (Part B, "Variables"): `{name}` substitution, the value a `data` block writes
// (`$input`, `$timestamp`, `$`-prefixed values), and the formatting of the computed variables (`contact.tags`,
// `system.*`, `conversation.*`). Pure: the clock and the stored values come in as arguments.
import { isVariableName, VARIABLE_NAME_PATTERN } from '../../domain/workflows/variable-names.js';
import { formatDay, formatTime, zonedParts } from './values.js';

/** Looks a variable up: undefined = unknown (becomes ''), null = known without value (becomes the text 'null'). */
export type VariableLookup = (name: string) => string | null | undefined;

/** A variable name (domain/workflows/variable-names.ts) between braces. */
const VARIABLE_RE = new RegExp(`\\{(${VARIABLE_NAME_PATTERN})\\}`, 'g');

/** The text a variable becomes: its value, '' when unknown, 'null' when known without a value. */
export function variableText(name: string, lookup: VariableLookup): string {
  const value = lookup(name);
  if (value === undefined) return '';
  if (value === null) return 'null';
  return value;
}

/**
 * `{name}` substitution per Part B: names of letters without accents, digits, `_`, `.`, `-`, no spaces, case
 * matters; text not shaped like a variable stays as is (`{}`, `{ name }`, `{café}`, a lone `{`).
 *
 * One pass, left to right: a substituted value is never read again, so a value that itself contains `{x}`
 * (a contact's name, a message) shows literally. In `{a{b}}` only `{b}` is shaped like a variable; the outer
 * braces stay. Adjacent variables `{a}{b}` are both substituted.
 */
export function substitute(text: string, lookup: VariableLookup): string {
  return text.replace(VARIABLE_RE, (_whole, name: string) => variableText(name, lookup));
}

/**
 * The value a `data` block writes, or null to clear the contact's value:
 *
 * - no `value`, or an empty one (validation accepts it) → null, clear;
 * - exactly `$input` → the text of the current message (`ctx.input`; null, clear, when there is none);
 * - exactly `$timestamp` → milliseconds since 1970 UTC, `String(nowMs)` (whole milliseconds);
 * - any other value starting with `$` is read as a variable whose name is the rest: `$contact.name` writes the
 *   contact's name, and `$10.00` (a price with a leading dollar) writes '' because `10.00` is unknown; a rest
 *   not shaped like a variable name (`$ 10`) also writes '';
 * - otherwise the value with its `{name}` variables substituted.
 *
 * Case matters: `$Input` is the (unknown) variable `Input`.
 */
export function dataValue(
  value: string | undefined,
  ctx: { input: string | null; nowMs: number },
  lookup: VariableLookup,
): string | null {
  if (value === undefined || value === '') return null;
  if (value === '$input') return ctx.input;
  if (value === '$timestamp') return String(Math.trunc(ctx.nowMs));
  if (value.startsWith('$')) {
    const name = value.slice(1);
    return isVariableName(name) ? variableText(name, lookup) : '';
  }
  return substitute(value, lookup);
}

/** Orders two strings by Unicode code point (not UTF-16 code unit), as a byte-wise (C collation) sort does. */
function compareCodePoints(a: string, b: string): number {
  // Array.from splits by code point, so each part is one character and has one (the 0 is never taken).
  const x = Array.from(a, (character) => character.codePointAt(0) ?? 0);
  const y = Array.from(b, (character) => character.codePointAt(0) ?? 0);
  for (const [i, cx] of x.entries()) {
    const cy = y[i];
    if (cy === undefined) break;
    if (cx !== cy) return cx - cy;
  }
  return x.length - y.length;
}

/**
 * `contact.tags`: the tag names joined by ', ' in character-code order (Unicode code points: uppercase before
 * lowercase, accented letters after `z`), a name repeated in the input listed once; '' without tags.
 */
export function joinTags(names: readonly string[]): string {
  return [...new Set(names)].sort(compareCodePoints).join(', ');
}

/**
 * `system.current_date` (dd/MM/yyyy), `system.current_time` (HH:mm:ss, 24-hour) and `system.current_datetime`
 * (both, separated by a space) of `now` in the account's IANA time zone. An unknown time zone reads as UTC.
 */
export function systemVariables(
  now: Date,
  timeZone: string,
): Record<'system.current_date' | 'system.current_time' | 'system.current_datetime', string> {
  const parts = zonedParts(now, timeZone);
  const date = formatDay(parts);
  const time = formatTime(parts);
  return { 'system.current_date': date, 'system.current_time': time, 'system.current_datetime': `${date} ${time}` };
}

const MINUTE_MS = 60_000;
const CONVERSATION_WINDOWS = [
  { name: 'conversation.last_30m', ms: 30 * MINUTE_MS, cap: 50 },
  { name: 'conversation.last_1h', ms: 60 * MINUTE_MS, cap: 75 },
  { name: 'conversation.last_24h', ms: 24 * 60 * MINUTE_MS, cap: 100 },
] as const;

/**
 * `conversation.last_30m`, `last_1h` and `last_24h`: the messages of the window, oldest first, one per line
 * (lines joined by '\n', no final line break; '' when the window holds none).
 *
 * Line format: `<UTC timestamp> <Contact|Agent>: <text>`, the timestamp in ISO 8601 to the second with `Z`
 * (`2026-11-26T14:05:09Z Contact: hi`). `Agent` is anything the account sent (team or automation).
 *
 * - A message belongs to a window when `now - window <= at <= now` (the start included; later ones left out).
 * - Messages without text (null, or only white space) are left out before counting the caps.
 * - Only the most recent 50, 75 and 100 of each window are kept, then listed oldest first. Messages at the
 *   same instant keep their input order.
 * - A run of line breaks inside a text becomes one space, so every message stays on one line.
 * - A message whose `at` is not a date is left out.
 */
export function conversationVariables(
  messages: ReadonlyArray<{ at: string; fromContact: boolean; text: string | null }>,
  now: Date,
): Record<'conversation.last_30m' | 'conversation.last_1h' | 'conversation.last_24h', string> {
  const nowMs = now.getTime();
  const usable = messages
    .map((message, index) => ({ message, index, atMs: Date.parse(message.at) }))
    .filter(({ message, atMs }) => !Number.isNaN(atMs) && message.text !== null && message.text.trim() !== '')
    .filter(({ atMs }) => atMs <= nowMs)
    .sort((a, b) => a.atMs - b.atMs || a.index - b.index);
  const lines = (window: (typeof CONVERSATION_WINDOWS)[number]): string =>
    usable
      .filter(({ atMs }) => atMs >= nowMs - window.ms)
      .slice(-window.cap)
      .map(({ message, atMs }) => {
        const stamp = new Date(atMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
        const text = (message.text ?? '').replace(/[\r\n\u2028\u2029]+/g, ' ');
        return `${stamp} ${message.fromContact ? 'Contact' : 'Agent'}: ${text}`;
      })
      .join('\n');
  const [last30m, last1h, last24h] = CONVERSATION_WINDOWS;
  return { [last30m.name]: lines(last30m), [last1h.name]: lines(last1h), [last24h.name]: lines(last24h) };
}
