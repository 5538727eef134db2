// Parsing shared by the pure evaluators of the automation engine (Part B, "Block catalog" and "Variables"):
// exact decimal numbers, calendar dates, times of day, and wall-clock parts of an instant in a time zone.
// Nothing here reads the clock or a database; every function answers from its arguments only.
import { trimAsciiSpace } from '../../text.js';

/** An exact decimal number: `units / 10^scale`, scale >= 0. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

export const ZERO: Decimal = { units: 0n, scale: 0 };

/**
 * A plain dotted number: optional sign, digits, optional `.` with digits (`5`, `-2.50`, `.5`, `5.` are all
 * numbers). Surrounding ASCII white space (spaces, tabs, line breaks) is ignored, so `' 3'` and a typed answer
 * `'3\n'` read as 3; white space inside (`'1 000'`), a comma (`'12,5'`), exponent notation (`'1e3'`),
 * `Infinity` or `NaN` are not numbers, nor is a text of more than MAX_NUMBER_CHARS characters once trimmed (a
 * tenant's text can be long: the trim is linear, and BigInt never sees more than that). Returns null when the
 * text is not a number.
 */
export const MAX_NUMBER_CHARS = 100;
const DECIMAL_RE = /^([+-]?)(\d*)(?:\.(\d*))?$/;
export function parseDecimal(text: string | null | undefined): Decimal | null {
  if (typeof text !== 'string') return null;
  const trimmed = trimAsciiSpace(text);
  if (trimmed.length > MAX_NUMBER_CHARS) return null;
  const match = DECIMAL_RE.exec(trimmed);
  if (!match) return null;
  const sign = match[1] ?? '';
  const whole = match[2] ?? '';
  const fraction = match[3] ?? '';
  if (whole === '' && fraction === '') return null;
  const units = BigInt(`${whole}${fraction}` || '0');
  return { units: sign === '-' ? -units : units, scale: fraction.length };
}

/** A JavaScript number as an exact decimal (its shortest round-trip text); null for NaN and the infinities. */
export function decimalFromNumber(value: number): Decimal | null {
  if (!Number.isFinite(value)) return null;
  if (Number.isInteger(value)) return { units: BigInt(value), scale: 0 };
  const text = String(value);
  if (!/e/i.test(text)) return parseDecimal(text);
  // Exponent form (very small numbers): 20 decimal places are enough for any score or percentage.
  return parseDecimal(value.toFixed(20));
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** Both numbers at the same scale (the larger). */
export function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * pow10(scale - a.scale), b.units * pow10(scale - b.scale), scale];
}

