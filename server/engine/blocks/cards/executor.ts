// cards (Part B): a carousel of 1 to 10 cards, each a title and subtitle (variables, up to 80 characters: longer
// texts are cut there), an optional image (a console upload, required on whatsapp) and up to 3 buttons.
// whatsapp shows `caption` above the cards; instagram ignores it. 31 outputs: a tap on button b of card c
// follows output c×3+b (the run waits up to 90 days for it); the 31st follows right after the send while the
// tap wait stays open. The whatsapp carousel rules (2 to 10 cards, images, one kind of button) are the
// messaging rules': a refusal fails the step and stops the run. Card buttons are sent as the buttons block's are
// (links tracked, whatsapp handoffs on instagram: buttons/executor.ts).
import type { SchemaSendCard } from '../../../../generated/api.js';
import type { BlockData } from '../../../../generated/block-catalog.js';
import { mediaOfUpload } from '../../../domain/messaging/media.js';
import { cutTo, REPLY_ID } from '../../../domain/messaging/send-rules.js';
import { substitute } from '../../evaluate/variables.js';
import { CONTACT_WAIT_MS, type AfterSend, type BlockExecutor, type RunContext } from '../../context.js';
import { sendOutcome } from '../send-outcome.js';
import { noteSentLinks, sendButton, sentLinks, type BlockButton, type SentLinks } from '../buttons/executor.js';
import { uploadNotFound } from '../media/executor.js';
import type { ExecutorEntry } from '../entry.js';

type Card = BlockData<'cards'>['cards'][number];

/** Outputs per card (one per button slot), and the output that follows right after the send. */
const SLOTS = 3;
const AFTER_SEND = 30;
const CARD_TEXT = 80;

const buttonsOf = (card: Card): readonly BlockButton[] => card.buttons;

/**
 * The id the reply button `b` of card `c` is sent with: the block's own when the channel takes it and no other
 * button of the carousel has it (ids are unique in a message), else `card_<c>_button_<b>`.
 */
function sentId(cards: readonly Card[], c: number, b: number, button: BlockButton): string {
  const own = button.id;
  const unique =
    own !== undefined &&
    REPLY_ID.test(own) &&
    cards.flatMap((card) => buttonsOf(card).filter((other) => other.id === own)).length === 1;
  return unique ? own : `card_${c}_button_${b}`;
}

/** The output a tap on the reply button `id` of this block's message follows, or null. */
export function tappedCardOutput(data: BlockData<'cards'>, id: string | null): number | null {
  for (const [c, card] of data.cards.entries())
    for (const [b, button] of buttonsOf(card).entries())
      if ((!button.url || button.whatsapp_connection_id) && sentId(data.cards, c, b, button) === id)
        return c * SLOTS + b;
  return null;
}

const cut = (text: string) => cutTo(text, CARD_TEXT);

/** Card `c` as sent (its texts filled and cut, its image, its buttons), or the failure of its missing upload. */
async function sentCard(ctx: RunContext, cards: readonly Card[], c: number, card: Card, links: SentLinks) {
  const lookup = ctx.vars.lookup;
  const sent: SchemaSendCard = { title: cut(substitute(card.title, lookup)) };
  const subtitle = cut(substitute(card.subtitle, lookup));
  if (subtitle !== '') sent.subtitle = subtitle;
  if (card.upload_id) {
    const image = await mediaOfUpload(ctx.tx, ctx.account.id, card.upload_id);
    if (!image) return uploadNotFound(card.upload_id);
    sent.media_id = image.id;
  }
  const buttons = [];
  for (const [i, b] of buttonsOf(card).entries()) {
    const button = await sendButton(
      ctx,
      b,
      sentId(cards, c, i, b),
      { key: `c${c}b${i}`, output: c * SLOTS + i },
      links,
    );
    if ('failed' in button) return button;
    buttons.push(button);
  }
  if (buttons.length > 0) sent.buttons = buttons;
  return sent;
}

export const execute: BlockExecutor<'cards'> = async (ctx) => {
  const lookup = ctx.vars.lookup;
  const sent: SchemaSendCard[] = [];
  const links = sentLinks();
  for (const [c, card] of ctx.data.cards.entries()) {
    const out = await sentCard(ctx, ctx.data.cards, c, card, links);
    if ('failed' in out) return out;
    sent.push(out);
  }
  if (ctx.contact.channel === 'instagram' && sent.some((card) => card.title === ''))
    return {
      failed: { code: 'invalid_message', message: 'On instagram each card title needs at least 1 character.' },
      end: 'stopped',
    };
  const caption = substitute(ctx.data.caption ?? '', lookup);
  const result = await ctx.send({
    ...(ctx.contact.channel === 'whatsapp' && caption !== '' ? { text: caption } : {}),
    attachments: [{ type: 'cards', cards: sent }],
  });
  await noteSentLinks(ctx, links, result);
  const waitForTap: AfterSend = {
    wait: 'tap',
    until: new Date(ctx.now.getTime() + CONTACT_WAIT_MS),
    ...(typeof ctx.data.next[AFTER_SEND] === 'string' ? { thenOutput: AFTER_SEND } : {}),
  };
  return sendOutcome(result, waitForTap);
};

export const executor: ExecutorEntry<'cards'> = { execute, tapOutput: tappedCardOutput };
