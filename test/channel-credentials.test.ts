// Channel access tokens at rest (issue 35): sealed with AES-256-GCM under CHANNEL_CREDENTIALS_KEY and its key id,
// opened by the current key or an old one; a tampered value or an unknown key fails with an error that never holds
// the token. Also the key generated into the data directory (once, 0600, reused) and the log redaction of tokens.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../server/config.js';
import {
  CredentialsError,
  keyId,
  keyringOf,
  openToken,
  sealToken,
  tokenLast4,
  type Keyring,
} from '../server/domain/channels/credentials.js';
import { createLogger } from '../server/logger.js';
import { CHANNEL_KEY_FILE, channelKeyring } from '../server/start/data-dir.js';
import { createServices } from '../server/services.js';

const TOKEN = 'EAAGm0PX4ZCpsBAKzZBwhatsappSecretToken1234567890';
const newKey = () => randomBytes(32).toString('base64');

/** The error `run` throws (it must throw). */
function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`not an Error: ${String(error)}`);
  }
  throw new Error('did not throw');
}

/** `sealed` with its part `index` (0 version, 1 key id, 2 nonce, 3 ciphertext, 4 tag) replaced by `change(part)`. */
function withPart(sealed: string, index: number, change: (part: string) => string): string {
  const parts = sealed.split('.');
  parts[index] = change(parts[index] ?? '');
  return parts.join('.');
}

