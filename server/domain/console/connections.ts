// Connections (instagram accounts, whatsapp numbers) as the console adds and changes them. One connection per
// number or username in an account; a disconnected connection carries its reason, a connected one none.
import { isOneOf } from '../../guards.js';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { isUuid } from '../../ids.js';
import {
  findConnection,
  findConnectionById,
  findConnectionByIdentity,
  insertConnection,
  isUniqueViolation,
  selectConnectionsPage,
  lockAccount,
  updateConnection,
  type ConnectionRow,
} from '../../store/console.js';
import { cursorCodec } from '../../store/cursor.js';
import type { Page, PageRequest } from '../../store/pagination.js';
import type { DB } from '../../store/schema.js';
import { requireName } from '../accounts/accounts.js';
import { audit, type Actor } from '../accounts/actor.js';
import { recordEvents } from '../events/outbox.js';

export const CHANNELS = ['instagram', 'whatsapp'] as const;
export type Channel = (typeof CHANNELS)[number];
export const CONNECTION_STATUSES = ['connected', 'disconnected'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
export const DISCONNECT_REASONS = [
  'authorization_lost',
  'disconnected_by_user',
  'account_suspended',
  'activation_expired',
  'setup_incomplete',
] as const;
export type DisconnectReason = (typeof DISCONNECT_REASONS)[number];

export const E164 = /^\+[1-9][0-9]{6,14}$/;
const INSTAGRAM_USERNAME = /^@?[A-Za-z0-9._]{1,30}$/;

export interface ConnectionInput {
  channel: Channel;
  name: string;
  phone?: string;
  username?: string;
  status?: ConnectionStatus;
  disconnect_reason?: DisconnectReason;
}

/** The identity a channel takes: a username on instagram (stored lowercase, without `@`), a phone on whatsapp. */
function identityOf(input: ConnectionInput): { phone: string } | { username: string } {
  const invalid = (message: string) => new ApiError(422, 'invalid_identity', message);
  if (input.channel === 'instagram') {
    if (input.phone !== undefined) throw invalid('An instagram connection takes a username, not a phone.');
    if (input.username === undefined || !INSTAGRAM_USERNAME.test(input.username))
      throw invalid('An instagram connection needs a username (letters, digits, `.` and `_`, up to 30).');
    return { username: input.username.replace(/^@/, '').toLowerCase() };
  }
  if (input.channel === 'whatsapp') {
    if (input.username !== undefined) throw invalid('A whatsapp connection takes a phone, not a username.');
    if (input.phone === undefined || !E164.test(input.phone))
      throw invalid('A whatsapp connection needs a phone in E.164 form (+5511930001234).');
    return { phone: input.phone };
  }
  throw invalid(`Unknown channel ${String(input.channel)}.`);
}

/** The status and reason after a change: `disconnected` needs a reason in the same request, `connected` takes none. */
function statusAfter(
  current: { status: ConnectionStatus; disconnect_reason: DisconnectReason | null },
  change: { status?: ConnectionStatus; disconnect_reason?: DisconnectReason },
): { status: ConnectionStatus; disconnect_reason: DisconnectReason | null } {
  const invalid = (message: string) => new ApiError(422, 'invalid_disconnect_reason', message);
  if (change.status !== undefined && !isOneOf(CONNECTION_STATUSES, change.status))
    throw invalid(`Unknown status ${String(change.status)}.`);
  if (change.disconnect_reason !== undefined && !DISCONNECT_REASONS.includes(change.disconnect_reason))
    throw invalid(`Unknown disconnect_reason ${String(change.disconnect_reason)}.`);
  const status = change.status ?? current.status;
  if (status === 'connected') {
    if (change.disconnect_reason !== undefined) throw invalid('A connected connection takes no disconnect_reason.');
    return { status, disconnect_reason: null };
  }
  if (change.status === 'disconnected' && change.disconnect_reason === undefined)
    throw invalid('A disconnected connection needs a disconnect_reason.');
  return { status, disconnect_reason: change.disconnect_reason ?? current.disconnect_reason };
}

export async function createConnection(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: ConnectionInput,
  actor?: Actor,
): Promise<ConnectionRow> {
  requireName(input.name);
  const identity = identityOf(input);
  const state = statusAfter(
    { status: 'connected', disconnect_reason: null },
    { status: input.status ?? 'connected', disconnect_reason: input.disconnect_reason },
  );
  const now = clock.now().toISOString();
  const exists = (row: ConnectionRow) =>
    new ApiError(409, 'connection_already_exists', 'The account already has this number or username.', {
      connection_id: row.id,
    });
  try {
    return await db.transaction().execute(async (tx) => {
      if (!(await lockAccount(tx, accountId))) throw notFound('No such account.');
      const existing = await findConnectionByIdentity(tx, accountId, identity);
      if (existing) throw exists(existing);
      const row: ConnectionRow = {
        id: randomUUID(),
        account_id: accountId,
        channel: input.channel,
        name: input.name,
        username: 'username' in identity ? identity.username : null,
        phone: 'phone' in identity ? identity.phone : null,
        ...state,
        provider: 'sandbox',
        created_at: now,
        updated_at: now,
      };
      const created = await insertConnection(tx, row);
      await audit(
        tx,
        actor,
        {
          accountId,
          action: 'connection.created',
          targetType: 'connection',
          targetId: row.id,
          details: { channel: row.channel, name: row.name, status: row.status },
        },
        now,
      );
      return created;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await findConnectionByIdentity(db, accountId, identity);
    throw existing ? exists(existing) : error;
  }
}

export async function changeConnection(
  db: Kysely<DB>,
  clock: Clock,
  connectionId: string,
  change: { name?: string; status?: ConnectionStatus; disconnect_reason?: DisconnectReason },
  actor?: Actor,
): Promise<ConnectionRow> {
  if (change.name !== undefined) requireName(change.name);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    const found = await findConnectionById(tx, connectionId);
    if (!found) throw notFound('No such connection.');
    // Serialise changes of the account's connections: two identical changes at once emit one event.
    await lockAccount(tx, found.account_id);
    // Read again under the lock: the state a concurrent change left is the one this change starts from.
    const current = await findConnectionById(tx, connectionId);
    if (!current) throw notFound('No such connection.');
    const state = statusAfter(current, change);
    const updated = await updateConnection(tx, current.account_id, connectionId, {
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...state,
      updated_at: now,
    });
    if (!updated) throw notFound('No such connection.');
    // connection.connected / connection.disconnected: once per real status change (Part C), not on a rename
    // or a new reason of an already disconnected connection.
    if (updated.status !== current.status)
      await recordEvents(tx, current.account_id, now, [
        {
          type: updated.status === 'connected' ? 'connection.connected' : 'connection.disconnected',
          resource: { type: 'connection', id: connectionId },
          data: connectionView(updated),
        },
      ]);
    await audit(
      tx,
      actor,
      {
        accountId: current.account_id,
        action: 'connection.updated',
        targetType: 'connection',
        targetId: connectionId,
        details: { ...change },
      },
      now,
    );
    return updated;
  });
}

/** A connection named by id alone (the admin API), of whichever account; 404 when there is none. */
export async function connectionById(db: Kysely<DB>, connectionId: string): Promise<ConnectionRow> {
  const connection = await findConnectionById(db, connectionId);
  if (!connection) throw notFound('No such connection.');
  return connection;
}

/** A connection of the account, or undefined (none by that id there: never made, removed, or another account's). */
export async function connectionOfAccount(
  db: Kysely<DB>,
  accountId: string,
  connectionId: string,
): Promise<ConnectionRow | undefined> {
  return isUuid(connectionId) ? findConnection(db, accountId, connectionId) : undefined;
}

/** A connection as `GET /v1/connections` lists it (the public Connection schema). */
export function connectionView(row: ConnectionRow) {
  return {
    id: row.id,
    channel: row.channel,
    name: row.name,
    status: row.status,
    disconnect_reason: row.disconnect_reason,
    instagram: row.channel === 'instagram' ? { username: row.username ?? '' } : null,
    whatsapp: row.channel === 'whatsapp' ? { phone: row.phone ?? '' } : null,
    created_at: row.created_at,
  };
}

/** `GET /v1/connections`: a page of the account's connections, oldest first. */
export async function listConnections(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  page: PageRequest,
): Promise<Page<ReturnType<typeof connectionView>>> {
  const result = await selectConnectionsPage(db, await cursorCodec(db, clock), accountId, page);
  return { data: result.data.map(connectionView), next_cursor: result.next_cursor };
}
