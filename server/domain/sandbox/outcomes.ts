// The sandbox channel's arranged answers: what the next sends on a connection will get, in order. They are kept in
// the database (store/sandbox.ts); the sandbox provider (channels/sandbox.ts) takes them through
// `sandboxArrangements`, the port it is built with (server/services.ts), in the send's own transaction.
import type { Kysely } from 'kysely';
import { arrangedOutcomeOf, type ArrangedOutcome, type SandboxArrangements } from '../../channels/sandbox.js';
import type { Clock } from '../../clock.js';
import type { ConnectionRow } from '../../store/console.js';
import { addArrangement, clearArrangements, takeNextArrangement } from '../../store/sandbox.js';
import type { DB } from '../../store/schema.js';
import { invalidSandboxAction } from '../messaging/inbound.js';
import { requireSandboxServed } from './actions.js';

/** Answers only instagram gives (Part A: "instagram failed without sending", another app owning the thread). */
const INSTAGRAM_ONLY = new Set(['provider_unavailable', 'conversation_not_owned']);
/** Answers only whatsapp gives (a later non-delivery report). */
const WHATSAPP_ONLY = new Set(['fails_later']);

export async function arrangeSendOutcome(
  db: Kysely<DB>,
  clock: Clock,
  connection: ConnectionRow,
  outcome: ArrangedOutcome,
): Promise<{ outcome: ArrangedOutcome; queued: number }> {
  requireSandboxServed(connection);
  if (INSTAGRAM_ONLY.has(outcome.outcome) && connection.channel !== 'instagram')
    throw invalidSandboxAction('not_instagram', `Only instagram answers ${outcome.outcome}.`);
  if (WHATSAPP_ONLY.has(outcome.outcome) && connection.channel !== 'whatsapp')
    throw invalidSandboxAction('not_whatsapp', `Only whatsapp answers ${outcome.outcome}.`);
  const queued = await addArrangement(db, connection.account_id, connection.id, outcome, clock.now().toISOString());
  return { outcome, queued };
}

export async function clearSendOutcomes(db: Kysely<DB>, connection: ConnectionRow): Promise<void> {
  requireSandboxServed(connection);
  await clearArrangements(db, connection.account_id, connection.id);
}

/**
 * The sandbox provider's port to its arranged answers: each send takes the oldest of its connection in the
 * session it runs in (the caller's transaction: the answer is consumed only if the send commits).
 */
export const sandboxArrangements: SandboxArrangements<Kysely<DB>> = {
  async takeNext(db, accountId, connectionId) {
    return arrangedOutcomeOf(await takeNextArrangement(db, accountId, connectionId));
  },
};
