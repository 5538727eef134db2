// The API's one timestamp form, owned here: RFC 3339 in UTC with all six fraction digits
// (`2026-11-20T14:00:00.123456Z`). Timestamps leave the database in it (parseTimestamptz, the pg and PGlite type
// parser): a JS Date would cut them to milliseconds, and cursors must be exact to the microsecond. Moments the
// service makes itself (a Date), and arithmetic that must keep the microseconds, go through the helpers below.
export const TIMESTAMPTZ_OID = 1184;
export const INT8_OID = 20;

/** PostgreSQL's text form of a timestamptz: date, time, fraction, and the offset's sign, hours, minutes, seconds. */
const PG_TIMESTAMPTZ =
  /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/;

/** PostgreSQL's text form (session time zone UTC) → the API's form. */
export function parseTimestamptz(text: string): string {
  // The common form, UTC with six fraction digits (`2026-11-20 14:00:00.123456+00`), by position: a page of
  // contacts parses 150 of these, and the expression below costs five times as much.
  if (text.length === 29 && text.charCodeAt(10) === 32 && text.charCodeAt(19) === 46 && text.endsWith('+00'))
    return `${text.slice(0, 10)}T${text.slice(11, 26)}Z`;
  const m = PG_TIMESTAMPTZ.exec(text);
  if (!m) return text; // infinity and the like: not used by the service
  const [, date, time, fraction = '', sign, hours, minutes = '0', seconds = '0'] = m;
  const micros = fraction.padEnd(6, '0');
  const offsetSeconds = (sign === '-' ? -1 : 1) * (Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds));
  if (offsetSeconds === 0) return `${date}T${time}.${micros}Z`;
  // Not UTC (the session time zone is UTC, so this should not happen): the same moment in UTC.
  const localMs = Date.parse(`${date}T${time}Z`);
  return timestampOfEpochMicros((localMs - offsetSeconds * 1000) * 1000 + Number(micros));
}

/** A moment the service makes (a Date, to the millisecond) in the API's form: the last three digits are zero. */
export const apiTimestamp = (moment: Date): string => moment.toISOString().replace(/Z$/, '000Z');

/**
 * Microseconds since the epoch of an RFC 3339 timestamp (any offset, any number of fraction digits): exact to the
 * microsecond, which a Date is not. Safe as a number until the year 2255.
 */
export function epochMicros(timestamp: string): number {
  const micros = /\.\d{3}(\d{1,3})/.exec(timestamp)?.[1] ?? '';
  return Date.parse(timestamp) * 1000 + Number(micros.padEnd(3, '0'));
}

/** The API's form of a moment given in microseconds since the epoch. */
export function timestampOfEpochMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  return new Date(ms).toISOString().replace(/Z$/, `${String(micros - ms * 1000).padStart(3, '0')}Z`);
}
