// Reading an untrusted JSON value with bounds, for Meta's webhooks (whatsapp-cloud/decode.ts, instagram/decode.ts):
// every string has a maximum length, every list a shared item budget, and an item that does not fit is skipped with
// its path and a reason. Skip is thrown inside one item and caught at that item: nothing leaves a decoder.
import { isRecord } from '../../guards.js';
import { longerThan } from '../../text.js';

/** Bounds every Meta decoder shares (characters are code points). */
export const READ_LIMITS = {
  /** Array items read per payload, every list together. */
  items: 1000,
  /** A type, a code, an emoji, an action: anything shown as a word. */
  word: 64,
} as const;

/** Why an item is not read: thrown inside one item, caught at that item (never out of the decoder). */
export class Skip extends Error {}

/** A JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Record<string, unknown> => isRecord(value) && !Array.isArray(value);

export function objectAt(value: unknown, where: string): Record<string, unknown> {
  if (!isObject(value)) throw new Skip(`${where}: not an object`);
  return value;
}

/** A non-empty string of at most `max` characters. */
export function stringAt(value: unknown, where: string, max: number): string {
  if (typeof value !== 'string' || value === '') throw new Skip(`${where}: not a non-empty string`);
  if (longerThan(value, max)) throw new Skip(`${where}: longer than ${max} characters`);
  return value;
}

/** Like stringAt, but absent, null or empty is null. */
export const optionalStringAt = (value: unknown, where: string, max: number): string | null =>
  value === undefined || value === null || value === '' ? null : stringAt(value, where, max);

/** The latest second an ISO date can show (9999-12-31T23:59:59Z). */
const MAX_UNIX_SECONDS = 253_402_300_799;

/** Meta's unix seconds (a string of digits, or a number) as an ISO date. */
export function unixSecondsAt(value: unknown, where: string): string {
  const digits = typeof value === 'string' && value.length <= 12 && /^\d+$/.test(value);
  const seconds = digits ? Number(value) : typeof value === 'number' ? value : Number.NaN;
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > MAX_UNIX_SECONDS)
    throw new Skip(`${where}: not unix seconds`);
  return new Date(seconds * 1000).toISOString();
}

/**
 * Meta's time as an ISO date: unix seconds (whatsapp, a string of digits or a number) or unix milliseconds (the
 * Messenger platform's `timestamp`, instagram's). A number of 1e11 or more is milliseconds: as seconds it would lie
 * past the year 5000, as milliseconds it is after 1973.
 */
export function unixTimeAt(value: unknown, where: string): string {
  const digits = typeof value === 'string' && value.length <= 15 && /^\d+$/.test(value);
  const number = digits ? Number(value) : typeof value === 'number' ? value : Number.NaN;
  const seconds = number >= 1e11 ? number / 1000 : number;
  if (!Number.isSafeInteger(number) || number < 0 || seconds > MAX_UNIX_SECONDS)
    throw new Skip(`${where}: not unix seconds or milliseconds`);
  return new Date(number >= 1e11 ? number : number * 1000).toISOString();
}

/** `value` when it is a non-empty string of at most READ_LIMITS.word characters (a type, a code), else null. */
export const wordOf = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' && !longerThan(value, READ_LIMITS.word) ? value : null;

/** `text` cut to at most `max` characters, never inside a surrogate pair. */
export function clip(text: string, max: number): string {
  if (!longerThan(text, max)) return text;
  let end = 0;
  for (let count = 0; count < max; count += 1) {
    const code = text.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff && end + 1 < text.length ? 2 : 1;
  }
  return text.slice(0, end);
}

/** A value for a reason: short strings quoted, anything else named by its kind (the reason is logged). */
export const shown = (value: unknown): string => {
  const word = wordOf(value);
  return word !== null
    ? JSON.stringify(word)
    : Array.isArray(value)
      ? 'a list'
      : value === null
        ? 'null'
        : typeof value;
};

export interface SkippedItem {
  /** Where in the payload, e.g. `entry[0].changes[1].value.messages[2]`. */
  path: string;
  reason: string;
}

/** The decoder's state for one payload: what it skipped, and how many array items it may still read. */
export interface Reading {
  skipped: SkippedItem[];
  left: number;
}

/**
 * Runs `read` on each item of `list` (absent: nothing), each under its own path: an item that throws Skip is
 * skipped, the others stand. Stops, with one skipped entry, once the payload's item budget is spent.
 */
export function eachItem(
  d: Reading,
  list: unknown,
  path: string,
  read: (item: unknown, itemPath: string) => void,
): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) {
    d.skipped.push({ path, reason: 'not a list' });
    return;
  }
  for (let i = 0; i < list.length; i += 1) {
    const itemPath = `${path}[${i}]`;
    if (d.left <= 0) {
      if (d.left === 0) d.skipped.push({ path: itemPath, reason: `over ${READ_LIMITS.items} items: not read` });
      d.left = -1;
      return;
    }
    d.left -= 1;
    attempt(d, itemPath, () => read(list[i], itemPath));
  }
}

/** Runs `read`; a Skip it throws becomes a skipped entry at `path`. */
function attempt(d: Reading, path: string, read: () => void): void {
  try {
    read();
  } catch (error) {
    if (!(error instanceof Skip)) throw error;
    d.skipped.push({ path, reason: error.message });
  }
}
