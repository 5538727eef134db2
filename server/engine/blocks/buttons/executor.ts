// buttons (Part B): the subtitle with up to 3 buttons. A tap on button i follows output i (the run waits up to
// 90 days for it); output 3 follows right after the send while the tap wait stays open. Reply buttons carry
// the block's button id when it fits the send rules (metrics count by it), else `button_<i>`, so a tap maps
// back to its position. A link button carries this service's tracking address instead of its own (issue 22,
// domain/workflows/tracked-links.ts): an open is reported and, on instagram, follows the button's output.
// A `whatsapp_connection_id` button of an instagram run is a whatsapp handoff (issue 22,
// domain/workflows/whatsapp-handoffs.ts): a click-to-chat link, not tracked, whose code's message on whatsapp
// follows the output there; a number not connected at send time fails the step. On whatsapp it is a reply button.
import type { SchemaSendButton, SchemaSendMessageRequest } from '../../../../generated/api.js';
import type { BlockData } from '../../../../generated/block-catalog.js';
import type { WorkflowSendResult } from '../../../domain/messaging/workflow-send.js';
import { isHttpsUrl, REPLY_ID } from '../../../domain/messaging/send-rules.js';
import { linksSentIn, trackLink } from '../../../domain/workflows/tracked-links.js';
import { handoffLink, handoffsSentIn } from '../../../domain/workflows/whatsapp-handoffs.js';
import { substitute } from '../../evaluate/variables.js';
import { CONTACT_WAIT_MS, type BlockExecutor, type RunContext, type StepError } from '../../context.js';
import { sendOutcome } from '../send-outcome.js';
import type { ExecutorEntry } from '../entry.js';

/** A button of a buttons block or of a card (the catalog gives both the same shape). */
export type BlockButton = BlockData<'buttons'>['buttons'][number];

/** The output that follows right after the send. */
const AFTER_SEND = 3;

/** The id a reply button is sent with: the block's own when the channel takes it. */
export const sentButtonId = (button: BlockButton, index: number): string =>
  button.id && REPLY_ID.test(button.id) ? button.id : `button_${index}`;

/** Where a button sits in its block: its place (`b<i>`, `c<card>b<i>`) and the output a tap or open follows. */
export interface ButtonPlace {
  key: string;
  output: number;
}

/** The tracked links' tokens and the handoffs' ids one send carries, to learn their message once it is sent. */
export interface SentLinks {
  tokens: string[];
  handoffs: string[];
}

export const sentLinks = (): SentLinks => ({ tokens: [], handoffs: [] });

/** A handoff button whose whatsapp number is not connected (or no longer the account's) at send time. */
export interface ButtonFailure {
  failed: StepError;
  end: 'stopped';
}

/** A whatsapp handoff button: sent as a link only to an instagram contact (a whatsapp run taps it). */
const isHandoff = (ctx: RunContext, button: BlockButton): button is BlockButton & { whatsapp_connection_id: string } =>
  typeof button.whatsapp_connection_id === 'string' && ctx.contact.channel === 'instagram';

/**
 * A block's button as sent: a link button (its address tracked), a whatsapp handoff link (instagram), or a reply
 * button carrying `id` (a handoff button on whatsapp replies). An address the send rules refuse goes as it is,
 * so the send fails as it always did.
 */
export async function sendButton(
  ctx: RunContext,
  button: BlockButton,
  id: string,
  place: ButtonPlace,
  links: SentLinks,
): Promise<SchemaSendButton | ButtonFailure> {
  if (isHandoff(ctx, button)) return handoffButton(ctx, button, place, links);
  if (!button.url || button.whatsapp_connection_id) return { type: 'reply', id, title: button.title };
  const url = substitute(button.url, ctx.vars.lookup);
  if (!isHttpsUrl(url)) return { type: 'open_url', title: button.title, url };
  const tracked = await trackLink(ctx.tx, ctx.deps.baseUrl, {
    accountId: ctx.account.id,
    workflowId: ctx.workflow.id,
    runId: ctx.run.id,
    contactId: ctx.contact.id,
    channel: ctx.contact.channel,
    nodeId: ctx.nodeId,
    buttonKey: place.key,
    buttonId: button.id ?? null,
    output: place.output,
    url,
    at: ctx.now,
  });
  links.tokens.push(tracked.token);
  return { type: 'open_url', title: button.title, url: tracked.address };
}

/** The click-to-chat link of a handoff button, or the step's failure when its number is not connected. */
async function handoffButton(
  ctx: RunContext,
  button: BlockButton & { whatsapp_connection_id: string },
  place: ButtonPlace,
  links: SentLinks,
): Promise<SchemaSendButton | ButtonFailure> {
  const connectionId = button.whatsapp_connection_id;
  const handoff = await handoffLink(ctx.tx, {
    accountId: ctx.account.id,
    workflowId: ctx.workflow.id,
    runId: ctx.run.id,
    contactId: ctx.contact.id,
    connectionId,
    nodeId: ctx.nodeId,
    buttonKey: place.key,
    output: place.output,
    message: substitute(button.whatsapp_message ?? '', ctx.vars.lookup),
    at: ctx.now,
  });
  if (!handoff)
    return {
      failed: {
        code: 'handoff_number_disconnected',
        message: `The button leads to a whatsapp number that is not connected (connection ${connectionId}).`,
      },
      end: 'stopped',
    };
  links.handoffs.push(handoff.id);
  return { type: 'open_url', title: button.title, url: handoff.url };
}

/** The send is done: its tracked links and handoffs learn their message (what follows that message's buttons). */
export async function noteSentLinks(ctx: RunContext, links: SentLinks, result: WorkflowSendResult): Promise<void> {
  if (!result.sent) return;
  // A send made after the stretch has its message's id already (it goes out as that message, or not at all).
  const messageId = result.sent === 'later' ? result.messageId : result.message.id;
  await linksSentIn(ctx.tx, links.tokens, messageId);
  await handoffsSentIn(ctx.tx, links.handoffs, messageId);
}

/** The output a tap on the button `id` of this block's message follows, or null. */
export function tappedOutput(data: BlockData<'buttons'>, id: string | null): number | null {
  const buttons: readonly BlockButton[] = data.buttons;
  // A handoff button is a reply button wherever it can be tapped (whatsapp), with or without a `url`.
  const index = buttons.findIndex((b, i) => (!b.url || b.whatsapp_connection_id) && sentButtonId(b, i) === id);
  return index >= 0 ? index : null;
}

export const execute: BlockExecutor<'buttons'> = async (ctx) => {
  const buttons: readonly BlockButton[] = ctx.data.buttons;
  const body: SchemaSendMessageRequest = { text: substitute(ctx.data.subtitle, ctx.vars.lookup) };
  const links = sentLinks();
  if (buttons.length > 0) {
    body.buttons = [];
    for (const [i, b] of buttons.entries()) {
      const sent = await sendButton(ctx, b, sentButtonId(b, i), { key: `b${i}`, output: i }, links);
      if ('failed' in sent) return sent;
      body.buttons.push(sent);
    }
  }
  const result = await ctx.send(body);
  await noteSentLinks(ctx, links, result);
  return sendOutcome(result, {
    wait: 'tap',
    until: new Date(ctx.now.getTime() + CONTACT_WAIT_MS),
    ...(typeof ctx.data.next[AFTER_SEND] === 'string' ? { thenOutput: AFTER_SEND } : {}),
  });
};

export const executor: ExecutorEntry<'buttons'> = { execute, tapOutput: tappedOutput };
