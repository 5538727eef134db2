// Whatsapp phones (Part A): validated and put in E.164 form by libphonenumber-js (full metadata), with the
// Brazilian ninth-digit equivalence on top.
//
// Brazilian mobiles gained a ninth digit (a leading 9 before the 8-digit subscriber number); whatsapp still
// identifies some older accounts by the 8-digit form. `+5511987654321` and `+551187654321` are one phone:
// `parsePhone(…).key` is the 9-digit form for both, which the service stores and compares. This is the one
// place of that rule (migration 0009 re-keyed the contacts stored before it held for every mobile).
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { ApiError } from '../../errors.js';

export interface Phone {
  /** E.164, in the form given (a Brazilian mobile keeps or lacks its ninth digit as sent). */
  e164: string;
  /** The form the service compares: a Brazilian mobile always with its ninth digit. */
  key: string;
}

const invalidPhone = () => new ApiError(422, 'invalid_phone', 'This is not a phone a contact can have.');

/** An 8-digit Brazilian mobile subscriber number (old form) starts with 6, 7, 8 or 9. */
const BR_OLD_MOBILE = /^([1-9][0-9])([6-9][0-9]{7})$/;

/**
 * Parses a phone as a contact's whatsapp number. A number without `+` is read as Brazilian (a foreign
 * number needs its `+` and country code). Throws 422 invalid_phone for a number no contact can have.
 */
export function parsePhone(input: string): Phone {
  const text = input.trim();
  // Only digits and the usual separators; letters (vanity numbers) and extensions are not whatsapp numbers.
  if (!/^\+?[0-9 ().-]+$/.test(text)) throw invalidPhone();
  const parsed = parsePhoneNumberFromString(text, 'BR');
  if (!parsed || parsed.ext) throw invalidPhone();
  const withNine = ninthDigitForm(parsed.countryCallingCode, parsed.nationalNumber);
  // The 9-digit form decides, whether or not libphonenumber still lists the 8-digit form as a valid mobile
  // (it does in some areas): otherwise the two forms of one phone would be two contacts.
  if (withNine) return { e164: parsed.number, key: withNine };
  if (parsed.isValid()) return { e164: parsed.number, key: parsed.number };
  throw invalidPhone();
}

/** The 9-digit form (E.164) of an 8-digit Brazilian mobile, when that form is a mobile; else undefined. */
function ninthDigitForm(countryCallingCode: string, nationalNumber: string): string | undefined {
  if (countryCallingCode !== '55') return undefined;
  const old = BR_OLD_MOBILE.exec(nationalNumber);
  if (!old) return undefined;
  const withNine = parsePhoneNumberFromString(`+55${old[1]}9${old[2]}`);
  return withNine?.isValid() && withNine.getType() === 'MOBILE' ? withNine.number : undefined;
}
