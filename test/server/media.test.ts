// Media (Part A: Media (upload), Attachment rules, POST /v1/media, GET /v1/media/{mediaId}/content, the media
// errors) on every engine of the run: create → PUT the bytes to `upload_url` → 302 to a download link → the
// same bytes and type; the 5-minute upload window and download link; received media (404 while being stored,
// 410 after 90 days); storage that does not answer (503); scopes and the content_type format.
//
// The pre-signed upload answers 204 No Content when the file is stored (there is nothing to return: the media
// is the one POST /v1/media gave). Its errors are a small `{message}`: 403 link not valid or expired, 415 another
// Content-Type, 503 storage did not answer. Content-Type is compared without parameters and ignoring case.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../server/domain/accounts/keys.js';
import { findMediaInfo, mediaContentLink, storeReceivedMedia } from '../../server/domain/messaging/media.js';
import { LARGEST_MEDIA_BYTES, MEDIA_RULES } from '../../server/domain/messaging/send-rules.js';
import { createApp } from '../../server/http/app.js';
import { StoreRateLimiter } from '../../server/http/rate-limit.js';
import { LocalDiskStorage, mediaKey, type MediaStorage } from '../../server/media/storage.js';
import { appRoutes, call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import type { ErrorBody } from './http-helpers.js';
import type { SchemaMedia } from '../../generated/api.js';
import { PNG } from '../fixtures/media-bytes.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const PDF = Buffer.from('%PDF-1.7\n' + 'x'.repeat(70_000) + '\n%%EOF\n');
const PDF_HEAD = Buffer.from('%PDF-1.7\n');
const MB = 1024 * 1024;

const put = (url: string, bytes: Buffer | string, contentType?: string) =>
  fetch(url, { method: 'PUT', body: bytes, headers: contentType ? { 'Content-Type': contentType } : {} });

/** GET /v1/media/{id}/content without following the redirect. */
const content = (baseUrl: string, c: TestCaller, id: string) =>
  fetch(`${baseUrl}/v1/media/${id}/content`, { headers: { Authorization: `Bearer ${c.apiKey}` }, redirect: 'manual' });

/** A storage whose every call fails, as when the disk or the object store is gone. */
class BrokenStorage implements MediaStorage {
  put(): Promise<{ size: number }> {
    return Promise.reject(new Error('storage down'));
  }
  open(): Promise<undefined> {
    return Promise.reject(new Error('storage down'));
  }
  exists(): Promise<boolean> {
    return Promise.reject(new Error('storage down'));
  }
}

describe.each(engines)('media on %s', (engine) => {
  let t: TestApp;
  let dataDir: string;
  let storage: LocalDiskStorage;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ep-media-'));
    t = await startTestApp(engine, { env: { DATA_DIR: dataDir } });
    storage = new LocalDiskStorage(join(dataDir, 'media'));
  });
  afterAll(async () => {
    await t?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function created(c: TestCaller, body: Record<string, unknown>): Promise<SchemaMedia> {
    const res = await c.call('POST', '/v1/media', { body });
    expect(res.status).toBe(201);
    return (await res.json()) as SchemaMedia;
  }

  /** The answer of the download link the content route redirects to (no key sent to it). */
  async function download(c: TestCaller, id: string): Promise<Response> {
    const res = await content(t.baseUrl, c, id);
    expect(res.status).toBe(302);
    return fetch(res.headers.get('location')!);
  }

  const mediaRow = (c: TestCaller, id: string) =>
    t.database.db
      .selectFrom('media')
      .selectAll()
      .where('account_id', '=', c.accountId)
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('creates a media: 201 with id, content_type, filename, upload_url, upload_expires_at (+5 min), created_at', async () => {
    const me = await t.account();
    const res = await me.call('POST', '/v1/media', { body: { content_type: 'image/png' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const media = (await res.json()) as SchemaMedia;
    expect(Object.keys(media).sort()).toEqual([
      'content_type',
      'created_at',
      'filename',
      'id',
      'upload_expires_at',
      'upload_url',
    ]);
    expect(media.content_type).toBe('image/png');
    expect(media.filename).toBeNull();
    expect(media.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(Date.parse(media.upload_expires_at) - Date.parse(media.created_at)).toBe(5 * MINUTE);
    expect(media.upload_url.startsWith(`${t.baseUrl}/media-upload/`)).toBe(true);

    const doc = await created(me, { content_type: 'application/pdf', filename: 'nota-fiscal-4821.pdf' });
    expect(doc.filename).toBe('nota-fiscal-4821.pdf');
    const row = await mediaRow(me, doc.id);
    expect(row).toMatchObject({ origin: 'upload', uploaded_at: null, size: null, expires_at: null });
  });

  it('PUT the bytes (204) → content 302 → the download link gives the same bytes and Content-Type', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'image/png' });
    const up = await put(media.upload_url, PNG, 'image/png');
    expect(up.status).toBe(204);
    expect(await up.text()).toBe('');

    const res = await content(t.baseUrl, me, media.id);
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toBe('');
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${t.baseUrl}/media-download/`)).toBe(true);

    // The link needs no key.
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('content-length')).toBe(String(PNG.length));
    expect(file.headers.get('content-disposition')).toBeNull();
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);

    // Most clients follow the redirect by themselves.
    const followed = await me.call('GET', `/v1/media/${media.id}/content`);
    expect(followed.status).toBe(200);
    expect(Buffer.from(await followed.arrayBuffer())).toEqual(PNG);

    const row = await mediaRow(me, media.id);
    expect(row.uploaded_at).not.toBeNull();
    expect(Number(row.size)).toBe(PNG.length);
    expect(await findMediaInfo(t.database.db, t.clock, me.accountId, media.id)).toEqual({
      id: media.id,
      origin: 'upload',
      uploaded: true,
      expired: false,
      content_type: 'image/png',
      size: PNG.length,
      filename: null,
      detected_format: 'png',
    });
  });

  it('stores at most the largest file a channel takes plus one byte: the rest is not read, and the send refuses it', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'application/pdf' });
    const cap = LARGEST_MEDIA_BYTES + 1;
    const offered = cap + 64 * MB;
    let pulled = 0;
    // A client that would send 64 MB past the cap, a PDF by its first bytes.
    async function* bytes() {
      yield PDF_HEAD;
      pulled += PDF_HEAD.length;
      const chunk = Buffer.alloc(MB, 0x20);
      while (pulled < offered) {
        yield chunk;
        pulled += chunk.length;
      }
    }
    const url = new URL(media.upload_url);
    const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = request(
        url,
        { method: 'PUT', headers: { 'Content-Type': 'application/pdf', 'Content-Length': String(offered) } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
          req.destroy();
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
      });
      Readable.from(bytes()).pipe(req);
    });
    expect(answer).toEqual({ status: 204, connection: 'close' });
    expect(pulled).toBeLessThan(offered - 32 * MB);
    const row = await mediaRow(me, media.id);
    expect(Number(row.size)).toBe(cap);
    const file = await storage.open(mediaKey(me.accountId, media.id));
    expect(file?.size).toBe(cap);
    file?.stream.destroy();
    // Too large for every channel at send; the bytes still read as what they say.
    expect(await findMediaInfo(t.database.db, t.clock, me.accountId, media.id)).toMatchObject({
      size: cap,
      detected_format: 'pdf',
    });
    expect(cap).toBeGreaterThan(
      Math.max(...Object.values(MEDIA_RULES).flatMap((r) => Object.values(r).map((x) => x.maxSize))),
    );
  }, 60_000);

  it('a document downloads with its file name (Content-Disposition), a larger body streamed whole', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'application/pdf', filename: 'relatório final "v2".pdf' });
    // Parameters and letter case of the upload's Content-Type do not matter.
    expect((await put(media.upload_url, PDF, 'Application/PDF; charset=binary')).status).toBe(204);
    const file = await download(me, media.id);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.headers.get('content-length')).toBe(String(PDF.length));
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="relat_rio final _v2_.pdf"; filename*=UTF-8''relat%C3%B3rio%20final%20%22v2%22.pdf`,
    );
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PDF);
  });

  it('an upload of type application/json is stored as is, not read as a request body', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'application/json' });
    const json = '{"not": "parsed"}';
    expect((await put(media.upload_url, json, 'application/json')).status).toBe(204);
    const file = await download(me, media.id);
    expect(file.headers.get('content-type')).toBe('application/json');
    expect(await file.text()).toBe(json);
  });

  it('a repeat upload within the window replaces the file', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'text/plain' });
    expect((await put(media.upload_url, 'first version, longer', 'text/plain')).status).toBe(204);
    t.clock.advance(MINUTE);
    expect((await put(media.upload_url, 'second', 'text/plain')).status).toBe(204);
    const file = await download(me, media.id);
    expect(await file.text()).toBe('second');
    expect(Number((await mediaRow(me, media.id)).size)).toBe(6);
  });

  it('an upload cut off by the client leaves nothing: no file, no temporary file, not uploaded', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'video/mp4' });
    const url = new URL(media.upload_url);
    await new Promise<void>((ok) => {
      const req = request(url, { method: 'PUT', headers: { 'Content-Type': 'video/mp4' } });
      req.on('error', () => ok());
      req.write(Buffer.alloc(64 * 1024, 1), () => setTimeout(() => req.destroy(), 100));
    });
    // The server notices the hang-up asynchronously.
    for (let i = 0; i < 50 && (await readdir(join(dataDir, 'media', me.accountId)).catch(() => [])).length > 0; i++)
      await new Promise((ok) => setTimeout(ok, 20));
    expect(await readdir(join(dataDir, 'media', me.accountId)).catch(() => [])).toEqual([]);
    expect((await mediaRow(me, media.id)).uploaded_at).toBeNull();
    expect((await content(t.baseUrl, me, media.id)).status).toBe(404);
  });

  it('PUT with another Content-Type (or none) → 415 {message} and nothing stored', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'image/jpeg' });
    for (const type of ['image/png', 'application/octet-stream', undefined]) {
      const res = await put(media.upload_url, PNG, type);
      expect(res.status, String(type)).toBe(415);
      const body = (await res.json()) as { message: string };
      expect(Object.keys(body)).toEqual(['message']);
      expect(body.message).toContain('image/jpeg');
    }
    expect(await storage.exists(mediaKey(me.accountId, media.id))).toBe(false);
    expect((await mediaRow(me, media.id)).uploaded_at).toBeNull();
    expect((await content(t.baseUrl, me, media.id)).status).toBe(404);
  });

  it('the upload window is 5 minutes: at its end the PUT works, after it 403 {message}', async () => {
    const me = await t.account();
    const late = await created(me, { content_type: 'image/png' });
    const onTime = await created(me, { content_type: 'image/png' });
    t.clock.advance(5 * MINUTE);
    expect((await put(onTime.upload_url, PNG, 'image/png')).status).toBe(204);
    t.clock.advance(1);
    const res = await put(late.upload_url, PNG, 'image/png');
    expect(res.status).toBe(403);
    expect(Object.keys((await res.json()) as object)).toEqual(['message']);
    expect(await storage.exists(mediaKey(me.accountId, late.id))).toBe(false);
    // A repeat upload after the window is refused too; the file uploaded in time stays.
    expect((await put(onTime.upload_url, 'other', 'image/png')).status).toBe(403);
    expect(Buffer.from(await (await download(me, onTime.id)).arrayBuffer())).toEqual(PNG);
  });

  it('content of a media never uploaded is 404 not_found; unknown and other accounts’ media too', async () => {
    const me = await t.account();
    const other = await t.account();
    const media = await created(me, { content_type: 'image/png' });
    const before = await content(t.baseUrl, me, media.id);
    expect(before.status).toBe(404);
    expect(((await before.json()) as ErrorBody).context.code).toBe('not_found');

    expect((await put(media.upload_url, PNG, 'image/png')).status).toBe(204);
    expect((await content(t.baseUrl, me, media.id)).status).toBe(302);
    const foreign = await content(t.baseUrl, other, media.id);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as ErrorBody).context.code).toBe('not_found');
    const unknown = await content(t.baseUrl, me, '6f1c1c3e-1f6b-4a51-9d5e-0d7b8c9a0b1c');
    expect(unknown.status).toBe(404);
    expect((await content(t.baseUrl, me, 'not-a-uuid')).status).toBe(400);
    expect(await findMediaInfo(t.database.db, t.clock, other.accountId, media.id)).toBeUndefined();
  });

  it('received media: 404 while being stored (3 s), then 302, then 410 media_expired after 90 days', async () => {
    const me = await t.account({ validityDays: 365 });
    const row = await storeReceivedMedia(t.database.db, storage, t.clock, me.accountId, {
      content_type: 'image/jpeg',
      filename: null,
      bytes: PNG,
    });
    expect(row).toMatchObject({ origin: 'received', content_type: 'image/jpeg', uploaded_at: null });
    expect(Number(row.size)).toBe(PNG.length);
    expect(Date.parse(row.available_at!) - Date.parse(row.created_at)).toBe(3000);
    expect(Date.parse(row.expires_at!) - Date.parse(row.created_at)).toBe(90 * DAY);

    const storing = await content(t.baseUrl, me, row.id);
    expect(storing.status).toBe(404);
    expect(((await storing.json()) as ErrorBody).context.code).toBe('not_found');
    t.clock.advance(2999);
    expect((await content(t.baseUrl, me, row.id)).status).toBe(404);
    t.clock.advance(1);
    const file = await download(me, row.id);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);
    expect(await findMediaInfo(t.database.db, t.clock, me.accountId, row.id)).toMatchObject({
      origin: 'received',
      uploaded: true,
      expired: false,
      size: PNG.length,
    });

    // A download link handed out just before the end of retention stops at the end.
    t.clock.advance(90 * DAY - 3000 - MINUTE);
    const link = (await content(t.baseUrl, me, row.id)).headers.get('location')!;
    t.clock.advance(MINUTE);
    const gone = await content(t.baseUrl, me, row.id);
    expect(gone.status).toBe(410);
    expect((await gone.json()) as ErrorBody).toEqual({
      type: 'error',
      message: expect.any(String) as string,
      context: { code: 'media_expired' },
    });
    expect((await fetch(link)).status).toBe(410);
    expect((await findMediaInfo(t.database.db, t.clock, me.accountId, row.id))?.expired).toBe(true);
  });

  it('retention ends at expires_at itself, on the content route, a download link and the send rules alike', async () => {
    const me = await t.account({ validityDays: 365 });
    const row = await storeReceivedMedia(t.database.db, storage, t.clock, me.accountId, {
      content_type: 'image/jpeg',
      filename: null,
      bytes: PNG,
    });
    const expired = async () => (await findMediaInfo(t.database.db, t.clock, me.accountId, row.id))?.expired;
    t.clock.advance(Date.parse(row.expires_at!) - t.clock.now().getTime() - 1);
    const link = (await content(t.baseUrl, me, row.id)).headers.get('location')!;
    expect((await fetch(link)).status).toBe(200);
    expect(await expired()).toBe(false);
    for (const step of [1, 1]) {
      t.clock.advance(step); // at expires_at, then after it
      expect((await content(t.baseUrl, me, row.id)).status).toBe(410);
      expect((await fetch(link)).status).toBe(410);
      expect(await expired()).toBe(true);
    }
  });

  it('an upload link works until upload_expires_at included: just before and at it 204, after it 403', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'image/png' });
    t.clock.advance(Date.parse(media.upload_expires_at) - t.clock.now().getTime() - 1);
    expect((await put(media.upload_url, PNG, 'image/png')).status).toBe(204);
    t.clock.advance(1);
    expect((await put(media.upload_url, PNG, 'image/png')).status).toBe(204);
    t.clock.advance(1);
    expect((await put(media.upload_url, PNG, 'image/png')).status).toBe(403);
  });

  it('a download link works 5 minutes: after that 403 {message}; a fresh one comes from the content route', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'image/png' });
    await put(media.upload_url, PNG, 'image/png');
    const link = (await content(t.baseUrl, me, media.id)).headers.get('location')!;
    t.clock.advance(5 * MINUTE);
    expect((await fetch(link)).status).toBe(200);
    t.clock.advance(1);
    const res = await fetch(link);
    expect(res.status).toBe(403);
    expect(Object.keys((await res.json()) as object)).toEqual(['message']);
    expect((await download(me, media.id)).status).toBe(200);
  });

  it('a tampered or foreign token is 403; an upload link is no download link and back', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'image/png' });
    const uploadToken = media.upload_url.split('/').pop()!;
    const flip = (token: string, at: number) =>
      token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    for (const at of [0, 10, 30, uploadToken.length - 1]) {
      const res = await put(`${t.baseUrl}/media-upload/${flip(uploadToken, at)}`, PNG, 'image/png');
      expect(res.status, `byte ${at}`).toBe(403);
    }
    expect((await put(`${t.baseUrl}/media-upload/garbage`, PNG, 'image/png')).status).toBe(403);
    expect((await fetch(`${t.baseUrl}/media-download/${uploadToken}`)).status).toBe(403);
    expect(await storage.exists(mediaKey(me.accountId, media.id))).toBe(false);

    expect((await put(media.upload_url, PNG, 'image/png')).status).toBe(204);
    const downloadToken = (await content(t.baseUrl, me, media.id)).headers.get('location')!.split('/').pop()!;
    for (const at of [0, 20, 40, downloadToken.length - 1])
      expect((await fetch(`${t.baseUrl}/media-download/${flip(downloadToken, at)}`)).status, `byte ${at}`).toBe(403);
    expect((await put(`${t.baseUrl}/media-upload/${downloadToken}`, 'x', 'image/png')).status).toBe(403);
    expect((await fetch(`${t.baseUrl}/media-download/${downloadToken}`)).status).toBe(200);
  });

  it('the links answer their own methods (405), HEAD gives the headers only, and need no key', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'image/png' });
    const wrong = await fetch(media.upload_url);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('PUT');
    await put(media.upload_url, PNG, 'image/png');
    const link = (await content(t.baseUrl, me, media.id)).headers.get('location')!;
    const head = await fetch(link, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(PNG.length));
    expect(await head.text()).toBe('');
    expect((await fetch(link, { method: 'DELETE' })).status).toBe(405);
  });

  it('storage that does not answer: content 503 service_unavailable, upload and download links 503', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'image/png' });
    expect((await put(media.upload_url, PNG, 'image/png')).status).toBe(204);
    const waiting = await created(me, { content_type: 'image/png' });
    const link = (await content(t.baseUrl, me, media.id)).headers.get('location')!;

    // The same database and clock, another storage: a second server process whose storage is down.
    const app = createApp(
      {
        config: t.config,
        database: t.database,
        clock: t.clock,
        logger: pino({ level: 'silent' }),
        rateLimiter: new StoreRateLimiter(t.database.db),
        ...t.services,
        storage: new BrokenStorage(),
      },
      appRoutes(),
    );
    const server: Server = await new Promise((ok) => {
      const s = app.listen(0, '127.0.0.1', () => ok(s));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await call(base, me.apiKey, 'GET', `/v1/media/${media.id}/content`);
      expect(res.status).toBe(503);
      expect((await res.json()) as ErrorBody).toEqual({
        type: 'error',
        message: expect.any(String) as string,
        context: { code: 'service_unavailable' },
      });
      const down = await fetch(link.replace(t.baseUrl, base));
      expect(down.status).toBe(503);
      expect(Object.keys((await down.json()) as object)).toEqual(['message']);
      const up = await put(waiting.upload_url.replace(t.baseUrl, base), PNG, 'image/png');
      expect(up.status).toBe(503);
      expect((await mediaRow(me, waiting.id)).uploaded_at).toBeNull();
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }

    // The domain function alone, with the broken storage.
    await expect(
      mediaContentLink(t.database.db, new BrokenStorage(), t.clock, me.accountId, media.id, t.baseUrl),
    ).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
  });

  it('a file the storage lost reads as no longer stored (410 media_expired)', async () => {
    const me = await t.account();
    const media = await created(me, { content_type: 'image/png' });
    await put(media.upload_url, PNG, 'image/png');
    await rm(join(dataDir, 'media', me.accountId, media.id));
    const res = await content(t.baseUrl, me, media.id);
    expect(res.status).toBe(410);
    expect(((await res.json()) as ErrorBody).context.code).toBe('media_expired');
  });

  it('scopes: POST /v1/media needs messages:send, the content needs conversations:read', async () => {
    const reader = await t.account({ scopes: ['conversations:read'] });
    const res = await reader.call('POST', '/v1/media', { body: { content_type: 'image/png' } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as ErrorBody).context).toEqual({
      code: 'insufficient_scope',
      required_scope: 'messages:send',
    });

    const sender = await t.account({ scopes: ['messages:send'] });
    const media = await created(sender, { content_type: 'image/png' });
    await put(media.upload_url, PNG, 'image/png');
    const denied = await content(t.baseUrl, sender, media.id);
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as ErrorBody).context).toEqual({
      code: 'insufficient_scope',
      required_scope: 'conversations:read',
    });
    // Another key of the same account with the scope reads it.
    const { secret } = await createApiKey(t.database.db, t.clock, {
      accountId: sender.accountId,
      name: 'reader',
      scopes: ['conversations:read'],
      validityDays: 30,
    });
    const res2 = await fetch(`${t.baseUrl}/v1/media/${media.id}/content`, {
      headers: { Authorization: `Bearer ${secret}` },
      redirect: 'manual',
    });
    expect(res2.status).toBe(302);
  });

  it('content_type must look like type/subtype (400); filename 1–255; no other field', async () => {
    const me = await t.account();
    for (const body of [
      {},
      { content_type: 'jpeg' },
      { content_type: 'image/' },
      { content_type: '/png' },
      { content_type: 'image/jpeg; charset=utf-8' },
      { content_type: 'image /jpeg' },
      { content_type: 42 },
      { content_type: 'image/png', filename: '' },
      { content_type: 'image/png', size: 10 },
    ]) {
      const res = await me.call('POST', '/v1/media', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const count = await t.database.db
      .selectFrom('media')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', me.accountId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('Idempotency-Key replays the same media', async () => {
    const me = await t.account();
    const headers = { 'Idempotency-Key': `media-${Date.now()}` };
    const a = await me.call('POST', '/v1/media', { body: { content_type: 'video/mp4' }, headers });
    const b = await me.call('POST', '/v1/media', { body: { content_type: 'video/mp4' }, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(((await b.json()) as SchemaMedia).id).toBe(((await a.json()) as SchemaMedia).id);
  });
});

describe('LocalDiskStorage', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'ep-storage-'));
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('creates its directory on demand and reads back what it stored', async () => {
    const storage = new LocalDiskStorage(join(root, 'a', 'media'));
    expect(await storage.exists('acc/one')).toBe(false);
    expect(await storage.open('acc/one')).toBeUndefined();
    expect(await storage.put('acc/one', Buffer.from('hello'))).toEqual({ size: 5 });
    expect(await storage.exists('acc/one')).toBe(true);
    const file = (await storage.open('acc/one'))!;
    expect(file.size).toBe(5);
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('hello');
  });

  it('a half-written upload never shows: the old file stays and no temporary file is left', async () => {
    const storage = new LocalDiskStorage(join(root, 'b'));
    await storage.put('acc/file', Buffer.from('old'));
    const failing = new Readable({
      read() {
        this.push(Buffer.from('partial '));
        this.destroy(new Error('connection lost'));
      },
    });
    await expect(storage.put('acc/file', failing)).rejects.toThrow('connection lost');
    const file = (await storage.open('acc/file'))!;
    file.stream.destroy();
    expect(file.size).toBe(3);
    expect(await readdir(join(root, 'b', 'acc'))).toEqual(['file']);
  });

  it('refuses keys that would leave its directory', async () => {
    const storage = new LocalDiskStorage(join(root, 'c'));
    for (const key of ['../x', 'a/../../x', '/etc/passwd', '.hidden', 'a//b', ''])
      await expect(storage.put(key, Buffer.from('x')), key).rejects.toThrow('invalid media storage key');
  });
});
