// Meta's checks of a `POST /{phone_number_id}/messages` body, pure: what the Graph API refuses at once (400, code
// 100, 131008 or 131009, or a template's 132000/132001/132015/132016) and what it accepts (a send to `to`, or a
// read receipt). The limits are Meta's documented ones: ≤ 3 reply buttons with titles ≤ 20 characters and unique
// ids, a link button's text ≤ 20, 2 – 10 carousel cards, a known approved template with its parameters.
import { isRecord } from '../../../server/guards.js';
import { graphError, shapeError, type GraphAnswer } from './graph-errors.js';
import { checkInteractive } from './interactive.js';
import { checkMediaObject, length, type CheckContext, type Found } from './shape.js';
import type { FakeTemplate } from './types.js';

/** What a body Meta accepts asks for. */
export type MessageRequest =
  { kind: 'send'; to: string; type: string; body: Record<string, unknown> } | { kind: 'read'; messageId: string };

export type Checked = { ok: MessageRequest } | { error: GraphAnswer };

export const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'] as const;
const MESSAGE_TYPES = ['text', 'interactive', 'template', ...MEDIA_TYPES];

const fail = (error: GraphAnswer): Checked => ({ error });

/** Meta's verdict on a messages body. */
export function checkMessage(body: unknown, context: CheckContext): Checked {
  if (!isRecord(body) || body.messaging_product === undefined)
    return fail(shapeError(100, 'The parameter messaging_product is required.'));
  if (body.messaging_product !== 'whatsapp')
    return fail(
      shapeError(100, `Param messaging_product must be one of {WHATSAPP} - got "${String(body.messaging_product)}".`),
    );
  if (body.status !== undefined) return checkReadReceipt(body);
  const to = body.to;
  if (typeof to !== 'string' || to.trim() === '') return fail(shapeError(131008, 'The parameter to is required.'));
  const digits = to.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15) return fail(shapeError(100, `Param to is not a valid phone number.`));
  if (body.recipient_type !== undefined && body.recipient_type !== 'individual')
    return fail(shapeError(100, 'Param recipient_type must be one of {INDIVIDUAL, GROUP}.'));
  // Meta's default type is text.
  const type = body.type ?? 'text';
  if (typeof type !== 'string' || !MESSAGE_TYPES.includes(type))
    return fail(
      shapeError(100, `Param type must be one of {${MESSAGE_TYPES.join(', ').toUpperCase()}} - got "${String(type)}".`),
    );
  const found = checkContext(body.context) ?? checkContent(type, body[type], context);
  return found ? fail(found) : { ok: { kind: 'send', to, type, body } };
}

/** `{status: 'read', message_id}`: a read receipt for a message the contact sent. */
function checkReadReceipt(body: Record<string, unknown>): Checked {
  if (body.status !== 'read')
    return fail(shapeError(100, `Param status must be one of {READ} - got "${String(body.status)}".`));
  const id = body.message_id;
  if (typeof id !== 'string' || id === '') return fail(shapeError(131008, 'The parameter message_id is required.'));
  if (!id.startsWith('wamid.')) return fail(shapeError(100, `Param message_id is not a valid message id.`));
  return { ok: { kind: 'read', messageId: id } };
}

/** A reply's `context`: absent, null, or `{message_id}`. */
function checkContext(context: unknown): Found {
  if (context === undefined || context === null) return undefined;
  if (!isRecord(context) || typeof context.message_id !== 'string' || context.message_id === '')
    return shapeError(131009, "Param context['message_id'] is required and must be a message id.");
  return undefined;
}

function checkContent(type: string, content: unknown, context: CheckContext): Found {
  if (!isRecord(content)) return shapeError(131008, `The parameter ${type} is required.`);
  if (type === 'text') return checkText(content);
  if (type === 'interactive') return checkInteractive(content, context);
  if (type === 'template') return checkTemplate(content, context.templates);
  return checkMedia(type, content, context);
}

function checkText(text: Record<string, unknown>): Found {
  if (typeof text.body !== 'string' || text.body === '')
    return shapeError(131008, "The parameter text['body'] is required.");
  if (length(text.body) > 4096) return shapeError(100, "Param text['body'] must be at most 4096 characters long.");
  if (text.preview_url !== undefined && typeof text.preview_url !== 'boolean')
    return shapeError(100, "Param text['preview_url'] must be a boolean.");
  return undefined;
}

function checkMedia(type: string, media: Record<string, unknown>, context: CheckContext): Found {
  const found = checkMediaObject(type, media, context);
  if (found) return found;
  const { caption, filename } = media;
  if (caption !== undefined && (type === 'audio' || type === 'sticker'))
    return shapeError(131009, `Param ${type}['caption'] is not allowed for ${type} messages.`);
  if (caption !== undefined && (typeof caption !== 'string' || length(caption) > 1024))
    return shapeError(131009, `Param ${type}['caption'] must be a text of at most 1024 characters.`);
  if (filename !== undefined && (type !== 'document' || typeof filename !== 'string'))
    return shapeError(131009, `Param ${type}['filename'] is only a document's name.`);
  return undefined;
}

/** Meta's answer to a template it cannot send as asked (132001, 132016, 132015, 132000), or to a missing field. */
export function checkTemplate(template: Record<string, unknown>, templates: readonly FakeTemplate[]): Found {
  const { name, language } = template;
  if (typeof name !== 'string' || name === '') return shapeError(131008, "The parameter template['name'] is required.");
  const code = isRecord(language) ? language.code : undefined;
  if (typeof code !== 'string' || code === '')
    return shapeError(131008, "The parameter template['language']['code'] is required.");
  const known = templates.find((t) => t.name === name && t.language === code);
  if (!known) return graphError({ code: 132001, details: `template name (${name}) does not exist in ${code}` });
  if (known.status === 'DISABLED') return graphError({ code: 132016, details: `Template ${name} is disabled.` });
  if (known.status !== 'APPROVED')
    return graphError({
      code: 132015,
      details: `Template ${name} is ${known.status.toLowerCase()} and cannot be sent.`,
    });
  return checkTemplateParameters(known, template.components);
}

/** The distinct `{{n}}` placeholders of a text. */
const placeholders = (text: string | undefined) => new Set(text?.match(/\{\{\d+\}\}/g) ?? []).size;

/** Each text component's parameters match its placeholders' count (132000), and each text parameter has a text. */
function checkTemplateParameters(known: FakeTemplate, components: unknown): Found {
  if (components !== undefined && !Array.isArray(components))
    return shapeError(100, "Param template['components'] must be an array.");
  const given = (components ?? []).filter(isRecord);
  for (const part of ['HEADER', 'BODY'] as const) {
    const expected = placeholders(known.components.find((c) => c.type === part)?.text);
    const sent = given.find((c) => typeof c.type === 'string' && c.type.toUpperCase() === part);
    const parameters = sent && Array.isArray(sent.parameters) ? sent.parameters : [];
    if (parameters.length !== expected)
      return graphError({
        code: 132000,
        details: `${part.toLowerCase()}: number of localizable_params (${parameters.length}) does not match the expected number of params (${expected})`,
      });
    const empty = parameters.find(
      (p) => !isRecord(p) || p.type !== 'text' || typeof p.text !== 'string' || p.text === '',
    );
    if (empty !== undefined) return shapeError(131008, 'Parameter of type text is missing text value');
  }
  return undefined;
}
