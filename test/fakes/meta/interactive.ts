// Meta's checks of an `interactive` message, pure: reply buttons (1 – 3, titles ≤ 20 characters, unique ids and
// titles), a list, a link button (`cta_url`: text ≤ 20, an http(s) url) and a media carousel (2 – 10 cards, each
// with an image or video header and the same kind and count of buttons as the others).
import { isRecord } from '../../../server/guards.js';
import { shapeError } from './graph-errors.js';
import { checkMediaObject, isTextUpTo, length, type CheckContext, type Found } from './shape.js';

const INTERACTIVE_TYPES = ['button', 'list', 'cta_url', 'carousel'];

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});

/** An `interactive` object. */
export function checkInteractive(interactive: Record<string, unknown>, context: CheckContext): Found {
  const type = interactive.type;
  if (typeof type !== 'string' || !INTERACTIVE_TYPES.includes(type))
    return shapeError(131009, `Param interactive['type'] must be one of {BUTTON, LIST, CTA_URL, CAROUSEL}.`);
  const body = record(interactive.body).text;
  if (typeof body !== 'string' || body === '')
    return shapeError(131008, "The parameter interactive['body']['text'] is required.");
  if (length(body) > 1024)
    return shapeError(131009, "Param interactive['body']['text'] must be at most 1024 characters.");
  if (interactive.footer !== undefined && !isTextUpTo(record(interactive.footer).text, 60))
    return shapeError(131009, "Param interactive['footer']['text'] must be 1 to 60 characters.");
  if (!isRecord(interactive.action)) return shapeError(131008, "The parameter interactive['action'] is required.");
  const action = interactive.action;
  if (type === 'button') return checkReplyButtons(action.buttons, "interactive['action']['buttons']");
  if (type === 'list') return checkList(action);
  if (type === 'cta_url') return checkLinkButton(action, "interactive['action']");
  return checkCarousel(action.cards, context);
}

/** Reply buttons: 1 – 3 (`max`), each `{type: 'reply', reply: {id ≤ 256, title ≤ 20}}`, ids and titles unique. */
function checkReplyButtons(buttons: unknown, where: string, max = 3): Found {
  if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > max)
    return shapeError(131009, `Param ${where} must hold 1 to ${max} buttons.`);
  const ids = new Set<string>();
  const titles = new Set<string>();
  for (const [index, button] of buttons.entries()) {
    const at = `${where}[${index}]`;
    const reply = isRecord(button) && button.type === 'reply' ? record(button.reply) : undefined;
    if (!reply) return shapeError(131009, `Param ${at}['type'] must be 'reply'.`);
    if (!isTextUpTo(reply.id, 256) || reply.id.trim() !== reply.id)
      return shapeError(131009, `Param ${at}['reply']['id'] must be 1 to 256 characters, without surrounding spaces.`);
    if (!isTextUpTo(reply.title, 20))
      return shapeError(
        131009,
        `Button title length invalid. Min length: 1, Max length: 20 (${at}['reply']['title']).`,
      );
    if (ids.has(reply.id)) return shapeError(131009, `Duplicate button id: ${reply.id}.`);
    if (titles.has(reply.title)) return shapeError(131009, `Button titles must be unique: ${reply.title}.`);
    ids.add(reply.id);
    titles.add(reply.title);
  }
  return undefined;
}