export function compareDecimal(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addDecimal(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { units: x + y, scale };
}

export function subDecimal(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { units: x - y, scale };
}

export function mulDecimal(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** Decimal places kept by a division whose quotient does not terminate sooner. */
export const DIVISION_PLACES = 20;

/**
 * a / b, exact when the quotient has at most DIVISION_PLACES decimal places, else cut (toward zero, no
 * rounding) after DIVISION_PLACES places: 1/3 = 0.33333333333333333333, 2/3 = 0.66666666666666666666.
 * Division by zero gives 0.
 */
export function divDecimal(a: Decimal, b: Decimal): Decimal {
  if (b.units === 0n) return ZERO;
  // a/b = (A / 10^sa) / (B / 10^sb) = A * 10^sb / (B * 10^sa); with P places: A * 10^(sb+P) / (B * 10^sa).
  const numerator = a.units * pow10(b.scale + DIVISION_PLACES);
  const denominator = b.units * pow10(a.scale);
  return { units: numerator / denominator, scale: DIVISION_PLACES }; // BigInt division truncates toward zero
}

/** Remainder of a / b with the sign of a (truncated division, like JavaScript `%`); mod by zero gives 0. */
export function modDecimal(a: Decimal, b: Decimal): Decimal {
  if (b.units === 0n) return ZERO;
  const [x, y, scale] = align(a, b);
  return { units: x % y, scale };
}

/** a / 10^places, exact. */
export function shiftDecimal(a: Decimal, places: number): Decimal {
  return { units: a.units, scale: a.scale + places };
}

/**
 * The plain dotted text of a number: no exponent, no trailing zeros after the point, no point for a whole
 * number, no `-0`: 6, -2.5, 0.1, 12345678901234567890.000001.
 */
export function formatDecimal(value: Decimal): string {
  let { units, scale } = value;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  if (units === 0n) return '0';
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  let text: string;
  if (scale === 0) text = digits;
  else {
    const padded = digits.padStart(scale + 1, '0');
    text = `${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
  }
  return negative ? `-${text}` : text;
}

/** A calendar date as a number that orders like the date: yyyy * 10000 + MM * 100 + dd. */
export type DayNumber = number;

function validDay(year: number, month: number, day: number): DayNumber | null {
  if (month < 1 || month > 12 || day < 1) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  return year * 10000 + month * 100 + day;
}

/** Wall-clock parts of an instant in an IANA time zone (hours 0 to 23). */
export interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** True when the runtime knows the IANA time zone. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/**
 * The wall-clock parts of `instant` in `timeZone`. An unknown time zone falls back to UTC (the evaluators never
 * throw; the account's zone is checked where it is set).
 */
export function zonedParts(instant: Date, timeZone: string): ZonedParts {
  const formatter = isTimeZone(timeZone) ? formatterFor(timeZone) : formatterFor('UTC');
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: (parts.hour ?? 0) % 24,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** dd/MM/yyyy, the `system.current_date` format. */
export function formatDay(parts: ZonedParts): string {
  return `${pad2(parts.day)}/${pad2(parts.month)}/${String(parts.year).padStart(4, '0')}`;
}

/** HH:mm:ss, the `system.current_time` format. */
export function formatTime(parts: ZonedParts): string {
  return `${pad2(parts.hour)}:${pad2(parts.minute)}:${pad2(parts.second)}`;
}

/**
 * A date written in a condition's `value`: dd/MM/yyyy (day and month may have one digit: 5/3/2026) or
 * yyyy-MM-dd. An impossible date (31/02/2026) is null.
 */
export function parseConditionDate(text: string): DayNumber | null {
  const trimmed = text.trim();
  let match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(trimmed);
  if (match) return validDay(Number(match[3]), Number(match[2]), Number(match[1]));
  match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(trimmed);
  if (match) return validDay(Number(match[1]), Number(match[2]), Number(match[3]));
  return null;
}

/** A time written in a condition's `value`: HH:mm (hour may have one digit), 00:00 to 23:59, as minutes of the day. */
export function parseConditionTime(text: string): number | null {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!match) return null;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  if (hour > 23 || minute > 59) return null;
  return hour * 60 + minute;
}

/** A date and/or time read from a variable's value. */
export interface ReadMoment {
  day: DayNumber | null;
  minute: number | null; // minutes since midnight
}

const TIME_PART = String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?`;
const ZONE_PART = String.raw`(Z|[+-]\d{2}:\d{2})`;
const DMY_RE = new RegExp(String.raw`^(\d{1,2})/(\d{1,2})/(\d{4})(?:[ T]${TIME_PART})?$`);
const YMD_RE = new RegExp(String.raw`^(\d{4})-(\d{2})-(\d{2})(?:[ T]${TIME_PART})?$`);
const ISO_ZONED_RE = new RegExp(String.raw`^\d{4}-\d{2}-\d{2}[T ]${TIME_PART}${ZONE_PART}$`);
const TIME_ONLY_RE = new RegExp(`^${TIME_PART}$`);
const EPOCH_MS_RE = /^\d{11,15}$/;
/** The patterns built from parts (no linter reads them): test/regex-linear.test.ts checks each is linear. */
export const COMPOSED_PATTERNS = [DMY_RE, YMD_RE, ISO_ZONED_RE, TIME_ONLY_RE];

function minuteOf(hour: string | undefined, minute: string | undefined, second: string | undefined): number | null {
  if (hour === undefined || minute === undefined) return null;
  const h = Number(hour);
  const m = Number(minute);
  if (h > 23 || m > 59 || (second !== undefined && Number(second) > 59)) return null;
  return h * 60 + m;
}

/**
 * Reads a variable's value as a date and/or a time of day, for the `date_*` and `time_*` conditions:
 *
 * - wall-clock texts are taken as written (no time zone conversion): `dd/MM/yyyy` (what `system.current_date`
 *   shows), `yyyy-MM-dd`, either followed by a space or `T` and `HH:mm[:ss[.fff]]` (what
 *   `system.current_datetime` shows), or a time alone `HH:mm[:ss]` (what `system.current_time` shows);
 * - instants are converted to the account time zone: an ISO date-time with `Z` or an offset
 *   (`2026-11-26T15:00:00Z`), or 11 to 15 digits read as milliseconds since 1970 UTC (what `$timestamp` writes).
 *
 * Anything else (or an impossible date or time) gives nulls.
 */
export function readMoment(text: string, timeZone: string): ReadMoment {
  const trimmed = text.trim();
  const none: ReadMoment = { day: null, minute: null };
  if (EPOCH_MS_RE.test(trimmed)) return momentOfInstant(new Date(Number(trimmed)), timeZone);
  if (ISO_ZONED_RE.test(trimmed)) {
    const instant = new Date(trimmed.replace(' ', 'T'));
    return Number.isNaN(instant.getTime()) ? none : momentOfInstant(instant, timeZone);
  }
  let match = DMY_RE.exec(trimmed);
  if (match) {
    const day = validDay(Number(match[3]), Number(match[2]), Number(match[1]));
    if (day === null) return none;
    if (match[4] === undefined) return { day, minute: null };
    const minute = minuteOf(match[4], match[5], match[6]);
    return minute === null ? none : { day, minute };
  }
  match = YMD_RE.exec(trimmed);
  if (match) {
    const day = validDay(Number(match[1]), Number(match[2]), Number(match[3]));
    if (day === null) return none;
    if (match[4] === undefined) return { day, minute: null };
    const minute = minuteOf(match[4], match[5], match[6]);
    return minute === null ? none : { day, minute };
  }
  match = TIME_ONLY_RE.exec(trimmed);
  if (match) return { day: null, minute: minuteOf(match[1], match[2], match[3]) };
  return none;
}

function momentOfInstant(instant: Date, timeZone: string): ReadMoment {
  if (Number.isNaN(instant.getTime())) return { day: null, minute: null };
  const parts = zonedParts(instant, timeZone);
  return { day: parts.year * 10000 + parts.month * 100 + parts.day, minute: parts.hour * 60 + parts.minute };
}
