// When media stops working, decided here only: the content route, the download link, the send rules (a
// message's media) and the upload and download links all ask these functions, on the service clock.
//
// The two ends differ, and test/server/media.test.ts holds both: a media's `expires_at` is the first instant it
// is no longer stored (410 media_expired at it), while a pre-signed link works up to and including its expiry
// instant (a PUT at `upload_expires_at` is stored; 403 from the next millisecond).

/** Whether the moment `timestamp` (as the database returns it) has come on `now`. */
export const hasCome = (timestamp: string, now: Date): boolean => Date.parse(timestamp) <= now.getTime();

/** Received media past retention (410 media_expired). Uploaded media has no `expires_at`: it never expires. */
export const isMediaExpired = (media: { expires_at: string | null }, now: Date): boolean =>
  media.expires_at !== null && hasCome(media.expires_at, now);

/** A pre-signed upload or download link past its end (`expiresAt`, epoch milliseconds, still works). */
export const isLinkExpired = (link: { expiresAt: number }, now: Date): boolean => now.getTime() > link.expiresAt;
