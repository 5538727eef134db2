// Meta's checks of an Instagram send (`POST /{ig_user_id or page_id}/messages`), pure: what the Send API refuses at
// once (400, code 100, Messenger's wording `(#100) …`) and what it accepts. The limits are Meta's documented ones:
// a text ≤ 1000 characters; the button template ≤ 3 buttons with a text ≤ 640; the generic template ≤ 10 elements,
// each ≤ 3 buttons, a title ≤ 80 and something beside it (a subtitle, an image or a button); a media attachment by
// `url` or by the `attachment_id` an upload gave; `recipient.id` (an IGSID) or `recipient.comment_id` (a private
// reply). Whether a comment was answered already is the caller's (it needs the fake's state).
import { isRecord } from '../../../server/guards.js';
import { graphError, type GraphAnswer } from './graph-errors.js';
import { length } from './shape.js';

/** What a body Meta accepts asks for. */
export interface InstagramSendRequest {
  recipient: { id: string } | { comment_id: string };
  /** `text`, `button`, `generic`, or the media type (`image`, `video`, `audio`, `file`). */
  kind: string;
  body: Record<string, unknown>;
}

export type InstagramChecked = { ok: InstagramSendRequest } | { error: GraphAnswer };

export const IG_MEDIA_TYPES = ['image', 'video', 'audio', 'file'] as const;
const BUTTON_TYPES = ['postback', 'web_url'];

type Found = GraphAnswer | undefined;

/** Meta's 100 with Messenger's message, no WhatsApp `error_data`. */
export const invalid = (message: string, subcode?: number): GraphAnswer =>
  graphError({ code: 100, message: `(#100) ${message}`, subcode, product: 'instagram' });

const fail = (error: GraphAnswer): InstagramChecked => ({ error });

/** Meta's verdict on a messages body; `hasAttachment` says whether an upload's id belongs to the account. */
export function checkInstagramMessage(body: unknown, hasAttachment: (id: string) => boolean): InstagramChecked {
  if (!isRecord(body)) return fail(invalid('The parameter recipient is required'));
  const recipient = recipientOf(body.recipient);
  if ('error' in recipient) return fail(recipient.error);
  const message = body.message;
  if (!isRecord(message)) return fail(invalid('The parameter message is required'));
  const { text, attachment } = message;
  if ((text === undefined) === (attachment === undefined))
    return fail(invalid('Must send either message[text] or message[attachment]'));
  if (text !== undefined) {
    const found = checkText(text, 'message[text]', 1000);
    return found ? fail(found) : { ok: { recipient: recipient.ok, kind: 'text', body } };
  }
  const checked = checkAttachment(attachment, hasAttachment);
  if ('error' in checked) return fail(checked.error);
  return { ok: { recipient: recipient.ok, kind: checked.kind, body } };
}

function recipientOf(value: unknown): { ok: InstagramSendRequest['recipient'] } | { error: GraphAnswer } {
  if (!isRecord(value)) return { error: invalid('The parameter recipient is required') };
  const { id, comment_id: commentId } = value;
  if ((id === undefined) === (commentId === undefined))
    return { error: invalid('param recipient must have exactly one of id or comment_id') };
  if (id !== undefined) {
    if (typeof id !== 'string' || !/^\d{1,32}$/.test(id)) return { error: invalid('No matching user found', 2018001) };
    return { ok: { id } };
  }
  if (typeof commentId !== 'string' || !/^\d{1,32}$/.test(commentId))
    return { error: invalid('Param recipient[comment_id] must be a valid comment id') };
  return { ok: { comment_id: commentId } };
}

function checkText(value: unknown, where: string, max: number): Found {
  if (typeof value !== 'string' || value.trim() === '') return invalid(`The parameter ${where} is required`);
  if (length(value) > max) return invalid(`Length of param ${where} must be less than or equal to ${max}`);
  return undefined;
}

type AttachmentChecked = { kind: string } | { error: GraphAnswer };

