// What the process keeps in DATA_DIR besides the embedded database: the directory itself, made if need be, the
// admin token generated on the first start when ADMIN_TOKEN is not set, and the channel credentials key
// generated on the first start when CHANNEL_CREDENTIALS_KEY is not set (each readable by this user alone).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { CredentialsError, decodeKey, keyringOf, type Keyring } from '../domain/channels/credentials.js';
import { DatabaseOpenError } from '../store/database.js';

/** The generated channel credentials key's file in DATA_DIR. */
export const CHANNEL_KEY_FILE = 'channel-credentials-key';

/** ADMIN_TOKEN, else the one kept in DATA_DIR/admin-token (generated there on the first start). */
export function adminToken(config: Config): string {
  if (config.adminToken) return config.adminToken;
  const file = join(config.dataDir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(32).toString('base64url');
  ensureDataDir(config.dataDir); // with DATABASE_URL, DATA_DIR may not exist yet
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}

/**
 * The keyring channel access tokens are sealed with: CHANNEL_CREDENTIALS_KEY, else the key kept in
 * DATA_DIR/channel-credentials-key (generated there on the first start, with PGlite or PostgreSQL alike; production
 * requires the setting), and CHANNEL_CREDENTIALS_OLD_KEYS to open what earlier keys sealed.
 */
export function channelKeyring(
  config: Pick<Config, 'dataDir' | 'channelCredentialsKey' | 'channelCredentialsOldKeys'>,
): Keyring {
  const current = config.channelCredentialsKey ?? generatedChannelKey(config.dataDir);
  try {
    return keyringOf(current, config.channelCredentialsOldKeys);
  } catch (error) {
    // config.ts checked each key: what is left is two old keys with one id, which the operator fixes.
    throw error instanceof CredentialsError ? new ConfigError(error.message) : error;
  }
}

/** The key in DATA_DIR/channel-credentials-key, written there (0600) once: the first writer wins a race. */
function generatedChannelKey(dataDir: string): string {
  const file = join(dataDir, CHANNEL_KEY_FILE);
  if (existsSync(file)) return readGeneratedKey(file);
  ensureDataDir(dataDir); // with DATABASE_URL, DATA_DIR may not exist yet
  const key = randomBytes(32).toString('base64');
  try {
    // `wx`: never over a key another process wrote meanwhile; what it sealed must stay open.
    writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'EEXIST') return readGeneratedKey(file);
    throw error;
  }
}

/** The generated key as the file holds it; a damaged file is named with the way out, never replaced. */
function readGeneratedKey(file: string): string {
  const key = readFileSync(file, 'utf8').trim();
  try {
    decodeKey(key, CHANNEL_KEY_FILE);
    return key;
  } catch {
    throw new ConfigError(
      `${resolve(file)} is not a key of 32 bytes in base64. Restore it from a backup (the tokens sealed under it ` +
        'open with it alone), or set CHANNEL_CREDENTIALS_KEY and connect the numbers again.',
    );
  }
}

/** DATA_DIR made if need be; one that cannot be a directory (a file is there, no permission) is named, exit 2. */
export function ensureDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'a file is in the way, not a directory'
        : code === 'EACCES' || code === 'EPERM'
          ? 'no permission to create it'
          : String(error);
    throw new DatabaseOpenError(
      `DATA_DIR ${resolve(dataDir)} cannot be used as the data directory: ${why} (${code}). ` +
        'Move the file aside, or set DATA_DIR to a directory this process may write.',
    );
  }
}
