// The whatsapp handoff, its inbound side (issue 22; Part B, buttons and cards `whatsapp_connection_id`). A
// whatsapp message carrying the reference code of a handoff button an instagram run sent (to the number the
// button names, unused, within the 90 days a tap is waited for) is the person going on on whatsapp:
//   - the whatsapp contact that wrote (found or created by phone when the message was recorded) joins the
//     instagram contact's person; when the join is refused (the person would have two contacts on one
//     connection) the run still goes on with the contact that wrote, which holds the code;
//   - a run of its own begins on that contact at the button's output block, carrying the instagram run's
//     variables, trigger text and block runs, as multichannel does (`startRun` with `from`), its first
//     stretch at once (the contact just wrote: the window is open);
//   - the instagram run's buttons close with that output and it ends `completed` (wake `handoff`);
//   - the code is used: a second message with it is an ordinary message.
// The message is the handoff and nothing else: it answers no question and starts no automation by keyword.
// docs/decisions.md, "The whatsapp handoff (issue 22)".
import type { Transaction } from 'kysely';
import { linkSamePersonIn } from '../domain/contacts/contacts.js';
import { connectionOfAccount } from '../domain/console/connections.js';
import { handoffOfMessage, handoffUsed } from '../domain/workflows/whatsapp-handoffs.js';
import { findContact, type ContactRow } from '../store/contacts.js';
import type { MessageRow } from '../store/messaging.js';
import type { DB } from '../store/schema.js';
import { lockRun, type WorkflowRunRow } from '../store/workflow-runs.js';
import type { WhatsappHandoffRow } from '../store/whatsapp-handoffs.js';
import { CONTACT_WAIT_MS, type EngineDeps } from './context.js';
import { advanceRun, startRunNow } from './runs.js';
import { nextOf, versionOf } from './walk/versions.js';

/** A contact whose automations may not run now (blocked, or paused by the account). */
function heldBack(contact: ContactRow, now: Date): boolean {
  const paused = contact.automations_paused_until;
  return contact.blocked_from_automations || (paused !== null && Date.parse(paused) > now.getTime());
}

/** Whether the message was a handoff's code (and the person went on on whatsapp); false: an ordinary message. */
export async function takeHandoff(
  tx: Transaction<DB>,
  deps: EngineDeps,
  message: MessageRow,
  contact: ContactRow,
): Promise<boolean> {
  if (contact.channel !== 'whatsapp' || message.type !== 'message') return false;
  const now = deps.clock.now();
  const accountId = message.account_id;
  const handoff = await handoffOfMessage(tx, accountId, contact.connection_id, message.text, now, CONTACT_WAIT_MS);
  if (!handoff) return false;
  // A number disconnected since the send continues nothing (the sandbox delivers nothing to it anyway).
  const connection = await connectionOfAccount(tx, accountId, handoff.connection_id);
  if (connection?.status !== 'connected' || heldBack(contact, now)) return false;
  const instagramContact = await findContact(tx, accountId, handoff.contact_id);
  const run = await lockRun(tx, handoff.run_id);
  if (!instagramContact || !run) return false;
  const joined = await linkSamePersonIn(tx, accountId, contact.id, instagramContact.id);
  if (joined === 'two_on_one_connection')
    deps.logger?.warn({ handoff_id: handoff.id, contact_id: contact.id }, 'whatsapp handoff: persons not joined');
  const writer = (await findContact(tx, accountId, contact.id)) ?? contact;
  const continued = await goOnOnWhatsapp(tx, deps, handoff, run, writer);
  await handoffUsed(tx, handoff.id, { at: now, contactId: writer.id, continuedRunId: continued });
  if (handoff.message_id)
    await advanceRun(tx, deps, run, {
      kind: 'handoff',
      output: handoff.output,
      messageId: handoff.message_id,
      nodeId: handoff.node_id,
    });
  return true;
}

/** A run of its own for the whatsapp contact at the button's output block (none there: no run); its id. */
async function goOnOnWhatsapp(
  tx: Transaction<DB>,
  deps: EngineDeps,
  handoff: WhatsappHandoffRow,
  run: WorkflowRunRow,
  contact: ContactRow,
): Promise<string | null> {
  const version = await versionOf(tx, run);
  const from = nextOf(version?.graph.nodes[handoff.node_id], handoff.output);
  if (!version || from === null) return null;
  const started = await startRunNow(tx, deps, {
    accountId: run.account_id,
    workflowId: run.workflow_id,
    version: { id: run.version_id },
    contact,
    connectionId: contact.connection_id,
    source: 'workflow',
    // The same person goes on: the trigger's text, the answers and the blocks' runs (the loop guard) carry over.
    trigger: {
      text: run.trigger_context.text ?? null,
      interaction_type: run.trigger_context.interaction_type ?? null,
    },
    from,
    carried: { variables: run.variables, visits: run.visits },
  });
  return started.id;
}
