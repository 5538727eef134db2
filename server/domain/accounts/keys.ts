// API keys (Part A, Authentication): "<prefix>_<46 letters and digits>", only a hash stored, shown once,
// every key expires (30, 60, 90, 180 days or 1 year), at most 25 active keys per account, scopes fixed,
// revocation irreversible. Keys are created and revoked by the console (the admin API, the console CLI).
import { isOneOf } from '../../guards.js';
import { hash, randomInt, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { components as adminComponents } from '../../../generated/admin-api.js';
import { ApiError, notFound } from '../../errors.js';
import type { Clock } from '../../clock.js';
import {
  countActiveKeys,
  findAccount,
  findKey,
  insertApiKey,
  listKeys,
  revokeKey,
  type ApiKeyRow,
} from '../../store/accounts.js';
import { lockAccount } from '../../store/console.js';
import type { DB } from '../../store/schema.js';
import { audit, type Actor } from './actor.js';
import { requireName } from './accounts.js';
import { SCOPES, type Scope } from '../../../generated/operations.js';

export const KEY_PREFIX = 'epk';
export const KEY_BODY_LENGTH = 46;
export const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}_[A-Za-z0-9]{${KEY_BODY_LENGTH}}$`);
export const MAX_ACTIVE_KEYS = 25;
export const VALIDITY_DAYS = [30, 60, 90, 180, 365] as const;
export type ValidityDays = (typeof VALIDITY_DAYS)[number];

// The scopes are the description's (`Scope`), generated with the route table.
export { SCOPES, type Scope };

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function generateKeySecret(): string {
  let body = '';
  for (let i = 0; i < KEY_BODY_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `${KEY_PREFIX}_${body}`;
}

export function hashKey(secret: string): string {
  // One call, no Hash object: this runs on every request.
  return hash('sha256', secret, 'hex');
}

export interface CreatedKey {
  key: ApiKeyRow;
  /** The whole key: returned once, never stored. */
  secret: string;
}

export async function createApiKey(
  db: Kysely<DB>,
  clock: Clock,
  input: { accountId: string; name: string; scopes: readonly Scope[]; validityDays: ValidityDays },
  actor?: Actor,
): Promise<CreatedKey> {
  if (!VALIDITY_DAYS.includes(input.validityDays))
    throw new ApiError(422, 'invalid_validity', `validity_days must be one of ${VALIDITY_DAYS.join(', ')}.`);
  const unknown = input.scopes.filter((s) => !isOneOf(SCOPES, s));
  if (unknown.length) throw new ApiError(422, 'invalid_scopes', `Unknown scopes: ${unknown.join(', ')}.`);
  requireName(input.name);
  const scopes = [...new Set(input.scopes)].sort();
  const now = clock.now();
  return db.transaction().execute(async (tx) => {
    // Serialise key creation per account so two concurrent creations cannot pass the limit together.
    if (!(await lockAccount(tx, input.accountId))) throw notFound('No such account.');
    if ((await countActiveKeys(tx, input.accountId, now.toISOString())) >= MAX_ACTIVE_KEYS)
      throw new ApiError(409, 'key_limit_reached', `An account holds at most ${MAX_ACTIVE_KEYS} active keys.`, {
        limit: MAX_ACTIVE_KEYS,
      });
    const secret = generateKeySecret();
    const id = randomUUID();
    const key = await insertApiKey(tx, {
      id,
      account_id: input.accountId,
      name: input.name,
      hint: secret.slice(0, KEY_PREFIX.length + 5),
      hash: hashKey(secret),
      scopes,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + input.validityDays * 86_400_000).toISOString(),
      revoked_at: null,
    });
    await audit(
      tx,
      actor,
      {
        accountId: input.accountId,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: id,
        details: { name: input.name, scopes, validity_days: input.validityDays },
      },
      now.toISOString(),
    );
    return { key, secret };
  });
}

/**
 * Revokes a key, irreversibly. Revoking a revoked key changes nothing and returns it, so a retry is safe;
 * only the first revocation enters the audit log.
 */
export async function revokeApiKey(db: Kysely<DB>, clock: Clock, keyId: string, actor?: Actor): Promise<ApiKeyRow> {
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    const revoked = await revokeKey(tx, keyId, now);
    if (!revoked) {
      const existing = await findKey(tx, keyId);
      if (!existing) throw notFound('No such API key.');
      return existing;
    }
    await audit(
      tx,
      actor,
      { accountId: revoked.account_id, action: 'api_key.revoked', targetType: 'api_key', targetId: keyId },
      now,
    );
    return revoked;
  });
}

export async function listApiKeys(db: Kysely<DB>, accountId: string): Promise<ApiKeyRow[]> {
  if (!(await findAccount(db, accountId))) throw notFound('No such account.');
  return listKeys(db, accountId);
}

/** What a key is at `now`: revoked (for good), expired (from `expires_at` on), else active. */
export function keyStatus(
  key: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>,
  now: Date,
): adminComponents['schemas']['AdminApiKey']['status'] {
  // Compared as instants: the gateway asks at every request, and printing `now` cost more than reading the date.
  return key.revoked_at !== null ? 'revoked' : Date.parse(key.expires_at) <= now.getTime() ? 'expired' : 'active';
}

/** Whether a key opens the API at `now` (the gateway's check, and the admin API's `status`). */
export const isKeyActive = (key: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, now: Date): boolean =>
  keyStatus(key, now) === 'active';

/** A key record as the admin API shows it: never the key, only its first characters. */
export function keyView(row: ApiKeyRow, now: Date): adminComponents['schemas']['AdminApiKey'] {
  const status = keyStatus(row, now);
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    hint: row.hint,
    scopes: row.scopes,
    status,
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
  };
}
