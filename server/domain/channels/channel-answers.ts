// What a real channel's answer to a send does beyond the send itself, in the caller's transaction: a token or
// permission Meta no longer honours disconnects the connection (`authorization_lost`, `connection.disconnected`,
// once), and a template Meta no longer knows (132001) has the number's templates read again by a job, so the
// next send sees what Meta has.
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.js';
import { TEMPLATE_SYNC_JOB } from '../../job-kinds.js';
import { findConnectionById } from '../../store/console.js';
import { enqueue } from '../../store/jobs.js';
import type { DB } from '../../store/schema.js';
import { changeConnectionIn } from '../console/connections.js';

export async function channelLostAuthorization(tx: Kysely<DB>, clock: Clock, connectionId: string): Promise<void> {
  const connection = await findConnectionById(tx, connectionId);
  if (connection?.status !== 'connected') return;
  await changeConnectionIn(tx, clock, connectionId, {
    status: 'disconnected',
    disconnect_reason: 'authorization_lost',
  });
}

export async function templatesGone(
  tx: Transaction<DB>,
  clock: Clock,
  accountId: string,
  connectionId: string,
): Promise<void> {
  await enqueue(tx, clock, { kind: TEMPLATE_SYNC_JOB, accountId, payload: { connection_id: connectionId } });
}