/** A list: a button text ≤ 20, 1 – 10 sections, 1 – 10 rows in all, row ids unique, titles ≤ 24. */
function checkList(action: Record<string, unknown>): Found {
  if (!isTextUpTo(action.button, 20))
    return shapeError(131009, "Param interactive['action']['button'] must be 1 to 20 characters.");
  const sections = action.sections;
  if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10)
    return shapeError(131009, "Param interactive['action']['sections'] must hold 1 to 10 sections.");
  const rows = sections.flatMap((section) => {
    const list = record(section).rows;
    return Array.isArray(list) ? list : [];
  });
  if (rows.length < 1 || rows.length > 10) return shapeError(131009, 'Total row count exceed max allowed count: 10');
  const ids = new Set<string>();
  for (const row of rows.map(record)) {
    if (!isTextUpTo(row.id, 200) || ids.has(row.id))
      return shapeError(131009, 'Row ids must be 1 to 200 characters and unique.');
    if (!isTextUpTo(row.title, 24))
      return shapeError(131009, 'Row title length invalid. Min length: 1, Max length: 24.');
    if (row.description !== undefined && !isTextUpTo(row.description, 72))
      return shapeError(131009, 'Row description length invalid. Max length: 72.');
    ids.add(row.id);
  }
  return undefined;
}

/** A link button: `{name: 'cta_url', parameters: {display_text ≤ 20, url}}`. */
function checkLinkButton(action: Record<string, unknown>, where: string): Found {
  if (action.name !== 'cta_url') return shapeError(131009, `Param ${where}['name'] must be 'cta_url'.`);
  const parameters = record(action.parameters);
  if (!isTextUpTo(parameters.display_text, 20))
    return shapeError(131009, `Param ${where}['parameters']['display_text'] must be 1 to 20 characters.`);
  const url = parameters.url;
  if (typeof url !== 'string' || !/^https?:\/\/[^\s/]/.test(url))
    return shapeError(131009, `Param ${where}['parameters']['url'] must be a valid http or https URL.`);
  return undefined;
}

/** A carousel: 2 – 10 cards in order, each with a media header, and buttons of one kind and count across cards. */
function checkCarousel(cards: unknown, context: CheckContext): Found {
  if (!Array.isArray(cards) || cards.length < 2 || cards.length > 10)
    return shapeError(131009, "Param interactive['action']['cards'] must hold 2 to 10 cards.");
  const shapes = new Set<string>();
  for (const [index, value] of cards.entries()) {
    const at = `interactive['action']['cards'][${index}]`;
    const card = record(value);
    if (card.card_index !== index) return shapeError(131009, `Param ${at}['card_index'] must be ${index}.`);
    const found = checkCardHeader(card.header, at, context) ?? checkCardBody(card.body, at);
    if (found) return found;
    const action = record(card.action);
    const buttons = action.buttons;
    const shape = card.type === 'cta_url' ? 'cta_url' : `button:${Array.isArray(buttons) ? buttons.length : 0}`;
    const problem =
      card.type === 'cta_url'
        ? checkLinkButton(action, `${at}['action']`)
        : card.type === 'button'
          ? checkQuickReplies(buttons, `${at}['action']['buttons']`)
          : shapeError(131009, `Param ${at}['type'] must be 'cta_url' or 'button'.`);
    if (problem) return problem;
    shapes.add(shape);
  }
  if (shapes.size > 1) return shapeError(131009, 'All carousel cards must have the same button type and count.');
  return undefined;
}

function checkCardHeader(header: unknown, at: string, context: CheckContext): Found {
  const type = record(header).type;
  if (type !== 'image' && type !== 'video')
    return shapeError(131009, `Param ${at}['header']['type'] must be 'image' or 'video'.`);
  return checkMediaObject(`${at}['header']['${type}']`, record(record(header)[type]), context);
}

const checkCardBody = (body: unknown, at: string): Found =>
  body === undefined || isTextUpTo(record(body).text, 160)
    ? undefined
    : shapeError(131009, `Param ${at}['body']['text'] must be 1 to 160 characters.`);

/** A card's quick replies: 1 – 2 `{type: 'quick_reply', quick_reply: {id, title ≤ 20}}`. */
function checkQuickReplies(buttons: unknown, where: string): Found {
  if (!Array.isArray(buttons)) return shapeError(131008, `The parameter ${where} is required.`);
  const asReplies = buttons.map((button) => {
    const b = record(button);
    return b.type === 'quick_reply' ? { type: 'reply', reply: b.quick_reply } : { type: b.type };
  });
  return checkReplyButtons(asReplies, where, 2);
}
