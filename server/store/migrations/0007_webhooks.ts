// Webhooks (Part C): endpoints, their deliveries, and the owner notifications the service leaves when it
// disables a failing endpoint.
//
// - An endpoint row stays after DELETE (`deleted_at` set) so that a replayed register answers 404 rather than
//   a new endpoint; every read filters `deleted_at is null`. Its deliveries are deleted with it.
// - A delivery is one event for one endpoint, created in the transaction that records the event (the fan-out
//   of the outbox), with a `webhook.deliver` job. `in_flight_until` is the lease of an attempt under way: at
//   most 5 per endpoint hold one at a time. Deliveries are kept 7 days (reads filter by `created_at`; a
//   periodic job prunes older rows).
// - Secrets are stored as given out (the service must sign with them); `previous_secret` signs too until
//   `previous_secret_expires_at` (24 hours after a rotation).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table webhook_endpoints (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      url text not null,
      description text,
      event_types text[] not null,
      status text not null check (status in ('enabled', 'disabled')),
      disabled_reason text check (disabled_reason in ('requested', 'failing')),
      disabled_at timestamptz(6),
      failing_since timestamptz(6),
      secret text not null,
      previous_secret text,
      previous_secret_expires_at timestamptz(6),
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      deleted_at timestamptz(6),
      unique (account_id, id)
    )
  `,
  // The list (newest first) and the fan-out (enabled endpoints of the account).
  sql`
    create index webhook_endpoints_account on webhook_endpoints (account_id, created_at desc, id desc)
    where deleted_at is null
  `,
  sql`
    create table webhook_deliveries (
      id uuid primary key,
      account_id uuid not null,
      webhook_id uuid not null,
      event_id uuid not null references events(id),
      event_type text not null,
      event_created_at timestamptz(6) not null,
      status text not null check (status in ('pending', 'succeeded', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz(6),
      last_attempt_at timestamptz(6),
      last_response_status integer,
      last_error text,
      delivered_at timestamptz(6),
      in_flight_until timestamptz(6),
      created_at timestamptz(6) not null,
      unique (webhook_id, event_id),
      foreign key (account_id, webhook_id) references webhook_endpoints (account_id, id) on delete cascade
    )
  `,
  // The delivery log (newest first, by status) and the per-endpoint in-flight count.
  sql`
    create index webhook_deliveries_log on webhook_deliveries (webhook_id, created_at desc, id desc)
  `,
  sql`
    create index webhook_deliveries_in_flight on webhook_deliveries (webhook_id, in_flight_until)
    where in_flight_until is not null
  `,
  sql`
    create index webhook_deliveries_created on webhook_deliveries (created_at)
  `,
  // The retention job drops outbox events older than 7 days once no delivery refers to them.
  sql`
    create index events_created on events (created_at)
  `,
  sql`
    create index webhook_deliveries_event on webhook_deliveries (event_id)
  `,
  // What the service tells an account owner (an endpoint disabled for failing): read through the admin API.
  sql`
    create table account_notifications (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      kind text not null,
      subject_type text not null,
      subject_id text not null,
      details jsonb,
      created_at timestamptz(6) not null
    )
  `,
  sql`
    create index account_notifications_account on account_notifications (account_id, created_at desc, id desc)
  `,
];
