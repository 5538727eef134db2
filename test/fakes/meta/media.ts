// The fake's media: what a number uploaded (`POST /{phone_number_id}/media`, multipart) and what a test registered
// as a contact's (the bytes behind a webhook's media id), each owned by one number. `GET /{media-id}` answers a
// short-lived URL on the fake (`/whatsapp_business/attachments/?mid=…&ext=…&hash=…`, like Meta's lookaside URL)
// that serves the bytes to the owner's token only.
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { graphError, type GraphAnswer } from './graph-errors.js';

export interface StoredMedia {
  id: string;
  phoneNumberId: string;
  bytes: Buffer;
  mimeType: string;
  fileName?: string;
}

/** What WhatsApp takes per kind (Meta's supported media types). */
const SUPPORTED = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'video/mp4',
  'video/3gpp',
  'audio/aac',
  'audio/amr',
  'audio/mpeg',
  'audio/mp4',
  'audio/ogg',
  'text/plain',
  'application/pdf',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
]);

/** How long a media URL stays good (Meta: 5 minutes). */
const URL_SECONDS = 300;

/** Meta's media ids are 15 – 16 digits. */
const newMediaId = () => `${randomInt(1_000_000, 9_999_999)}${randomInt(100_000_000, 999_999_999)}`;

export class MediaStore {
  private readonly byId = new Map<string, StoredMedia>();
  /** Signs the download URLs (a URL is good for its media and time only). */
  private readonly urlKey = randomBytes(32);

  add(input: Omit<StoredMedia, 'id'> & { id?: string }): StoredMedia {
    const stored = { ...input, id: input.id ?? newMediaId() };
    this.byId.set(stored.id, stored);
    return stored;
  }

  get(id: string): StoredMedia | undefined {
    return this.byId.get(id);
  }

  delete(id: string): boolean {
    return this.byId.delete(id);
  }

  ownedBy(phoneNumberId: string, id: string): boolean {
    return this.byId.get(id)?.phoneNumberId === phoneNumberId;
  }

  private hash(id: string, expires: number): string {
    return createHmac('sha256', this.urlKey).update(`${id}.${expires}`).digest('base64url');
  }

  /** `GET /{media-id}`'s answer: the URL on `baseUrl`, the type, the hex SHA-256 and the size. */
  describe(media: StoredMedia, baseUrl: string): Record<string, unknown> {
    const expires = Math.floor(Date.now() / 1000) + URL_SECONDS;
    const query = new URLSearchParams({ mid: media.id, ext: String(expires), hash: this.hash(media.id, expires) });
    return {
      messaging_product: 'whatsapp',
      url: `${baseUrl}/whatsapp_business/attachments/?${query.toString()}`,
      mime_type: media.mimeType,
      sha256: createHash('sha256').update(media.bytes).digest('hex'),
      file_size: media.bytes.length,
      id: media.id,
    };
  }

  /** The media a download URL names, while it is good and its hash holds. */
  fromUrl(query: URLSearchParams): StoredMedia | undefined {
    const id = query.get('mid') ?? '';
    const expires = Number(query.get('ext'));
    const given = Buffer.from(query.get('hash') ?? '');
    const wanted = Buffer.from(this.hash(id, expires));
    const good = given.length === wanted.length && timingSafeEqual(given, wanted);
    return good && expires * 1000 > Date.now() ? this.byId.get(id) : undefined;
  }
}

/** A parsed upload: its fields and its file. */
export interface Upload {
  fields: Record<string, string>;
  file?: { name: string; type: string; bytes: Buffer };
}

/** A multipart body's fields and file (undici's parser, as `fetch` has it), or undefined when it is not multipart. */
export async function parseUpload(raw: Buffer, contentType: string): Promise<Upload | undefined> {
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) return undefined;
  try {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    const upload: Upload = { fields: {} };
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') upload.fields[key] = value;
      else if (key === 'file')
        upload.file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
    return upload;
  } catch {
    return undefined;
  }
}

/** Meta's checks of an upload: the product, a file, and a type WhatsApp takes; the media's type, or the error. */
export function checkUpload(
  upload: Upload | undefined,
): { type: string; file: NonNullable<Upload['file']> } | GraphAnswer {
  if (!upload) return graphError({ code: 100, details: 'The request must be multipart/form-data.' });
  if (upload.fields.messaging_product !== 'whatsapp')
    return graphError({ code: 100, details: 'The parameter messaging_product is required.' });
  if (!upload.file || upload.file.bytes.length === 0)
    return graphError({ code: 100, details: 'The parameter file is required.' });
  // Meta takes the `type` field, else the file part's own type.
  const type = (upload.fields.type ?? upload.file.type).split(';')[0]?.trim().toLowerCase() ?? '';
  if (!SUPPORTED.has(type))
    return graphError({
      code: 131053,
      details: `Param file must be a file with one of the supported media types, got ${type}.`,
    });
  return { type, file: upload.file };
}
