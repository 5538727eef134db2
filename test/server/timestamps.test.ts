// The API's one timestamp form (server/store/timestamps.ts): RFC 3339, UTC, six fraction digits. Unit tests of
// the conversions, then the form every engine of the run gives back (its session time zone is UTC whatever the
// server's, and a value with trailing zero microseconds keeps its six digits).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiTimestamp, epochMicros, parseTimestamptz, timestampOfEpochMicros } from '../../server/store/timestamps.js';
import { engines, openTestDatabase, type TestDatabase } from './harness.js';

describe('parseTimestamptz (the database text → the API form)', () => {
  it.each([
    ['2026-11-20 14:00:00.123456+00', '2026-11-20T14:00:00.123456Z'],
    ['1999-12-31 23:59:59.999999+00', '1999-12-31T23:59:59.999999Z'], // six digits in UTC: read by position
    ['2026-11-20 14:00:00.1234+00', '2026-11-20T14:00:00.123400Z'], // trailing zero microseconds
    ['2026-11-20 14:00:00.12+00', '2026-11-20T14:00:00.120000Z'],
    ['2026-11-20 14:00:00.000001+00', '2026-11-20T14:00:00.000001Z'],
    ['2026-11-20 14:00:00+00', '2026-11-20T14:00:00.000000Z'],
    ['2026-11-20 14:00:00.5+00:00', '2026-11-20T14:00:00.500000Z'],
    ['2026-11-20 14:00:00.5+0000', '2026-11-20T14:00:00.500000Z'],
  ])('%s → %s', (text, expected) => {
    expect(parseTimestamptz(text)).toBe(expected);
  });

  it.each([
    // Another session time zone: the same moment in UTC, microseconds kept, the date rolled over where it must.
    ['2026-11-20 14:00:00.123450+05', '2026-11-20T09:00:00.123450Z'],
    ['2026-11-20 14:00:00.123456+05:30', '2026-11-20T08:30:00.123456Z'],
    ['2026-11-20 22:30:00.000010-03', '2026-11-21T01:30:00.000010Z'],
    ['2026-11-20 00:00:00.999999+01', '2026-11-19T23:00:00.999999Z'],
    ['1900-01-01 12:00:00.25+00:09:21', '1900-01-01T11:50:39.250000Z'], // a local mean time offset, in seconds
  ])('%s (not UTC) → %s', (text, expected) => {
    expect(parseTimestamptz(text)).toBe(expected);
  });

  it('leaves what is not a timestamp of the service as it is', () => {
    expect(parseTimestamptz('infinity')).toBe('infinity');
  });
});

describe('the service’s own moments', () => {
  it('apiTimestamp writes a Date with six fraction digits, the last three zero, in UTC', () => {
    expect(apiTimestamp(new Date('2026-11-20T14:00:00.120Z'))).toBe('2026-11-20T14:00:00.120000Z');
    expect(apiTimestamp(new Date('2026-11-20T11:00:00-03:00'))).toBe('2026-11-20T14:00:00.000000Z');
  });

  it('epochMicros is exact to the microsecond, whatever the offset and the number of digits', () => {
    const base = Date.parse('2026-11-20T14:00:00Z') * 1000;
    expect(epochMicros('2026-11-20T14:00:00.123456Z')).toBe(base + 123_456);
    expect(epochMicros('2026-11-20T14:00:00.123400Z')).toBe(base + 123_400);
    expect(epochMicros('2026-11-20T14:00:00.1234Z')).toBe(base + 123_400);
    expect(epochMicros('2026-11-20T14:00:00.5Z')).toBe(base + 500_000);
    expect(epochMicros('2026-11-20T14:00:00Z')).toBe(base);
    expect(epochMicros('2026-11-20T16:00:00.000001+02:00')).toBe(base + 1);
  });

  it('timestampOfEpochMicros is its inverse in the API form, before 1970 too', () => {
    for (const t of ['2026-11-20T14:00:00.123456Z', '2026-11-20T14:00:00.123400Z', '1969-12-31T23:59:59.999999Z'])
      expect(timestampOfEpochMicros(epochMicros(t))).toBe(t);
    expect(timestampOfEpochMicros(0)).toBe('1970-01-01T00:00:00.000000Z');
  });
});

describe.each(engines)('timestamps read from %s', (engine) => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await openTestDatabase(engine);
  });
  afterAll(() => test?.drop());

  it('come back in the API form, microseconds kept, trailing zeros included, whatever the offset written', async () => {
    const { rows } = await sql<{ a: string; b: string; c: string }>`
      select timestamptz '2026-11-20 14:00:00.123456+00' as a,
             timestamptz '2026-11-20 14:00:00.1234+00' as b,
             timestamptz '2026-11-20 11:00:00.00001-03' as c`.execute(test.database.db);
    expect(rows[0]).toEqual({
      a: '2026-11-20T14:00:00.123456Z',
      b: '2026-11-20T14:00:00.123400Z',
      c: '2026-11-20T14:00:00.000010Z',
    });
  });
});
