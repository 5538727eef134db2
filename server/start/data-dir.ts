// What the process keeps in DATA_DIR besides the embedded database: the directory itself, made if need be, and
// the admin token generated on the first start when ADMIN_TOKEN is not set.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { DatabaseOpenError } from '../store/database.js';

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
