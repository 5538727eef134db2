// The Brazilian ninth digit (Part A: "A Brazilian mobile matches with or without the ninth digit"), over every
// Brazilian area code and every leading digit of an 8-digit mobile (6 to 9): both forms give one key, the
// 9-digit form, whether or not libphonenumber still lists the 8-digit form as a valid mobile.
import { describe, expect, it } from 'vitest';
import { parsePhone } from '../../server/domain/contacts/phone.js';

/** Anatel's 67 area codes (DDD). */
const AREA_CODES = [
  ...[11, 12, 13, 14, 15, 16, 17, 18, 19],
  ...[21, 22, 24, 27, 28],
  ...[31, 32, 33, 34, 35, 37, 38],
  ...[41, 42, 43, 44, 45, 46, 47, 48, 49],
  ...[51, 53, 54, 55],
  ...[61, 62, 63, 64, 65, 66, 67, 68, 69],
  ...[71, 73, 74, 75, 77, 79],
  ...[81, 82, 83, 84, 85, 86, 87, 88, 89],
  ...[91, 92, 93, 94, 95, 96, 97, 98, 99],
];
const LEADING_DIGITS = [6, 7, 8, 9];
// The rest of the subscriber number: the two of the bug report (libphonenumber lists their 8-digit forms as
// valid mobiles in some areas), and ones it lists in none.
const RESTS = ['9680885', '8550025', '7654321', '0000000'];

describe('the Brazilian ninth digit', () => {
  it('covers 67 area codes', () => {
    expect(new Set(AREA_CODES).size).toBe(67);
  });

  it.each(AREA_CODES)('area code %i: the 8- and 9-digit forms are one phone, each kept as given', (ddd) => {
    for (const d of LEADING_DIGITS)
      for (const rest of RESTS) {
        const eight = `+55${ddd}${d}${rest}`;
        const nine = `+55${ddd}9${d}${rest}`;
        expect(parsePhone(nine), nine).toEqual({ e164: nine, key: nine });
        expect(parsePhone(eight), eight).toEqual({ e164: eight, key: nine });
        // A national number (no `+`) is read as Brazilian.
        expect(parsePhone(eight.slice(3)).key, eight).toBe(nine);
      }
  });

  it('leaves other numbers alone: a landline, a foreign number', () => {
    expect(parsePhone('+551132654321')).toEqual({ e164: '+551132654321', key: '+551132654321' });
    expect(parsePhone('+14155552671')).toEqual({ e164: '+14155552671', key: '+14155552671' });
  });
});
