// The settings of a real WhatsApp number (issue 35): META_APP_SECRET, META_VERIFY_TOKEN, GRAPH_API_BASE_URL,
// GRAPH_API_VERSION, CHANNEL_CREDENTIALS_KEY and CHANNEL_CREDENTIALS_OLD_KEYS: defaults, what each refuses with
// a message naming it, and production refusing to start without the credentials key.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../server/config.js';

const KEY = randomBytes(32).toString('base64');
const HINT = 'must be 32 random bytes in base64 (make one with `openssl rand -base64 32`)';
const production = {
  APP_ENV: 'production',
  DATABASE_URL: 'postgres://db/x',
  ADMIN_TOKEN: 'x'.repeat(32),
  PUBLIC_BASE_URL: 'https://api.example.com',
};

/** The message loadConfig(env) refuses with (it must refuse). */
function refusal(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('META_APP_SECRET and META_VERIFY_TOKEN', () => {
  it('are unset by default and taken as given', () => {
    expect(loadConfig({})).toMatchObject({ metaAppSecret: undefined, metaVerifyToken: undefined });
    const config = loadConfig({ META_APP_SECRET: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6', META_VERIFY_TOKEN: 'my-verify' });
    expect(config).toMatchObject({ metaAppSecret: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6', metaVerifyToken: 'my-verify' });
  });

  it('refuse an empty value, naming the setting', () => {
    expect(refusal({ META_APP_SECRET: '' })).toMatch(/^ {2}META_APP_SECRET: /m);
    expect(refusal({ META_VERIFY_TOKEN: '' })).toMatch(/^ {2}META_VERIFY_TOKEN: /m);
  });
});

describe('GRAPH_API_BASE_URL', () => {
  it("is Meta's by default; an http(s) URL is taken without its trailing slashes", () => {
    expect(loadConfig({}).graphApiBaseUrl).toBe('https://graph.facebook.com');
    expect(loadConfig({ GRAPH_API_BASE_URL: 'http://127.0.0.1:4010/' }).graphApiBaseUrl).toBe('http://127.0.0.1:4010');
    expect(loadConfig({ GRAPH_API_BASE_URL: 'https://proxy.example.com/graph//' }).graphApiBaseUrl).toBe(
      'https://proxy.example.com/graph',
    );
  });

  it('refuses what is not an http(s) URL', () => {
    for (const value of ['ftp://graph.example.com', 'graph.facebook.com', 'not a url', ''])
      expect(refusal({ GRAPH_API_BASE_URL: value })).toMatch(/^ {2}GRAPH_API_BASE_URL: /m);
  });
});

describe('INSTAGRAM_GRAPH_BASE_URL', () => {
  it("is Instagram's by default; an http(s) URL is taken without its trailing slashes", () => {
    expect(loadConfig({}).instagramGraphBaseUrl).toBe('https://graph.instagram.com');
    expect(loadConfig({ INSTAGRAM_GRAPH_BASE_URL: 'http://127.0.0.1:4010/' }).instagramGraphBaseUrl).toBe(
      'http://127.0.0.1:4010',
    );
  });

  it('refuses what is not an http(s) URL', () => {
    for (const value of ['ftp://graph.example.com', 'graph.instagram.com', ''])
      expect(refusal({ INSTAGRAM_GRAPH_BASE_URL: value })).toMatch(/^ {2}INSTAGRAM_GRAPH_BASE_URL: /m);
  });
});

describe('GRAPH_API_VERSION', () => {
  it('is pinned to v23.0 by default and takes another vN.N', () => {
    expect(loadConfig({}).graphApiVersion).toBe('v23.0');
    expect(loadConfig({ GRAPH_API_VERSION: 'v24.0' }).graphApiVersion).toBe('v24.0');
  });

  it('refuses anything else, saying what it looks like', () => {
    for (const value of ['23.0', 'v23', 'v23.0/', 'latest', 'v23.0.1', ''])
      expect(refusal({ GRAPH_API_VERSION: value })).toContain(
        'GRAPH_API_VERSION: must be a Graph API version like v23.0',
      );
  });
});

describe('CHANNEL_CREDENTIALS_KEY', () => {
  it('takes 32 bytes in base64, standard or url-safe, padded or not (and surrounding blanks)', () => {
    const bytes = randomBytes(32);
    const forms = [
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=/g, ''),
      bytes.toString('base64url'),
      ` ${bytes.toString('base64')}\n`,
    ];
    for (const value of forms)
      expect(loadConfig({ CHANNEL_CREDENTIALS_KEY: value }).channelCredentialsKey).toBe(value.trim());
    expect(loadConfig({}).channelCredentialsKey).toBeUndefined();
  });

  it('refuses anything that is not exactly 32 bytes of base64, saying how to make one and never repeating it', () => {
    const wrong = [
      randomBytes(16).toString('base64'),
      randomBytes(33).toString('base64'),
      randomBytes(31).toString('base64'),
      'x'.repeat(32), // 32 characters, 24 bytes
      'not base64 at all, but long enough to be 44 chars',
      `${KEY.slice(0, 20)}!${KEY.slice(21)}`, // a character base64 has not, which a lenient decoder skips
      randomBytes(32).toString('hex'),
      '',
    ];
    for (const value of wrong) {
      const message = refusal({ CHANNEL_CREDENTIALS_KEY: value });
      expect(message).toContain(`CHANNEL_CREDENTIALS_KEY: ${HINT}`);
      if (value) expect(message).not.toContain(value);
    }
  });

  it('APP_ENV=production refuses to start without it, naming it among the other musts', () => {
    const message = refusal(production);
    expect(message).toBe(
      'invalid configuration:\n  CHANNEL_CREDENTIALS_KEY: required when APP_ENV=production (32 random bytes in base64: `openssl rand -base64 32`)',
    );
    expect(refusal({ APP_ENV: 'production' })).toMatch(/DATABASE_URL[\s\S]*CHANNEL_CREDENTIALS_KEY: required/);
    expect(loadConfig({ ...production, CHANNEL_CREDENTIALS_KEY: KEY }).channelCredentialsKey).toBe(KEY);
  });
});

describe('CHANNEL_CREDENTIALS_OLD_KEYS', () => {
  it('is a comma-separated list of keys (blanks and a trailing comma ignored), empty by default', () => {
    const [a, b] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64url')];
    expect(loadConfig({}).channelCredentialsOldKeys).toEqual([]);
    expect(loadConfig({ CHANNEL_CREDENTIALS_OLD_KEYS: `${a}, ${b},` }).channelCredentialsOldKeys).toEqual([a, b]);
  });

  it('refuses a list with any entry that is not a key, without repeating it', () => {
    const bad = randomBytes(16).toString('base64');
    const message = refusal({ CHANNEL_CREDENTIALS_OLD_KEYS: `${KEY},${bad}` });
    expect(message).toContain(`CHANNEL_CREDENTIALS_OLD_KEYS: each entry ${HINT}`);
    expect(message).not.toContain(bad);
    expect(message).not.toContain(KEY);
  });
});
