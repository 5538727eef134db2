// The `date-time` format as the database can hold it. ajv's own check is a pattern: it lets 30 February,
// month 13 and a `+23:00` offset through, which PostgreSQL then refuses when it casts the value, and a client
// mistake must be a 400 with details, never a 500. RFC 3339, with a real calendar date, seconds 00–59 and an
// offset of at most ±15:59 (PostgreSQL's range).
import { isUuid } from '../ids.js';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const daysIn = (year: number, month: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

export function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const part = (group: number) => Number(m[group]);
  const [year, month, day, hour, minute, second] = [part(1), part(2), part(3), part(4), part(5), part(6)];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  if (m[7] !== undefined && (Number(m[8]) > 15 || Number(m[9]) > 59)) return false;
  return true;
}

/**
 * The `formats` option of express-openapi-validator (it overrides ajv-formats' own). `uuid`: ajv-formats also takes
 * a `urn:uuid:` prefix, which no uuid column accepts (a 500); an id is the 36 characters, in either case.
 */
export const strictFormats = {
  'date-time': { type: 'string' as const, validate: isDateTime },
  uuid: { type: 'string' as const, validate: isUuid },
};
