// The `date-time` format of the validators (server/http/formats.ts): what the database can hold, so that an
// impossible moment in a filter is the client's 400, never a 500 from the database's cast.
import { describe, expect, it } from 'vitest';
import { isDateTime } from '../server/http/formats.js';

describe('date-time', () => {
  it.each([
    '2026-11-20T13:00:00Z',
    '2026-11-20T13:00:00.123456Z',
    '2026-11-20t13:00:00z',
    '2026-11-20T13:00:00+05:30',
    '2026-11-20T13:00:00-15:59',
    '2024-02-29T00:00:00Z',
    '2000-02-29T23:59:59.9Z',
  ])('accepts %s', (value) => {
    expect(isDateTime(value)).toBe(true);
  });

  it.each([
    '2026-13-01T00:00:00Z', // month 13
    '2026-02-30T00:00:00Z', // 30 February
    '2025-02-29T00:00:00Z', // not a leap year
    '1900-02-29T00:00:00Z', // not a leap year either
    '2026-04-31T00:00:00Z',
    '2026-11-20T24:00:00Z',
    '2026-11-20T13:60:00Z',
    '2026-11-20T13:00:60Z',
    '2026-11-20T13:00:00+23:00', // beyond PostgreSQL's ±15:59
    '2026-11-20T13:00:00+05:60',
    '0000-01-01T00:00:00Z',
    '2026-11-20T13:00:00', // no offset
    '2026-11-20',
    'yesterday',
  ])('refuses %s', (value) => {
    expect(isDateTime(value)).toBe(false);
  });
});
