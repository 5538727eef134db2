// Automations as data (Part B, definition side): folders, reply lists, automations with their draft and
// revision, the versions each publish stores, what drafts and live versions name (tags, reply lists), and the
// runs table the engine fills (read by GET …/runs until then).
//
// - Folders and reply lists are deleted for good (the seeds keep no trace of them). Deleting a folder deletes
//   its subtree; its automations leave folders (folder_id null, revision + 1) in the same transaction.
// - An automation is deleted to the trash (`deleted_at`): it answers 404 from then on, but `start` blocks of
//   other automations still tell "deleted" from "never existed" (warnings start_workflow_deleted/_not_found).
// - `workflow_references` lists the tag names and reply lists that the draft and the live version of each
//   automation use, rewritten with every draft save and publish: tag rename/delete (tag_in_use) and reply-list
//   delete (replies_list_in_use) ask it by index instead of reading every graph.
// - Graphs are `json`, not `jsonb`: kept as sent, block order included (jsonb reorders keys), since Part B
//   returns a graph as received. Triggers are `jsonb` (the list filters on trigger events).
// - The account_id is on every row and in every foreign key that crosses tables, so no row can point into
//   another account.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`
    create table workflow_folders (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      type text not null default 'workflow',
      name text not null,
      parent_id uuid,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      unique (account_id, id),
      foreign key (account_id, parent_id) references workflow_folders (account_id, id) on delete cascade
    )
  `,
  // GET /v1/folders: every level, oldest first, keyset-paged.
  sql`
    create index workflow_folders_order on workflow_folders (account_id, created_at, id)
  `,
  sql`
    create index workflow_folders_parent on workflow_folders (account_id, parent_id)
  `,
  sql`
    create table replies_lists (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      name text not null,
      -- The name with letter case folded by the service (as tags): unique in the account.
      name_key text not null,
      replies jsonb not null,
      reply_count integer not null,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      unique (account_id, id),
      unique (account_id, name_key)
    )
  `,
  sql`
    create index replies_lists_order on replies_lists (account_id, created_at, id)
  `,
  sql`
    create table workflows (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      title text not null,
      description text,
      channel_type text not null check (channel_type in ('instagram', 'whatsapp')),
      -- Null on instagram: the connected instagram account.
      connection_id uuid,
      trigger jsonb not null,
      graph json not null,
      folder_id uuid,
      -- Changes to the draft (API, console editor, folder moves); the ETag.
      revision integer not null default 0,
      -- True when the last draft save came from the console editor (extra next entries warn, not fail).
      saved_by_editor boolean not null default false,
      -- sha-256 of the draft's title, description, channel, trigger and graph: has_unpublished_changes.
      definition_digest text not null,
      status text not null check (status in ('draft', 'published')),
      published_version_id uuid,
      published_at timestamptz(6),
      -- definition_digest of the live version: has_unpublished_changes without reading it.
      published_digest text,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      deleted_at timestamptz(6),
      unique (account_id, id),
      foreign key (account_id, folder_id) references workflow_folders (account_id, id) on delete set null (folder_id),
      check ((status = 'published') = (published_version_id is not null))
    )
  `,
  // GET /v1/workflows: the account's automations oldest first (the filters narrow this scan).
  sql`
    create index workflows_order on workflows (account_id, created_at, id) where deleted_at is null
  `,
  sql`
    create index workflows_folder on workflows (account_id, folder_id) where deleted_at is null
  `,
  sql`
    create table workflow_versions (
      id uuid primary key,
      account_id uuid not null,
      workflow_id uuid not null,
      number integer not null,
      -- The draft revision that was published.
      revision integer not null,
      title text not null,
      description text,
      channel_type text not null,
      connection_id uuid,
      trigger jsonb not null,
      graph json not null,
      definition_digest text not null,
      published_at timestamptz(6) not null,
      unique (account_id, id),
      unique (workflow_id, number),
      foreign key (account_id, workflow_id) references workflows (account_id, id)
    )
  `,
  sql`
    create table workflow_references (
      account_id uuid not null,
      workflow_id uuid not null,
      -- 'draft' or 'live' (the published version).
      holder text not null check (holder in ('draft', 'live')),
      kind text not null check (kind in ('tag', 'replies_list')),
      -- A tag name exactly as the blocks write it, or a reply list id.
      name text not null,
      primary key (workflow_id, holder, kind, name),
      foreign key (account_id, workflow_id) references workflows (account_id, id)
    )
  `,
  sql`
    create index workflow_references_name on workflow_references (account_id, kind, name)
  `,
  // Filled by the engine (next issue); listed and read by GET …/runs until then.
  sql`
    create table workflow_runs (
      id uuid primary key,
      account_id uuid not null,
      workflow_id uuid not null,
      version_id uuid not null,
      contact_id uuid not null,
      channel text not null check (channel in ('instagram', 'whatsapp')),
      connection_id uuid not null,
      source text not null check (source in ('trigger', 'api', 'console', 'workflow')),
      status text not null,
      created_at timestamptz(6) not null,
      updated_at timestamptz(6) not null,
      ended_at timestamptz(6),
      unique (account_id, id),
      foreign key (account_id, workflow_id) references workflows (account_id, id),
      foreign key (account_id, version_id) references workflow_versions (account_id, id)
    )
  `,
  // GET …/runs: newest first per automation, filtered by contact and start time.
  sql`
    create index workflow_runs_order on workflow_runs (workflow_id, created_at desc, id desc)
  `,
  sql`
    create table workflow_run_steps (
      id uuid primary key,
      account_id uuid not null,
      run_id uuid not null,
      seq integer not null,
      node_id text,
      type text not null,
      status text not null,
      output integer,
      message_id uuid,
      error jsonb,
      started_at timestamptz(6) not null,
      ended_at timestamptz(6),
      unique (run_id, seq),
      foreign key (account_id, run_id) references workflow_runs (account_id, id)
    )
  `,
];
