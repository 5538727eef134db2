// buttons (Part B): the subtitle with up to 3 buttons. A tap on button i follows output i (the run waits up to
// 90 days for it); output 3 follows right after the send while the tap wait stays open. Reply buttons carry
// the block's button id when it fits the send rules (metrics count by it), else `button_<i>`, so a tap maps
// back to its position.
import type { SchemaSendButton, SchemaSendMessageRequest } from '../../../generated/api.js';
import { REPLY_ID } from '../../domain/messaging/send-rules.js';
import { substitute, type VariableLookup } from '../evaluate/variables.js';
import { CONTACT_WAIT_MS, type BlockExecutor } from '../context.js';
import { sendOutcome } from './send-outcome.js';

export interface BlockButton {
  id?: string;
  title?: string;
  url?: string;
  whatsapp_connection_id?: string;
}

/** The id a reply button is sent with: the block's own when the channel takes it. */
export const sentButtonId = (button: BlockButton, index: number): string =>
  button.id && REPLY_ID.test(button.id) ? button.id : `button_${index}`;

/** A block's button as sent: a link button, or a reply button carrying `id` (whatsapp number links reply). */
export const sendButton = (button: BlockButton, id: string, lookup: VariableLookup): SchemaSendButton =>
  button.url && !button.whatsapp_connection_id
    ? { type: 'open_url', title: button.title ?? '', url: substitute(button.url, lookup) }
    : { type: 'reply', id, title: button.title ?? '' };

/** The output a tap on the button `id` of this block's message follows, or null. */
export function tappedOutput(data: Record<string, unknown>, id: string | null): number | null {
  const buttons = Array.isArray(data.buttons) ? (data.buttons as BlockButton[]) : [];
  const index = buttons.findIndex((b, i) => !b.url && sentButtonId(b, i) === id);
  return index >= 0 ? index : null;
}

export const buttons: BlockExecutor = async (ctx) => {
  const list = Array.isArray(ctx.data.buttons) ? (ctx.data.buttons as BlockButton[]) : [];
  const text = substitute(typeof ctx.data.subtitle === 'string' ? ctx.data.subtitle : '', ctx.vars.lookup);
  const body: SchemaSendMessageRequest = { text };
  if (list.length > 0) body.buttons = list.map((b, i) => sendButton(b, sentButtonId(b, i), ctx.vars.lookup));
  const next = Array.isArray(ctx.data.next) ? (ctx.data.next as unknown[]) : [];
  return sendOutcome(await ctx.send(body), {
    wait: 'tap',
    until: new Date(ctx.now.getTime() + CONTACT_WAIT_MS),
    ...(typeof next[3] === 'string' ? { thenOutput: 3 } : {}),
  });
};
