// The WhatsApp Cloud API (issue 35). A connection is served by a provider: `sandbox` (the default, today's) or
// `whatsapp_cloud`, whose number's details and sealed token live in `connection_providers` (the token is sealed
// with AES-256-GCM under CHANNEL_CREDENTIALS_KEY, carrying its key id; never stored in the clear). Meta's webhook
// payloads are committed as they came, as jobs, before the 200 (no table of their own). Inbound messages are
// unique per connection and channel id (Meta re-delivers a payload), and a sent message keeps the highest status
// the channel reported (sent 1, delivered 2, read 3, failed 4): a status at or below it is a no-op.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table connections add column provider text not null default 'sandbox'
      check (provider in ('sandbox', 'whatsapp_cloud'))
  `.execute(db);
  await sql`
    create table connection_providers (
      connection_id uuid primary key references connections(id) on delete cascade,
      account_id uuid not null references accounts(id),
      provider text not null check (provider in ('whatsapp_cloud')),
      phone_number_id text not null,
      waba_id text not null,
      sealed_token text not null,
      token_last4 text not null,
      verified_name text,
      templates_synced_at timestamptz(6),
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null
    )
  `.execute(db);
  // Meta's webhook names the number by its id: one connection per number.
  await sql`
    create unique index connection_providers_phone_number on connection_providers (provider, phone_number_id)
  `.execute(db);
  await sql`
    create unique index messages_inbound_provider_id on messages (connection_id, provider_message_id)
      where direction = 'inbound' and provider_message_id is not null
  `.execute(db);
  // A status webhook names the message by the channel's id.
  await sql`
    create index messages_outbound_provider_id on messages (provider_message_id)
      where direction = 'outbound' and provider_message_id is not null
  `.execute(db);
  await sql`alter table messages add column provider_status_rank smallint not null default 0`.execute(db);
}