function checkAttachment(value: unknown, hasAttachment: (id: string) => boolean): AttachmentChecked {
  const where = 'message[attachment]';
  if (!isRecord(value)) return { error: invalid(`The parameter ${where} is required`) };
  const { type, payload } = value;
  if (!isRecord(payload)) return { error: invalid(`The parameter ${where}[payload] is required`) };
  if (type === 'template') {
    const found = checkTemplate(payload);
    return found ? { error: found } : { kind: String(payload.template_type) };
  }
  if (typeof type !== 'string' || !IG_MEDIA_TYPES.some((t) => t === type))
    return { error: invalid(`Param ${where}[type] must be one of {image, video, audio, file, template}`) };
  const { url, attachment_id: id } = payload;
  if ((url === undefined) === (id === undefined))
    return { error: invalid(`${where}[payload] must have exactly one of url or attachment_id`) };
  if (url !== undefined && (typeof url !== 'string' || !/^https?:\/\//.test(url)))
    return { error: invalid(`Param ${where}[payload][url] must be a valid URL`) };
  if (id !== undefined && (typeof id !== 'string' || !hasAttachment(id)))
    return { error: invalid(`Param ${where}[payload][attachment_id] is not a valid attachment id`) };
  return { kind: type };
}

function checkTemplate(payload: Record<string, unknown>): Found {
  const where = 'message[attachment][payload]';
  if (payload.template_type === 'button') {
    const found = checkText(payload.text, `${where}[text]`, 640);
    if (found) return found;
    return checkButtons(payload.buttons, `${where}[buttons]`);
  }
  if (payload.template_type === 'generic') {
    const elements = payload.elements;
    if (!Array.isArray(elements) || elements.length === 0)
      return invalid(`The parameter ${where}[elements] is required`);
    if (elements.length > 10) return invalid(`param ${where}[elements] must have at most 10 elements`);
    for (const [index, element] of elements.entries()) {
      const found = checkElement(element, `${where}[elements][${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  return invalid(`Param ${where}[template_type] must be one of {button, generic}`);
}

function checkElement(element: unknown, where: string): Found {
  if (!isRecord(element)) return invalid(`The parameter ${where} is required`);
  const found = checkText(element.title, `${where}[title]`, 80);
  if (found) return found;
  if (element.subtitle !== undefined) {
    const subtitle = checkText(element.subtitle, `${where}[subtitle]`, 80);
    if (subtitle) return subtitle;
  }
  if (
    element.image_url !== undefined &&
    (typeof element.image_url !== 'string' || !/^https?:\/\//.test(element.image_url))
  )
    return invalid(`Param ${where}[image_url] must be a valid URL`);
  if (element.subtitle === undefined && element.image_url === undefined && element.buttons === undefined)
    return invalid(
      'Incomplete element data: title and at least one other field (image url, subtitle or buttons) is required with non-empty value',
    );
  return element.buttons === undefined ? undefined : checkButtons(element.buttons, `${where}[buttons]`);
}

/** 1 to 3 buttons: `postback` (title ≤ 20, payload) or `web_url` (title ≤ 20, an http(s) URL). */
function checkButtons(buttons: unknown, where: string): Found {
  if (!Array.isArray(buttons) || buttons.length === 0) return invalid(`The parameter ${where} is required`);
  if (buttons.length > 3) return invalid(`param ${where} must have at most 3 elements`);
  for (const [index, button] of buttons.entries()) {
    const at = `${where}[${index}]`;
    if (!isRecord(button) || typeof button.type !== 'string' || !BUTTON_TYPES.includes(button.type))
      return invalid(`Param ${at}[type] must be one of {postback, web_url}`);
    const title = checkText(button.title, `${at}[title]`, 20);
    if (title) return title;
    if (button.type === 'postback') {
      const payload = checkText(button.payload, `${at}[payload]`, 1000);
      if (payload) return payload;
    } else if (typeof button.url !== 'string' || !/^https?:\/\//.test(button.url))
      return invalid(`Param ${at}[url] must be a valid URL`);
  }
  return undefined;
}
