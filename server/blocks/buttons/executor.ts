// buttons (Part B): the subtitle with up to 3 buttons. A tap on button i follows output i (the run waits up to
// 90 days for it); output 3 follows right after the send while the tap wait stays open. Reply buttons carry
// the block's button id when it fits the send rules (metrics count by it), else `button_<i>`, so a tap maps
// back to its position.
import type { SchemaSendButton, SchemaSendMessageRequest } from '../../../generated/api.js';
import type { BlockData } from '../../../generated/block-catalog.js';
import { REPLY_ID } from '../../domain/messaging/send-rules.js';
import { substitute, type VariableLookup } from '../../engine/evaluate/variables.js';
import { CONTACT_WAIT_MS, type BlockExecutor } from '../../engine/context.js';
import { sendOutcome } from '../../engine/blocks/send-outcome.js';

/** A button of a buttons block or of a card (the catalog gives both the same shape). */
export type BlockButton = BlockData<'buttons'>['buttons'][number];

/** The output that follows right after the send. */
const AFTER_SEND = 3;

/** The id a reply button is sent with: the block's own when the channel takes it. */
export const sentButtonId = (button: BlockButton, index: number): string =>
  button.id && REPLY_ID.test(button.id) ? button.id : `button_${index}`;

/** A block's button as sent: a link button, or a reply button carrying `id` (whatsapp number links reply). */
export const sendButton = (button: BlockButton, id: string, lookup: VariableLookup): SchemaSendButton =>
  button.url && !button.whatsapp_connection_id
    ? { type: 'open_url', title: button.title, url: substitute(button.url, lookup) }
    : { type: 'reply', id, title: button.title };

/** The output a tap on the button `id` of this block's message follows, or null. */
export function tappedOutput(data: BlockData<'buttons'>, id: string | null): number | null {
  const buttons: readonly BlockButton[] = data.buttons;
  const index = buttons.findIndex((b, i) => !b.url && sentButtonId(b, i) === id);
  return index >= 0 ? index : null;
}

export const execute: BlockExecutor<'buttons'> = async (ctx) => {
  const buttons: readonly BlockButton[] = ctx.data.buttons;
  const body: SchemaSendMessageRequest = { text: substitute(ctx.data.subtitle, ctx.vars.lookup) };
  if (buttons.length > 0) body.buttons = buttons.map((b, i) => sendButton(b, sentButtonId(b, i), ctx.vars.lookup));
  return sendOutcome(await ctx.send(body), {
    wait: 'tap',
    until: new Date(ctx.now.getTime() + CONTACT_WAIT_MS),
    ...(typeof ctx.data.next[AFTER_SEND] === 'string' ? { thenOutput: AFTER_SEND } : {}),
  });
};
