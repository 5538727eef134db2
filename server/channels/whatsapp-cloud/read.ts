// The WhatsApp Cloud API webhook's bounds (./decode.ts). The bounded reading itself is Meta's, shared with
// instagram: ../graph/read.ts, re-exported here so whatsapp's imports stay as they were.
import { READ_LIMITS } from '../graph/read.js';

export * from '../graph/read.js';

/** Bounds on what a payload may carry (characters are code points; Meta's own limits where it has one). */
export const DECODE_LIMITS = {
  /** Array items read per payload: entries, changes, contacts, messages and statuses together. */
  items: READ_LIMITS.items,
  /** Meta's limit on a text message's body; also the bound on a caption. */
  text: 4096,
  /** A wamid, a media id, a button or row id, a phone number id. */
  id: 256,
  /** A sender's or recipient's WhatsApp id (a phone number's digits). */
  waId: 64,
  /** A profile name, a button or row title, a row description, a MIME type, a file name. */
  label: 256,
  /** A template quick reply's payload. */
  payload: 1024,
  /** Meta's error text on a failed status: cut here, not skipped (a failure must not be lost for its wording). */
  errorMessage: 1024,
  /** A message type, an interactive type, a status name, an error code, an emoji. */
  word: READ_LIMITS.word,
} as const;
