// Detaching a real channel from a connection (WhatsApp Cloud's number, Instagram's account): the token and ids
// forgotten, the sandbox serving the connection again, which is disconnected `disconnected_by_user` (Part C's
// connection event, once: a connection already so is left as it is).
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { deleteConnectionProvider, setConnectionProvider } from '../../store/channel-providers.js';
import type { ConnectionRow } from '../../store/console.js';
import type { DB } from '../../store/schema.js';
import { audit, type Actor } from '../accounts/actor.js';
import { changeConnection, connectionById } from '../console/connections.js';

export async function detachToSandbox(
  db: Kysely<DB>,
  clock: Clock,
  connection: ConnectionRow,
  actor: Actor,
): Promise<ConnectionRow> {
  const connectionId = connection.id;
  const now = clock.now().toISOString();
  await db.transaction().execute(async (tx) => {
    await deleteConnectionProvider(tx, connectionId);
    await setConnectionProvider(tx, connectionId, 'sandbox', now);
    await audit(
      tx,
      actor,
      {
        accountId: connection.account_id,
        action: 'connection.updated',
        targetType: 'connection',
        targetId: connectionId,
        details: { provider: 'sandbox' },
      },
      now,
    );
  });
  if (connection.status === 'disconnected' && connection.disconnect_reason === 'disconnected_by_user')
    return connectionById(db, connectionId);
  return changeConnection(db, clock, connectionId, {
    status: 'disconnected',
    disconnect_reason: 'disconnected_by_user',
  });
}
