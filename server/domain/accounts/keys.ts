// API keys (Part A, Authentication): "<prefix>_<46 letters and digits>", only a hash stored, shown once,
// every key expires (30, 60, 90, 180 days or 1 year), at most 25 active keys per account, scopes fixed.
import { createHash, randomInt, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ApiError } from '../../errors.js';
import type { Clock } from '../../clock.js';
import { countActiveKeys, insertApiKey, type ApiKeyRow } from '../../store/accounts.js';
import type { DB } from '../../store/schema.js';

export const KEY_PREFIX = 'epk';
export const KEY_BODY_LENGTH = 46;
export const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}_[A-Za-z0-9]{${KEY_BODY_LENGTH}}$`);
export const MAX_ACTIVE_KEYS = 25;
export const VALIDITY_DAYS = [30, 60, 90, 180, 365] as const;
export type ValidityDays = (typeof VALIDITY_DAYS)[number];

export const SCOPES = [
  'contacts:read',
  'contacts:write',
  'conversations:read',
  'messages:send',
  'workflows:read',
  'workflows:write',
  'workflows:publish',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function generateKeySecret(): string {
  let body = '';
  for (let i = 0; i < KEY_BODY_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return `${KEY_PREFIX}_${body}`;
}

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
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
): Promise<CreatedKey> {
  if (!VALIDITY_DAYS.includes(input.validityDays))
    throw new ApiError(422, 'invalid_validity', `validity_days must be one of ${VALIDITY_DAYS.join(', ')}.`);
  const scopes = [...new Set(input.scopes)].sort();
  const now = clock.now();
  return db.transaction().execute(async (tx) => {
    // Serialise key creation per account so two concurrent creations cannot pass the limit together.
    await tx.selectFrom('accounts').select('id').where('id', '=', input.accountId).forUpdate().execute();
    if ((await countActiveKeys(tx, input.accountId, now.toISOString())) >= MAX_ACTIVE_KEYS)
      throw new ApiError(409, 'key_limit_reached', `An account holds at most ${MAX_ACTIVE_KEYS} active keys.`, {
        limit: MAX_ACTIVE_KEYS,
      });
    const secret = generateKeySecret();
    const key: ApiKeyRow = {
      id: randomUUID(),
      account_id: input.accountId,
      name: input.name,
      hint: secret.slice(0, KEY_PREFIX.length + 5),
      hash: hashKey(secret),
      scopes,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + input.validityDays * 86_400_000).toISOString(),
      revoked_at: null,
    };
    await insertApiKey(tx, key);
    return { key, secret };
  });
}
