// multichannel (Part B): goes on with the same person (same `person_id`) on other channels. A channel can receive
// when its connection is the account's, connected and of the channel's provider, the person has a contact there,
// that contact is neither blocked from automations nor paused, and its 24-hour window is open when the channel's
// branch sends (docs/decisions.md, "multichannel (issue 22)"). A run belongs to one contact: `first` follows the
// first channel that can receive in this run when it is the run's own contact, else a run of its own begins on
// that contact at the channel's output and this one ends `completed`; `all` begins a run on every channel that
// can receive and this one ends `completed`. The last output when none can.
import { personContactOn } from '../../../domain/contacts/contacts.js';
import { connectionOfAccount } from '../../../domain/console/connections.js';
import { replyWindowOpen } from '../../../domain/messaging/window.js';
import { sendsFrom } from '../../../domain/workflows/graph.js';
import type { BlockContext, BlockExecutor } from '../../context.js';
import type { ContactRow } from '../../../store/contacts.js';
import type { ExecutorEntry } from '../entry.js';
import { triggerCarriedFrom } from '../../types.js';

type Context = BlockContext<'multichannel'>;
type Channel = Context['data']['channels'][number];

/** A channel that can receive: its position (the output) and the person's contact there. */
interface Receiver {
  output: number;
  contact: ContactRow;
}

export const execute: BlockExecutor<'multichannel'> = async (ctx) => {
  const none = ctx.data.channels.length;
  const receivers = await receiversOf(ctx, ctx.data.mode === 'first' ? 1 : none);
  const [first] = receivers;
  if (!first) return { next: none };
  if (ctx.data.mode === 'first' && first.contact.id === ctx.contact.id) return { next: first.output };
  for (const receiver of receivers) await goOnAt(ctx, receiver);
  return ctx.data.mode === 'first' ? { end: 'completed', output: first.output } : { end: 'completed' };
};

/** The channels that can receive, in the listed order, at most `limit` of them. */
async function receiversOf(ctx: Context, limit: number): Promise<Receiver[]> {
  const receivers: Receiver[] = [];
  for (const [output, channel] of ctx.data.channels.entries()) {
    if (receivers.length >= limit) break;
    const contact = await receivingContact(ctx, channel, ctx.data.next[output] ?? null);
    if (contact) receivers.push({ output, contact });
  }
  return receivers;
}

/** The person's contact that can receive on `channel`, whose branch begins at block `from`. */
async function receivingContact(ctx: Context, channel: Channel, from: string | null): Promise<ContactRow | undefined> {
  const accountId = ctx.account.id;
  // A connection the account no longer has (removed), or never had, is skipped.
  const connection = await connectionOfAccount(ctx.tx, accountId, channel.connection_id);
  if (!connection || connection.status !== 'connected' || connection.channel !== channel.provider) return undefined;
  const contact =
    connection.id === ctx.contact.connection_id
      ? ctx.contact
      : await personContactOn(ctx.tx, accountId, ctx.contact.person_id, connection.id);
  if (!contact || contact.blocked_from_automations) return undefined;
  const paused = contact.automations_paused_until;
  if (paused !== null && Date.parse(paused) > ctx.now.getTime()) return undefined;
  // The window matters only to a branch that sends, as for `POST …/runs`.
  if (sendsFrom(ctx.graph.nodes, from) && !(await replyWindowOpen(ctx.tx, accountId, contact.id, ctx.now)))
    return undefined;
  return contact;
}

/** A run of its own for the receiver's contact, beginning at the channel's output (nothing there: none). */
async function goOnAt(ctx: Context, receiver: Receiver): Promise<void> {
  const from = ctx.data.next[receiver.output] ?? null;
  if (from === null) return;
  await ctx.startRun({
    accountId: ctx.account.id,
    workflowId: ctx.workflow.id,
    version: { id: ctx.run.version_id },
    contact: receiver.contact,
    connectionId: receiver.contact.connection_id,
    source: 'workflow',
    // The same person goes on: the trigger's text, the answers and the blocks' runs (the loop guard) carry over.
    trigger: triggerCarriedFrom(ctx.run),
    from,
    carried: { variables: ctx.run.variables, visits: ctx.visits },
  });
}

export const executor: ExecutorEntry<'multichannel'> = { execute };
