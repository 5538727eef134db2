// A channel provider's access token at rest (issue 35): sealed with AES-256-GCM under CHANNEL_CREDENTIALS_KEY,
// one string that fits a text column, carrying the id of the key that sealed it so the key can rotate (the old
// keys, CHANNEL_CREDENTIALS_OLD_KEYS, still open what they sealed). No error here ever holds the token, the
// key or the sealed value: an error may reach a log line.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A key of the keyring: its bytes and its id (the first 8 hex digits of the SHA-256 of the bytes). */
export interface ChannelKey {
  id: string;
  key: Buffer;
}

/** The current key seals; every key (current and old) opens, looked up by the id a sealed value carries. */
export interface Keyring {
  current: ChannelKey;
  byId: ReadonlyMap<string, Buffer>;
}

/** `v1.<key id>.<nonce>.<ciphertext>.<tag>`, each part but the first two base64url. */
export type SealedToken = `v1.${string}`;

/** Why a token could not be sealed or opened; the message names the key id at most. */
export class CredentialsError extends Error {}

const VERSION = 'v1';
const KEY_BYTES = 32;
const NONCE_BYTES = 12; // GCM's standard nonce: random per seal, never reused under one key in practice
const TAG_BYTES = 16;
/** An access token longer than this is not one (Meta's are a few hundred characters). */
export const MAX_TOKEN_LENGTH = 4096;
/** The stored form of a token of MAX_TOKEN_LENGTH bytes, with room: a longer value is refused before decoding. */
const MAX_SEALED_LENGTH = 8192;
const KEY_ID = /^[0-9a-f]{8}$/;
const BASE64URL = /^[\w-]*$/;

/** A key's id: short, stable, and saying nothing useful about the key (32 of 256 bits of its hash). */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** 32 bytes from base64 (standard or url-safe, padded or not); anything else is refused. */
export function decodeKey(base64: string, name: string): Buffer {
  const bytes = Buffer.from(base64, 'base64');
  const standard = bytes.toString('base64');
  const urlSafe = bytes.toString('base64url');
  const canonical = [standard, standard.replace(/=/g, ''), urlSafe, `${urlSafe}=`];
  if (bytes.length !== KEY_BYTES || !canonical.includes(base64))
    throw new CredentialsError(
      `${name}: must be 32 random bytes in base64 (make one with \`openssl rand -base64 32\`)`,
    );
  return bytes;
}

/**
 * The keyring of `current` (base64, seals) and `old` (base64, open only what they sealed). Two different keys
 * with the same id are refused: a sealed value would not say which one opens it.
 */
export function keyringOf(current: string, old: readonly string[] = []): Keyring {
  const currentKey = decodeKey(current, 'CHANNEL_CREDENTIALS_KEY');
  const byId = new Map<string, Buffer>([[keyId(currentKey), currentKey]]);
  old.forEach((value, i) => {
    const key = decodeKey(value, `CHANNEL_CREDENTIALS_OLD_KEYS (entry ${i + 1})`);
    const id = keyId(key);
    const known = byId.get(id);
    if (known && !known.equals(key))
      throw new CredentialsError(`CHANNEL_CREDENTIALS_OLD_KEYS (entry ${i + 1}): another key has the same id ${id}`);
    byId.set(id, key);
  });
  return { current: { id: keyId(currentKey), key: currentKey }, byId };
}

/**
 * What the tag authenticates besides the ciphertext: the version, the key id and the connection the token is for,
 * so none can be swapped (a sealed value copied to another connection's row does not open there).
 */
function header(id: string, connectionId: string): Buffer {
  return Buffer.from(`${VERSION}.${id}.${connectionId}`, 'utf8');
}

/**
 * `token` sealed for connection `connectionId` under the keyring's current key, with a fresh random nonce (two
 * seals of one token differ).
 */
export function sealToken(keyring: Keyring, token: string, connectionId: string): SealedToken {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH)
    throw new CredentialsError(`an access token must have 1 to ${MAX_TOKEN_LENGTH} characters`);
  const { id, key } = keyring.current;
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(header(id, connectionId));
  const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  const parts = [nonce, ciphertext, cipher.getAuthTag()].map((part) => part.toString('base64url'));
  return `${VERSION}.${id}.${parts.join('.')}`;
}

/**
 * The token `sealed` holds for connection `connectionId`. Throws CredentialsError on a value not in the stored
 * form, of an unknown key, altered, or sealed for another connection.
 */
export function openToken(keyring: Keyring, sealed: string, connectionId: string): string {
  const { id, nonce, ciphertext, tag } = parseSealed(sealed);
  const key = keyring.byId.get(id);
  if (!key)
    throw new CredentialsError(
      `the sealed token is under key ${id}, which is neither CHANNEL_CREDENTIALS_KEY nor one of CHANNEL_CREDENTIALS_OLD_KEYS`,
    );
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(header(id, connectionId));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    // node's own message is generic, but the error is replaced anyway: nothing of the value travels on.
    throw new CredentialsError(
      `the sealed token under key ${id} does not open: it was altered or damaged, or sealed for another connection`,
    );
  }
}

function parseSealed(sealed: string): { id: string; nonce: Buffer; ciphertext: Buffer; tag: Buffer } {
  const malformed = () =>
    new CredentialsError('the sealed token is not in the stored form v1.<key id>.<nonce>.<ciphertext>.<tag>');
  if (sealed.length > MAX_SEALED_LENGTH) throw malformed();
  const [version, id, ...rest] = sealed.split('.');
  if (version !== VERSION || id === undefined || !KEY_ID.test(id) || rest.length !== 3) throw malformed();
  const [nonce, ciphertext, tag] = rest.map((part) => (BASE64URL.test(part) ? Buffer.from(part, 'base64url') : null));
  if (!nonce || !ciphertext || !tag || nonce.length !== NONCE_BYTES || tag.length !== TAG_BYTES) throw malformed();
  return { id, nonce, ciphertext, tag };
}

/**
 * The last four characters of `token`, to tell credentials apart in an answer; `****` for a token under 16
 * characters, of which four would be too large a part.
 */
export function tokenLast4(token: string): string {
  return token.length >= 16 ? token.slice(-4) : '****';
}
