// What the checks of a messages body share (checks.ts, interactive.ts): the number's context, text length as
// WhatsApp counts it, and a media reference (`{id}` of an upload to this number, or `{link}`).
import { shapeError, type GraphAnswer } from './graph-errors.js';
import type { FakeTemplate } from './types.js';

/** What the checks need to know of the number the message is sent from. */
export interface CheckContext {
  /** The templates of the number's WhatsApp Business Account. */
  templates: readonly FakeTemplate[];
  /** A media id uploaded to this number. */
  hasMedia: (id: string) => boolean;
}

/** A problem found (Meta's answer), or undefined. */
export type Found = GraphAnswer | undefined;

/** Characters as WhatsApp counts them (code points, so an emoji is one). */
export const length = (text: string): number => [...text].length;

/** A text of 1 to `max` characters. */
export const isTextUpTo = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value !== '' && length(value) <= max;

/** A media object: `{id}` of media uploaded to this number, or `{link}` (http or https). */
export function checkMediaObject(where: string, media: Record<string, unknown>, context: CheckContext): Found {
  const { id, link } = media;
  if ((id === undefined) === (link === undefined))
    return shapeError(131008, `The parameter ${where}['id'] or ${where}['link'] is required (one of them).`);
  if (id !== undefined && (typeof id !== 'string' || !context.hasMedia(id)))
    return shapeError(100, `Param ${where}['id'] is not a valid whatsapp business account media attachment ID`);
  if (link !== undefined && (typeof link !== 'string' || !/^https?:\/\//.test(link)))
    return shapeError(131009, `Param ${where}['link'] must be a valid http or https URL.`);
  return undefined;
}
