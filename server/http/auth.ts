// Bearer keys → account (Part A, Authentication). Gateway answers carry only `message`: 401 for a missing,
// unknown, revoked or expired key; 403 for a suspended account or one without API access. Lookups are cached
// for KEY_CACHE_SECONDS (at most 60), so a revocation or an API switch-off takes effect within 1 minute.
import type { Kysely } from 'kysely';
import { GatewayError, noApiAccess } from '../errors.js';
import type { Clock } from '../clock.js';
import { hashKey, isKeyActive, KEY_PATTERN } from '../domain/accounts/keys.js';
import { findKeyByHash } from '../store/accounts.js';
import type { DB } from '../store/schema.js';
import type { Caller } from './context.js';

export class KeyResolver {
  private readonly cache = new Map<string, { caller: Caller | undefined; at: number }>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: Clock,
    private readonly cacheSeconds: number,
  ) {}

  /** The caller of an `Authorization` header, or a GatewayError (401) or `noApiAccess` (403). */
  async authenticate(header: string | undefined): Promise<Caller> {
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    if (secret === undefined) throw new GatewayError(401, 'Missing API key: send Authorization: Bearer <API_KEY>.');
    if (!KEY_PATTERN.test(secret)) throw new GatewayError(401, 'Invalid API key.');
    const now = this.clock.now();
    const caller = await this.lookup(hashKey(secret), now.getTime());
    if (!caller || !isKeyActive(caller.key, now)) throw new GatewayError(401, 'Invalid API key.');
    if (caller.account.suspended || !caller.account.api_enabled) throw noApiAccess();
    return caller;
  }

  private async lookup(hash: string, nowMs: number): Promise<Caller | undefined> {
    const hit = this.cache.get(hash);
    if (hit && nowMs - hit.at < this.cacheSeconds * 1000) return hit.caller;
    const found = await findKeyByHash(this.db, hash);
    const caller = found ? { key: found.key, account: found.account } : undefined;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(hash, { caller, at: nowMs });
    return caller;
  }
}
