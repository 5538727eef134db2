// cards (Part B): a carousel of 1 to 10 cards, each a title and subtitle (variables, up to 80 characters: longer
// texts are cut there), an optional image (a console upload, required on whatsapp) and up to 3 buttons.
// whatsapp shows `caption` above the cards; instagram ignores it. 31 outputs: a tap on button b of card c
// follows output c×3+b (the run waits up to 90 days for it); the 31st follows right after the send while the
// tap wait stays open. The whatsapp carousel rules (2 to 10 cards, images, one kind of button) are the
// messaging rules': a refusal fails the step and stops the run.
import type { SchemaSendCard } from '../../../generated/api.js';
import { mediaOfUpload } from '../../domain/messaging/media.js';
import { cutTo, REPLY_ID } from '../../domain/messaging/send-rules.js';
import { substitute } from '../evaluate/variables.js';
import { CONTACT_WAIT_MS, type BlockExecutor, type BlockResult } from '../context.js';
import { sendButton, type BlockButton } from './buttons.js';
import { uploadNotFound } from './media.js';
import { sendOutcome } from './send-outcome.js';

interface BlockCard {
  title?: string;
  subtitle?: string;
  upload_id?: string;
  buttons?: BlockButton[];
}

/** Outputs per card (one per button slot), and the output that follows right after the send. */
const SLOTS = 3;
const AFTER_SEND = 30;
const CARD_TEXT = 80;

const cardsOf = (data: Record<string, unknown>): BlockCard[] =>
  Array.isArray(data.cards) ? (data.cards as BlockCard[]) : [];
const buttonsOf = (card: BlockCard): BlockButton[] => (Array.isArray(card.buttons) ? card.buttons : []);

/**
 * The id each reply button is sent with, by output: the block's own when the channel takes it and no other
 * button of the carousel has it (ids are unique in a message), else `card_<c>_button_<b>`.
 */
function sentIds(cards: BlockCard[]): Map<number, string> {
  const own = cards.flatMap((card) => buttonsOf(card).map((b) => b.id));
  const ids = new Map<number, string>();
  cards.forEach((card, c) =>
    buttonsOf(card).forEach((b, i) => {
      const unique = b.id && REPLY_ID.test(b.id) && own.filter((id) => id === b.id).length === 1;
      ids.set(c * SLOTS + i, unique ? b.id! : `card_${c}_button_${i}`);
    }),
  );
  return ids;
}

/** The output a tap on the reply button `id` of this block's message follows, or null. */
export function tappedCardOutput(data: Record<string, unknown>, id: string | null): number | null {
  const cards = cardsOf(data);
  for (const [output, sent] of sentIds(cards))
    if (sent === id && !buttonsOf(cards[Math.floor(output / SLOTS)]!)[output % SLOTS]?.url) return output;
  return null;
}

const cut = (text: string) => cutTo(text, CARD_TEXT);

export const cards: BlockExecutor = async (ctx) => {
  const list = cardsOf(ctx.data);
  const ids = sentIds(list);
  const lookup = ctx.vars.lookup;
  const sent: SchemaSendCard[] = [];
  for (const [c, card] of list.entries()) {
    const out: SchemaSendCard = { title: cut(substitute(card.title ?? '', lookup)) };
    const subtitle = cut(substitute(card.subtitle ?? '', lookup));
    if (subtitle !== '') out.subtitle = subtitle;
    if (card.upload_id) {
      const image = await mediaOfUpload(ctx.tx, ctx.account.id, card.upload_id);
      if (!image) return uploadNotFound(card.upload_id);
      out.media_id = image.id;
    }
    const buttons = buttonsOf(card).map((b, i) => sendButton(b, ids.get(c * SLOTS + i)!, lookup));
    if (buttons.length > 0) out.buttons = buttons;
    sent.push(out);
  }
  if (ctx.contact.channel === 'instagram' && sent.some((card) => card.title === ''))
    return {
      failed: { code: 'invalid_message', message: 'On instagram each card title needs at least 1 character.' },
      end: 'stopped',
    };
  const caption = substitute(typeof ctx.data.caption === 'string' ? ctx.data.caption : '', lookup);
  const next = Array.isArray(ctx.data.next) ? (ctx.data.next as unknown[]) : [];
  const result = await ctx.send({
    ...(ctx.contact.channel === 'whatsapp' && caption !== '' ? { text: caption } : {}),
    attachments: [{ type: 'cards', cards: sent }],
  });
  const waitForTap: BlockResult = {
    wait: 'tap',
    until: new Date(ctx.now.getTime() + CONTACT_WAIT_MS),
    ...(typeof next[AFTER_SEND] === 'string' ? { thenOutput: AFTER_SEND } : {}),
  };
  return sendOutcome(result, waitForTap);
};