/** A base64url part with its first byte flipped. */
const flipFirstByte = (part: string) => {
  const bytes = Buffer.from(part, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return bytes.toString('base64url');
};

/** The connection a token is sealed for (the sealed value opens only for it). */
const CONNECTION = '7f1b3c9e-0000-4000-8000-000000000001';

describe('sealToken / openToken', () => {
  const keyring = keyringOf(newKey());

  it('round-trips a token, as one string v1.<key id>.<nonce>.<ciphertext>.<tag> without the token in it', () => {
    const sealed = sealToken(keyring, TOKEN, CONNECTION);
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(sealed.split('.')[1]).toBe(keyring.current.id);
    expect(sealed).not.toContain(TOKEN);
    expect(sealed).not.toContain(Buffer.from(TOKEN).toString('base64url'));
    expect(openToken(keyring, sealed, CONNECTION)).toBe(TOKEN);
    expect(openToken(keyring, sealToken(keyring, 'é ☃ token', CONNECTION), CONNECTION)).toBe('é ☃ token');
  });

  it('seals the same token differently each time (a fresh nonce), both opening', () => {
    const first = sealToken(keyring, TOKEN, CONNECTION);
    const second = sealToken(keyring, TOKEN, CONNECTION);
    expect(first).not.toBe(second);
    expect(first.split('.')[2]).not.toBe(second.split('.')[2]);
    expect([openToken(keyring, first, CONNECTION), openToken(keyring, second, CONNECTION)]).toEqual([TOKEN, TOKEN]);
  });

  it('refuses an empty token and one over 4096 characters, without repeating it', () => {
    expect(() => sealToken(keyring, '', CONNECTION)).toThrow(CredentialsError);
    const long = 'x'.repeat(4097);
    const error = thrown(() => sealToken(keyring, long, CONNECTION));
    expect(error).toBeInstanceOf(CredentialsError);
    expect(error.message).not.toContain('xxxx');
  });

  it('fails on any tampered part, with an error that holds neither the token nor the sealed value', () => {
    const sealed = sealToken(keyring, TOKEN, CONNECTION);
    const tampered = [
      withPart(sealed, 2, flipFirstByte), // nonce
      withPart(sealed, 3, flipFirstByte), // ciphertext
      withPart(sealed, 4, flipFirstByte), // tag
      withPart(sealed, 3, (part) => part.slice(0, -2)), // a shorter ciphertext
    ];
    for (const value of tampered) {
      const error = thrown(() => openToken(keyring, value, CONNECTION));
      expect(error).toBeInstanceOf(CredentialsError);
      expect(error.message).toMatch(/does not open: it was altered or damaged/);
      expect(error.message).not.toContain(TOKEN);
      expect(error.message).not.toContain(value.split('.')[3]);
    }
  });

  it('fails on a value not in the stored form', () => {
    const sealed = sealToken(keyring, TOKEN, CONNECTION);
    const malformed = [
      '',
      TOKEN,
      sealed.replace(/^v1/, 'v2'),
      `${sealed}.extra`,
      withPart(sealed, 2, (part) => part.slice(0, 8)), // a nonce of 6 bytes
      withPart(sealed, 4, (part) => `${part}AAAA`), // a tag of 19 bytes
      withPart(sealed, 3, (part) => `${part}+/`), // not base64url
      `v1.${keyring.current.id}.${'A'.repeat(9000)}`,
    ];
    for (const value of malformed)
      expect(thrown(() => openToken(keyring, value, CONNECTION)).message).toMatch(/is not in the stored form/);
  });

  it('binds the connection: a value copied to another connection does not open there', () => {
    const sealed = sealToken(keyring, TOKEN, CONNECTION);
    const error = thrown(() => openToken(keyring, sealed, '7f1b3c9e-0000-4000-8000-000000000002'));
    expect(error.message).toMatch(/altered or damaged/);
    expect(error.message).not.toContain(TOKEN);
  });

  it('binds the key id: a value relabelled with another key of the keyring does not open under it', () => {
    const other = newKey();
    const both = keyringOf(newKey(), [other]);
    const sealed = sealToken(both, TOKEN, CONNECTION);
    const relabelled = withPart(sealed, 1, () => keyId(Buffer.from(other, 'base64')));
    expect(thrown(() => openToken(both, relabelled, CONNECTION)).message).toMatch(/altered or damaged/);
  });

  it('fails on an unknown key id, naming the id and the settings, never the token', () => {
    const sealed = sealToken(keyringOf(newKey()), TOKEN, CONNECTION);
    const error = thrown(() => openToken(keyring, sealed, CONNECTION));
    expect(error).toBeInstanceOf(CredentialsError);
    expect(error.message).toBe(
      `the sealed token is under key ${sealed.split('.')[1]}, which is neither CHANNEL_CREDENTIALS_KEY nor one of CHANNEL_CREDENTIALS_OLD_KEYS`,
    );
  });
});

describe('rotation', () => {
  it('opens a value sealed under an old key when it is listed in the old keys, and seals under the new one', () => {
    const oldKey = newKey();
    const sealedBefore = sealToken(keyringOf(oldKey), TOKEN, CONNECTION);
    const rotated = keyringOf(newKey(), [oldKey]);
    expect(openToken(rotated, sealedBefore, CONNECTION)).toBe(TOKEN);
    const sealedAfter = sealToken(rotated, TOKEN, CONNECTION);
    expect(sealedAfter.split('.')[1]).toBe(rotated.current.id);
    expect(sealedAfter.split('.')[1]).not.toBe(sealedBefore.split('.')[1]);
    // Without the old key listed, what it sealed no longer opens.
    const withoutOld = keyringOf(rotated.current.key.toString('base64'));
    expect(thrown(() => openToken(withoutOld, sealedBefore, CONNECTION)).message).toMatch(
      /neither CHANNEL_CREDENTIALS_KEY/,
    );
  });

  it('the key id is the first 8 hex digits of the key’s SHA-256; a bad key names the setting and the way out', () => {
    const key = Buffer.alloc(32, 7);
    expect(keyId(key)).toBe(createHash('sha256').update(key).digest('hex').slice(0, 8));
    expect(keyringOf(key.toString('base64')).current.id).toBe(keyId(key));
    expect(() => keyringOf('short')).toThrow(
      'CHANNEL_CREDENTIALS_KEY: must be 32 random bytes in base64 (make one with `openssl rand -base64 32`)',
    );
    expect(() => keyringOf(newKey(), [newKey(), 'bad'])).toThrow(/CHANNEL_CREDENTIALS_OLD_KEYS \(entry 2\)/);
  });

  it('tokenLast4: the last four characters, and none of a short token', () => {
    expect(tokenLast4(TOKEN)).toBe('7890');
    expect(tokenLast4('short-token')).toBe('****');
  });
});

describe('the key in the data directory (no CHANNEL_CREDENTIALS_KEY)', () => {
  const dirs: string[] = [];
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'ep-creds-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('is written once at the first start, 0600 like the admin token, and reused after', () => {
    const dir = join(scratch(), 'data'); // not there yet: made
    const first = channelKeyring(loadConfig({ DATA_DIR: dir }));
    const file = join(dir, CHANNEL_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = readFileSync(file, 'utf8');
    expect(Buffer.from(written.trim(), 'base64')).toHaveLength(32);
    const sealed = sealToken(first, TOKEN, CONNECTION);
    // A later start (PostgreSQL in development too) reads it back: the same key, the same file.
    const later = channelKeyring(loadConfig({ DATA_DIR: dir, DATABASE_URL: 'postgres://db/x' }));
    expect(later.current.id).toBe(first.current.id);
    expect(openToken(later, sealed, CONNECTION)).toBe(TOKEN);
    expect(readFileSync(file, 'utf8')).toBe(written);
  });

  it('is not written when CHANNEL_CREDENTIALS_KEY is set, which is used with the old keys', () => {
    const dir = scratch();
    const [current, old] = [newKey(), newKey()];
    const keyring = channelKeyring(
      loadConfig({ DATA_DIR: dir, CHANNEL_CREDENTIALS_KEY: current, CHANNEL_CREDENTIALS_OLD_KEYS: `${old},` }),
    );
    expect(keyring.current.key.toString('base64')).toBe(current);
    expect([...keyring.byId.keys()].sort()).toEqual(
      [keyId(Buffer.from(current, 'base64')), keyId(Buffer.from(old, 'base64'))].sort(),
    );
    expect(() => statSync(join(dir, CHANNEL_KEY_FILE))).toThrow();
  });

  it('a damaged key file is named with the way out, never replaced', () => {
    const dir = scratch();
    writeFileSync(join(dir, CHANNEL_KEY_FILE), 'not a key\n', { mode: 0o600 });
    const error = thrown(() => channelKeyring(loadConfig({ DATA_DIR: dir })));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(`${join(dir, CHANNEL_KEY_FILE)} is not a key of 32 bytes in base64`);
    expect(error.message).toContain('Restore it from a backup');
    expect(readFileSync(join(dir, CHANNEL_KEY_FILE), 'utf8')).toBe('not a key\n');
  });

  it('services built without start-up (tests, tools) share one key per process, or take the setting', () => {
    const config = loadConfig({ DATA_DIR: scratch() });
    const first: Keyring = createServices(config).channelKeys;
    expect(createServices(config).channelKeys.current.id).toBe(first.current.id);
    const key = newKey();
    const configured = createServices(loadConfig({ DATA_DIR: scratch(), CHANNEL_CREDENTIALS_KEY: key })).channelKeys;
    expect(configured.current.key.toString('base64')).toBe(key);
  });
});

describe('log redaction of tokens', () => {
  it('no log line holds a token under access_token, accessToken, token or an Authorization header', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (chunk: string) => void lines.push(chunk) });
    const bearer = `Bearer ${TOKEN}`;
    logger.info({ access_token: TOKEN, accessToken: TOKEN, token: TOKEN, authorization: bearer }, 'top');
    logger.info({ connection: { access_token: TOKEN, accessToken: TOKEN, token: TOKEN } }, 'one down');
    logger.info({ connection: { credentials: { access_token: TOKEN, accessToken: TOKEN, token: TOKEN } } }, 'two');
    logger.info({ headers: { authorization: bearer, Authorization: bearer } }, 'headers');
    logger.info({ req: { headers: { authorization: bearer } }, request: { headers: { Authorization: bearer } } }, 'r');
    logger.error({ err: { request: { headers: { authorization: bearer } } } }, 'an error with its request');
    logger.info({ graph: { Authorization: bearer } }, 'a header object');
    expect(lines).toHaveLength(7);
    for (const line of lines) {
      expect(line).not.toContain(TOKEN);
      expect(line).toContain('[redacted]');
    }
  });
});
