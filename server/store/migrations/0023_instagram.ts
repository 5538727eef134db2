// Instagram Messaging (issue 36). A connection may be served by `instagram_graph`: its account's ids on Meta
// (`ig_user_id`, and with Facebook Login its Page's `page_id`), the login the token belongs to, the username the
// token read, and the sealed token, in `connection_providers` beside WhatsApp Cloud's numbers. Each provider
// fills its own columns (a check per provider). `conversations.owned_elsewhere_since`: Meta said another app owns
// the thread (a `standby` item); sends answer `conversation_not_owned` without calling Meta until a `messaging`
// item for the thread clears it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table connections drop constraint connections_provider_check`.execute(db);
  await sql`
    alter table connections add constraint connections_provider_check
      check (provider in ('sandbox', 'whatsapp_cloud', 'instagram_graph'))
  `.execute(db);
  await sql`alter table connection_providers drop constraint connection_providers_provider_check`.execute(db);
  await sql`alter table connection_providers alter column phone_number_id drop not null`.execute(db);
  await sql`alter table connection_providers alter column waba_id drop not null`.execute(db);
  await sql`alter table connection_providers add column login text check (login in ('instagram', 'facebook'))`.execute(
    db,
  );
  await sql`alter table connection_providers add column ig_user_id text`.execute(db);
  await sql`alter table connection_providers add column page_id text`.execute(db);
  await sql`alter table connection_providers add column username text`.execute(db);
  await sql`
    alter table connection_providers add constraint connection_providers_provider_check check (
      (provider = 'whatsapp_cloud' and phone_number_id is not null and waba_id is not null and ig_user_id is null)
      or (provider = 'instagram_graph' and ig_user_id is not null and login is not null and phone_number_id is null
          and (login = 'instagram' or page_id is not null))
    )
  `.execute(db);
  // Meta's webhook names the Instagram account by its id: one connection per account.
  await sql`
    create unique index connection_providers_ig_user on connection_providers (provider, ig_user_id)
      where ig_user_id is not null
  `.execute(db);
  await sql`alter table conversations add column owned_elsewhere_since timestamptz(6)`.execute(db);
}
