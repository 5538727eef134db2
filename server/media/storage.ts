// Where media bytes live. The database keeps what a media is (type, name, size, dates); the bytes live in a
// `MediaStorage`, never in the database. The service ships one implementation, `LocalDiskStorage`, a directory
// (`DATA_DIR/media` by default); another store (an object store shared by several servers) implements the
// same four calls.
//
// A write goes to a temporary file next to its destination and is renamed over it when complete: a reader
// sees the old file or the new one, never half of an upload, and an interrupted upload leaves nothing behind.
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface StoredFile {
  stream: Readable;
  /** The bytes of this file (of the version opened, if it is replaced meanwhile). */
  size: number;
}

export interface MediaStorage {
  /** Stores the bytes under `key`, replacing what was there. Resolves once they are complete and visible. */
  put(key: string, data: Readable | Buffer): Promise<{ size: number }>;
  /** The file under `key`, or undefined when there is none. Throws when the storage does not answer. */
  open(key: string): Promise<StoredFile | undefined>;
  /** Whether a file is stored under `key`. Throws when the storage does not answer. */
  exists(key: string): Promise<boolean>;
}

/** Keys are path-like (`<account id>/<media id>`): segments of letters, digits, `.`, `_`, `-`, never `..`. */
const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** The storage key of a media's bytes. */
export const mediaKey = (accountId: string, mediaId: string): string => `${accountId}/${mediaId}`;

export class LocalDiskStorage implements MediaStorage {
  readonly root: string;

  /** `root` is created on the first write. */
  constructor(root: string) {
    this.root = resolve(root);
  }

  private path(key: string): string {
    if (!KEY.test(key) || key.length > 512) throw new Error(`invalid media storage key: ${key}`);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, data: Readable | Buffer): Promise<{ size: number }> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    // Same directory as the target, so the rename is atomic; the leading dot keeps it out of every key.
    const temp = join(dirname(target), `.${randomUUID()}.part`);
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      const source = Buffer.isBuffer(data) ? Readable.from([data]) : data;
      await pipeline(source, count, createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
      await rename(temp, target);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    return { size };
  }

  async open(key: string): Promise<StoredFile | undefined> {
    const path = this.path(key);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    try {
      // Size and bytes from the same open file: a replacement renamed over it meanwhile does not mix in.
      const { size } = await handle.stat();
      return { stream: handle.createReadStream(), size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.path(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }
}

function isMissing(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
}
