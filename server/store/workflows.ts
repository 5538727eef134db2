// SQL of automations (workflows), their versions and what they name. Every query filters by account; the public
// routes see automations outside the trash only (deleted_at null). Rules live in domain/workflows.
import { sql, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { GraphNodes } from '../../generated/block-catalog.js';
import type { CursorCodec } from './cursor.js';
import { paginate, type Page, type PageRequest } from './pagination.js';
import type { DB, WorkflowReferencesTable, WorkflowVersionsTable, WorkflowsTable } from './schema.js';
import type { WorkflowRunRow } from './workflow-runs.js';

export type WorkflowRow = Selectable<WorkflowsTable>;
export type WorkflowVersionRow = Selectable<WorkflowVersionsTable>;
/**
 * A version's graph as the engine runs it: blocks of the catalog (`generated/block-catalog.ts`). A version is
 * published only when validation found no error, and validation checks every block against the catalog.
 */
export interface CatalogGraph {
  nodes: GraphNodes;
}
/** A version whose graph is read as the catalog's blocks (`findRunnableVersion`). */
export type RunnableVersionRow = Omit<WorkflowVersionRow, 'graph'> & { graph: CatalogGraph };
export type WorkflowReference = Pick<Selectable<WorkflowReferencesTable>, 'kind' | 'name'>;

/** A row to insert: JSON columns as objects (written as JSON text). */
export type NewWorkflowRow = Omit<WorkflowRow, 'revision' | 'saved_by_editor'>;

const asJson = (value: unknown): string => JSON.stringify(value);

export async function insertWorkflow(db: Kysely<DB>, row: NewWorkflowRow): Promise<WorkflowRow> {
  return db
    .insertInto('workflows')
    .values({ ...row, trigger: asJson(row.trigger), graph: asJson(row.graph) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The automation outside the trash with this id, or undefined (no such automation, trashed, another account's). */
export async function findActiveWorkflow(
  db: Kysely<DB>,
  accountId: string,
  workflowId: string,
  options: { forUpdate?: boolean } = {},
): Promise<WorkflowRow | undefined> {
  let q = db
    .selectFrom('workflows')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', workflowId)
    .where('deleted_at', 'is', null);
  if (options.forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** The fields of a draft save; JSON columns as objects. */
export type WorkflowChanges = Partial<
  Pick<
    WorkflowRow,
    | 'title'
    | 'description'
    | 'channel_type'
    | 'connection_id'
    | 'trigger'
    | 'graph'
    | 'folder_id'
    | 'definition_digest'
    | 'saved_by_editor'
    | 'status'
    | 'published_version_id'
    | 'published_at'
    | 'published_digest'
    | 'deleted_at'
  >
>;

/**
 * Writes `changes` to the automation, with `revision + 1` when `bumpRevision` (a change of the draft or its
 * folder), and answers the row as stored.
 */
export async function updateWorkflowRow(
  db: Kysely<DB>,
  accountId: string,
  workflowId: string,
  changes: WorkflowChanges,
  now: string,
  options: { bumpRevision: boolean },
): Promise<WorkflowRow> {
  const { trigger, graph, ...rest } = changes;
  return db
    .updateTable('workflows')
    .set({
      ...rest,
      ...(trigger !== undefined ? { trigger: asJson(trigger) } : {}),
      ...(graph !== undefined ? { graph: asJson(graph) } : {}),
      ...(options.bumpRevision ? { revision: sql<number>`revision + 1` } : {}),
      updated_at: now,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', workflowId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface WorkflowFilters {
  status?: WorkflowRow['status'] | undefined;
  channel?: WorkflowRow['channel_type'] | undefined;
  /** Automations pinned to this connection, and unpinned instagram ones when it is the connected instagram. */
  connectionId?: string | undefined;
  /** The connected instagram account, when `connectionId` names it. */
  connectionIsConnectedInstagram?: boolean;
  triggerEvent?: string | undefined;
  folderId?: string | undefined;
}

/** GET /v1/workflows: the account's automations outside the trash, oldest first, filters combined. */
export async function selectWorkflowsPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  filters: WorkflowFilters,
  page: PageRequest,
): Promise<Page<WorkflowRow>> {
  let q = db.selectFrom('workflows').selectAll().where('account_id', '=', accountId).where('deleted_at', 'is', null);
  if (filters.status !== undefined) q = q.where('status', '=', filters.status);
  if (filters.channel !== undefined) q = q.where('channel_type', '=', filters.channel);
  if (filters.connectionId !== undefined) {
    const id = filters.connectionId;
    q = filters.connectionIsConnectedInstagram
      ? q.where((eb) =>
          eb.or([
            eb('connection_id', '=', id),
            eb.and([eb('channel_type', '=', 'instagram'), eb('connection_id', 'is', null)]),
          ]),
        )
      : q.where('connection_id', '=', id);
  }
  if (filters.triggerEvent !== undefined)
    q = q.where(sql<SqlBool>`trigger -> 'events' @> ${asJson([filters.triggerEvent])}::jsonb`);
  if (filters.folderId !== undefined) q = q.where('folder_id', '=', filters.folderId);
  return paginate(
    q,
    {
      codec,
      list: 'workflows',
      accountId,
      filters: {
        status: filters.status,
        channel: filters.channel,
        connection_id: filters.connectionId,
        trigger_event: filters.triggerEvent,
        folder_id: filters.folderId,
      },
      order: 'asc',
      keys: [
        { column: 'created_at', field: 'created_at', type: 'timestamptz' },
        { column: 'id', field: 'id', type: 'uuid' },
      ],
    },
    page,
  );
}

/** The account's automations among `ids`, trashed ones included (what `start` blocks name). */
export async function selectWorkflowsByIds(
  db: Kysely<DB>,
  accountId: string,
  ids: readonly string[],
): Promise<WorkflowRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('workflows')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
}

/** The account's published automations outside the trash, with their live version's channel and trigger. */
export async function selectPublishedWorkflows(
  db: Kysely<DB>,
  accountId: string,
): Promise<
  Array<Pick<WorkflowRow, 'id' | 'title'> & Pick<WorkflowVersionRow, 'channel_type' | 'connection_id' | 'trigger'>>
> {
  return db
    .selectFrom('workflows as w')
    .innerJoin('workflow_versions as v', (join) =>
      join.onRef('v.account_id', '=', 'w.account_id').onRef('v.id', '=', 'w.published_version_id'),
    )
    .select(['w.id', 'w.title', 'v.channel_type', 'v.connection_id', 'v.trigger'])
    .where('w.account_id', '=', accountId)
    .where('w.deleted_at', 'is', null)
    .where('w.status', '=', 'published')
    .orderBy('w.created_at')
    .orderBy('w.id')
    .execute();
}

export async function insertWorkflowVersion(db: Kysely<DB>, row: WorkflowVersionRow): Promise<WorkflowVersionRow> {
  return db
    .insertInto('workflow_versions')
    .values({ ...row, trigger: asJson(row.trigger), graph: asJson(row.graph) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The number the next version of the automation gets (1 for the first). */
export async function nextVersionNumber(db: Kysely<DB>, accountId: string, workflowId: string): Promise<number> {
  const row = await db
    .selectFrom('workflow_versions')
    .select((eb) => eb.fn.max('number').as('last'))
    .where('account_id', '=', accountId)
    .where('workflow_id', '=', workflowId)
    .executeTakeFirst();
  return Number(row?.last ?? 0) + 1;
}

/** GET …/versions: newest first (by number). */
export async function selectWorkflowVersionsPage(
  db: Kysely<DB>,
  codec: CursorCodec,
  accountId: string,
  workflowId: string,
  page: PageRequest,
): Promise<Page<WorkflowVersionRow>> {
  return paginate(
    db
      .selectFrom('workflow_versions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('workflow_id', '=', workflowId),
    {
      codec,
      list: 'workflow_versions',
      accountId,
      parent: workflowId,
      order: 'desc',
      keys: [{ column: 'number', field: 'number', type: 'integer' }],
    },
    page,
  );
}

/** Replaces what the draft or the live version of the automation names (tag names, reply lists). */
export async function replaceWorkflowReferences(
  db: Kysely<DB>,
  accountId: string,
  workflowId: string,
  holder: 'draft' | 'live',
  references: readonly WorkflowReference[],
): Promise<void> {
  await db
    .deleteFrom('workflow_references')
    .where('account_id', '=', accountId)
    .where('workflow_id', '=', workflowId)
    .where('holder', '=', holder)
    .execute();
  const unique = new Map(references.map((r) => [`${r.kind}\u0000${r.name}`, r]));
  if (unique.size === 0) return;
  await db
    .insertInto('workflow_references')
    .values([...unique.values()].map((r) => ({ account_id: accountId, workflow_id: workflowId, holder, ...r })))
    .execute();
}

/** Drops every reference of the automation (it went to the trash). */
export async function deleteWorkflowReferences(db: Kysely<DB>, accountId: string, workflowId: string): Promise<void> {
  await db
    .deleteFrom('workflow_references')
    .where('account_id', '=', accountId)
    .where('workflow_id', '=', workflowId)
    .execute();
}

/**
 * The automations outside the trash whose draft or live version names `name` (a tag name, compared exactly,
 * or a reply list id): the first `limit` ids, oldest first, and how many there are.
 */
export async function selectWorkflowsReferencing(
  db: Kysely<DB>,
  accountId: string,
  kind: WorkflowReference['kind'],
  name: string,
  limit: number,
): Promise<{ ids: string[]; count: number }> {
  const rows = await db
    .selectFrom('workflows as w')
    .select(['w.id', sql<string>`count(*) over ()`.as('total')])
    .where('w.account_id', '=', accountId)
    .where('w.deleted_at', 'is', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('workflow_references as r')
          .select(sql`1`.as('one'))
          .whereRef('r.workflow_id', '=', 'w.id')
          .where('r.account_id', '=', accountId)
          .where('r.kind', '=', kind)
          .where('r.name', '=', name),
      ),
    )
    .orderBy('w.created_at')
    .orderBy('w.id')
    .limit(limit)
    .execute();
  return { ids: rows.map((r) => r.id), count: rows.length === 0 ? 0 : Number(rows[0]?.total ?? 0) };
}

/** The account of the automation outside the trash with this id (the admin API addresses it by id alone). */
export async function findActiveWorkflowAccount(db: Kysely<DB>, workflowId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('workflows')
    .select('account_id')
    .where('id', '=', workflowId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.account_id;
}

/**
 * A version by id, of the automation `workflowId` when given (runs follow the version they started with,
 * trashed automations' included).
 */
export async function findVersionById(
  db: Kysely<DB>,
  accountId: string,
  versionId: string,
  workflowId?: string,
): Promise<WorkflowVersionRow | undefined> {
  let query = db
    .selectFrom('workflow_versions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', versionId);
  if (workflowId !== undefined) query = query.where('workflow_id', '=', workflowId);
  return query.executeTakeFirst();
}

/** A version by id with its graph typed as the catalog's blocks: what a run follows. */
export async function findRunnableVersion(
  db: Kysely<DB>,
  accountId: string,
  versionId: string,
): Promise<RunnableVersionRow | undefined> {
  const row = await findVersionById(db, accountId, versionId);
  // The column holds the graph as the API reads it; publishing checked it against the catalog, which no type says.
  return row && { ...row, graph: row.graph as CatalogGraph };
}

export interface LiveTrigger {
  workflow_id: string;
  connection_id: string | null;
  trigger: WorkflowVersionRow['trigger'];
  /** The live version (a run follows it by id: engine/walk/versions.ts reads it once per process). */
  version: Pick<WorkflowVersionRow, 'id'>;
}

/** The account's published automations on `channel`, with their live version (what triggers compare). */
export async function selectLiveTriggers(
  db: Kysely<DB>,
  accountId: string,
  channel: WorkflowVersionRow['channel_type'],
): Promise<LiveTrigger[]> {
  const rows = await db
    .selectFrom('workflows as w')
    .innerJoin('workflow_versions as v', (join) =>
      join.onRef('v.account_id', '=', 'w.account_id').onRef('v.id', '=', 'w.published_version_id'),
    )
    .select(['v.workflow_id', 'v.connection_id', 'v.trigger', 'v.id'])
    .where('w.account_id', '=', accountId)
    .where('w.deleted_at', 'is', null)
    .where('w.status', '=', 'published')
    .where('v.channel_type', '=', channel)
    .orderBy('w.created_at')
    .orderBy('w.id')
    .execute();
  return rows.map((v) => ({
    workflow_id: v.workflow_id,
    connection_id: v.connection_id,
    trigger: v.trigger,
    version: { id: v.id },
  }));
}

/** A row of `selectWaitingRunsAndLiveTriggers`: the live triggers, and one waiting run or none (all null). */
type WaitingRunAndLiveTriggers = {
  live: {
    workflow_id: string;
    connection_id: string | null;
    trigger: WorkflowVersionRow['trigger'];
    version_id: string;
  }[];
  recent_runs: string;
  workflows_in_progress: string[];
} & (WorkflowRunRow | { [K in keyof WorkflowRunRow]: null });

/** What the start rules read of a contact's runs (store/workflow-runs.ts `runStartState`), for every automation. */
export interface ContactRunsState {
  /** Runs of the contact created since the time given. */
  recent: number;
  /** The automations the contact is in the middle of a run of. */
  inProgress: ReadonlySet<string>;
}

/**
 * What a contact's inbound message looks up, in one statement: the contact's runs waiting (locked, oldest
 * first), the account's live triggers on `channel` (`selectLiveTriggers`), and what the start rules read of the
 * contact's runs (`since`: the hourly limit's window).
 */
export async function selectWaitingRunsAndLiveTriggers(
  db: Kysely<DB>,
  accountId: string,
  contactId: string,
  channel: WorkflowVersionRow['channel_type'],
  since: string,
): Promise<{ waiting: WorkflowRunRow[]; live: LiveTrigger[]; runs: ContactRunsState }> {
  const { rows } = await sql<WaitingRunAndLiveTriggers>`
    select t.live, s.recent_runs, s.workflows_in_progress, r.*
    from (
      select coalesce(
        json_agg(
          json_build_object('workflow_id', v.workflow_id, 'connection_id', v.connection_id, 'trigger', v.trigger, 'version_id', v.id)
          order by w.created_at, w.id
        ),
        '[]'::json
      ) as live
      from workflows w
      join workflow_versions v on v.account_id = w.account_id and v.id = w.published_version_id
      where w.account_id = ${accountId} and w.deleted_at is null and w.status = 'published' and v.channel_type = ${channel}
    ) t
    cross join (
      select count(*) filter (where created_at >= cast(${since} as timestamptz)) as recent_runs,
        coalesce(array_agg(distinct workflow_id::text) filter (where ended_at is null), '{}') as workflows_in_progress
      from workflow_runs
      where account_id = ${accountId} and contact_id = ${contactId}
        and (created_at >= cast(${since} as timestamptz) or ended_at is null)
    ) s
    left join lateral (
      select * from workflow_runs
      where account_id = ${accountId} and contact_id = ${contactId} and waiting_for is not null and ended_at is null
      order by created_at, id
      for update
    ) r on true
    order by r.created_at, r.id`.execute(db);
  const waiting: WorkflowRunRow[] = [];
  for (const row of rows) {
    const { live: _live, recent_runs: _recent, workflows_in_progress: _inProgress, ...run } = row;
    if (run.id !== null) waiting.push(run);
  }
  const live = (rows[0]?.live ?? []).map((v) => ({
    workflow_id: v.workflow_id,
    connection_id: v.connection_id,
    trigger: v.trigger,
    version: { id: v.version_id },
  }));
  const runs = {
    recent: Number(rows[0]?.recent_runs ?? 0),
    inProgress: new Set(rows[0]?.workflows_in_progress ?? []),
  };
  return { waiting, live, runs };
}
