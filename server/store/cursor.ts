// Keyset cursors: opaque, URL-safe, tamper-evident and bound to the list that issued them.
//
// A cursor carries the sort key of the last row of a page (timestamps as the database returned them, with
// microseconds, never through a JS Date) and an HMAC over that key and the list's binding: the list, the
// account, the parent resource, the order, the sort columns and every filter. A cursor of another list, order,
// filter set, parent or account — or one with any byte changed — fails the HMAC and answers 400
// `invalid_cursor`. The key is a service secret shared by every process on the database.
//
// Wire form: base64url( version byte · first 16 bytes of HMAC-SHA256 · JSON of the sort key ).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { DB } from './schema.js';
import { serviceSecret } from './secrets.js';

/** One value of a sort key: a timestamp string, an id, a number. */
export type CursorValue = string | number;
export type SortOrder = 'asc' | 'desc';
export type FilterValue = string | number | boolean | null | undefined;

/** What a cursor is bound to. Two requests may share a cursor only when every field is equal. */
export interface CursorBinding {
  /** The list, e.g. `contacts`, `conversation_messages`. */
  list: string;
  /** The account of the list: a cursor never crosses accounts. */
  accountId: string;
  /** The parent resource of a nested list (the conversation of its messages, the tag of its contacts). */
  parent?: string | null;
  order: SortOrder;
  /** The sort columns: a cursor issued before a list changed its sort is refused, not misread. */
  keys: readonly string[];
  /** Every filter of the request, normalised by the caller; `undefined` is the same as absent. */
  filters?: Readonly<Record<string, FilterValue>>;
}

const VERSION = 1;
const MAC_BYTES = 16;
/** The spec's maxLength of the `cursor` parameter. */
export const MAX_CURSOR_LENGTH = 1024;
const SECRET_NAME = 'cursor_signing_key';

export function invalidCursor(): ApiError {
  return new ApiError(
    400,
    'invalid_cursor',
    'The cursor was not issued by this list, or was issued for another order, filters or parent resource.',
  );
}

export class CursorCodec {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('the cursor key must have at least 32 bytes');
  }

  encode(binding: CursorBinding, position: readonly CursorValue[]): string {
    if (position.length !== binding.keys.length) throw new Error('a cursor position needs one value per sort key');
    for (const value of position) assertCursorValue(value);
    const payload = Buffer.from(JSON.stringify(position), 'utf8');
    const mac = this.mac(binding, payload);
    return Buffer.concat([Buffer.from([VERSION]), mac, payload]).toString('base64url');
  }

  /** The sort key carried by `cursor`, or 400 `invalid_cursor` for anything this list did not issue. */
  decode(binding: CursorBinding, cursor: unknown): CursorValue[] {
    if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor();
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
    const bytes = Buffer.from(cursor, 'base64url');
    // Node's decoder ignores stray bits of the last character: only the canonical spelling is accepted, so
    // changing any character of a cursor changes its bytes.
    if (bytes.toString('base64url') !== cursor) throw invalidCursor();
    if (bytes.length < 1 + MAC_BYTES + 2 || bytes[0] !== VERSION) throw invalidCursor();
    const mac = bytes.subarray(1, 1 + MAC_BYTES);
    const payload = bytes.subarray(1 + MAC_BYTES);
    if (!timingSafeEqual(mac, this.mac(binding, payload))) throw invalidCursor();
    let position: unknown;
    try {
      position = JSON.parse(payload.toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    // The HMAC proves we wrote it; the shape check keeps a cursor of an older format from reaching SQL.
    if (!Array.isArray(position) || position.length !== binding.keys.length || !position.every(isCursorValue))
      throw invalidCursor();
    return position;
  }

  private mac(binding: CursorBinding, payload: Buffer): Buffer {
    return createHmac('sha256', this.key)
      .update(`ep-cursor:${VERSION}\0${canonicalBinding(binding)}\0`)
      .update(payload)
      .digest()
      .subarray(0, MAC_BYTES);
  }
}

/** A stable spelling of the binding: filters sorted by name, absent and undefined alike. */
function canonicalBinding(binding: CursorBinding): string {
  const filters = Object.entries(binding.filters ?? {})
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    binding.list,
    binding.accountId,
    binding.parent ?? null,
    binding.order,
    binding.keys,
    filters,
  ]);
}

function isCursorValue(value: unknown): value is CursorValue {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function assertCursorValue(value: unknown): asserts value is CursorValue {
  if (!isCursorValue(value))
    throw new Error(
      `a sort key value must be a string or a finite number, got ${value instanceof Date ? 'a Date (microseconds would be lost)' : typeof value}`,
    );
}

const codecs = new WeakMap<Kysely<DB>, Promise<CursorCodec>>();

/** The codec of this database (its key is read, or created, once per handle). */
export function cursorCodec(db: Kysely<DB>, clock: Clock): Promise<CursorCodec> {
  let codec = codecs.get(db);
  if (!codec) {
    codec = serviceSecret(db, SECRET_NAME, clock).then((secret) => new CursorCodec(Buffer.from(secret, 'base64url')));
    // A failed read (database briefly down) is not remembered: the next request tries again.
    codec.catch(() => codecs.delete(db));
    codecs.set(db, codec);
  }
  return codec;
}
