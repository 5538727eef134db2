// Accounts and keys, idempotency, durable jobs, rate counters, the audit log and the service's own secrets.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table accounts (
      id uuid primary key,
      name text not null,
      alias text not null unique,
      time_zone text not null default 'UTC',
      suspended boolean not null default false,
      api_enabled boolean not null default true,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null
    )
  `,
  sql`
    create table api_keys (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      name text not null,
      hint text not null,
      hash text not null unique,
      scopes text[] not null,
      created_at timestamptz(6) not null,
      expires_at timestamptz(6) not null,
      revoked_at timestamptz(6)
    )
  `,
  sql`
    create index api_keys_account on api_keys (account_id, created_at)
  `,
  sql`
    create table idempotency_keys (
      account_id uuid not null,
      key text not null,
      operation_id text not null,
      request_hash text not null,
      state text not null check (state in ('running', 'done')),
      response_status integer,
      response_body jsonb,
      response_headers jsonb,
      created_at timestamptz(6) not null,
      expires_at timestamptz(6) not null,
      locked_until timestamptz(6) not null,
      primary key (account_id, key)
    )
  `,
  sql`
    create index idempotency_keys_expiry on idempotency_keys (expires_at)
  `,
  sql`
    create table jobs (
      id bigint generated always as identity primary key,
      kind text not null,
      account_id uuid,
      payload jsonb not null,
      run_at timestamptz(6) not null,
      locked_until timestamptz(6),
      locked_by text,
      attempts integer not null default 0,
      last_error text,
      created_at timestamptz(6) not null
    )
  `,
  sql`
    create index jobs_due on jobs (run_at)
  `,
  sql`
    create table rate_counters (
      bucket text not null,
      window_start timestamptz(6) not null,
      count integer not null,
      primary key (bucket, window_start)
    )
  `,
  sql`
    create table audit_log (
      id bigint generated always as identity primary key,
      account_id uuid not null,
      actor_type text not null,
      actor_id text,
      action text not null,
      target_type text not null,
      target_id text not null,
      details jsonb,
      created_at timestamptz(6) not null
    )
  `,
  sql`
    create index audit_log_account on audit_log (account_id, created_at)
  `,
  sql`
    create table service_secrets (
      name text primary key,
      value text not null,
      created_at timestamptz(6) not null
    )
  `,
];
