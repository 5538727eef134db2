// The versions runs follow, as the engine reads them: each read once per process (versions never change), its
// graph typed as the catalog's blocks, with what its blocks read beyond the contact's own fields.
import type { Transaction } from 'kysely';
import type { Block } from '../../../generated/block-catalog.js';
import { blockType } from '../../blocks/index.js';
import type { DB } from '../../store/schema.js';
import type { WorkflowRunRow } from '../../store/workflow-runs.js';
import { findRunnableVersion, type RunnableVersionRow } from '../../store/workflows.js';

/** How many versions (and their reads) a process keeps. */
const KEPT = 500;

const versions = new Map<string, RunnableVersionRow>();
/** The version the run follows: read once per process (a few hundred kept). */
export async function versionOf(tx: Transaction<DB>, run: WorkflowRunRow): Promise<RunnableVersionRow | undefined> {
  const cached = versions.get(run.version_id);
  if (cached) return cached;
  const version = await findRunnableVersion(tx, run.account_id, run.version_id);
  if (version) keep(versions, version.id, version);
  return version;
}

/** What a version's blocks read beyond the contact's own fields (the other rows a stretch reads). */
export interface GraphReads {
  /** The recent messages (`conversation.*`, `message.last_*`). */
  messages: boolean;
  /** The tags (`contact.tags`; tag conditions and tags blocks read them when they run). */
  tags: boolean;
  /** The custom fields (a `{key}` that is no built-in variable, a conditional, math or data block). */
  fields: boolean;
  /** The account's variables (`account.<name>` anywhere in the graph's texts). */
  account: boolean;
}

const readers = new Map<string, GraphReads>();
/** What the version's blocks read, so a stretch skips the queries it does not need (worked out once). */
export function graphReads(version: RunnableVersionRow): GraphReads {
  let reads = readers.get(version.id);
  if (!reads) {
    reads = readsOf(version);
    keep(readers, version.id, reads);
  }
  return reads;
}

const BUILT_IN_PREFIX = /^(contact|message|conversation|system|account|secret)\./;

function readsOf(version: RunnableVersionRow): GraphReads {
  const blocks = Object.values(version.graph.nodes);
  const texts = blocks.flatMap((block) => textsIn(block.data));
  const all = texts.join('\n');
  const namesField = texts.some((text) =>
    [...text.matchAll(/\{([^{}]+)\}/g)].some(([, name]) => name !== undefined && !BUILT_IN_PREFIX.test(name)),
  );
  return {
    messages: all.includes('conversation.') || all.includes('message.last_'),
    tags: all.includes('contact.tags'),
    account: all.includes('account.') || Boolean(version.trigger.replies_list_id),
    fields:
      blocks.some((block) => blockType(block.type)?.readsFields) ||
      namesField ||
      Boolean(version.trigger.replies_list_id), // the list's replies may name fields
  };
}

/** Every string inside `value`, depth first. */
function textsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(textsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(textsIn);
  return [];
}

/** The block output `output` leads to, or null where the path ends. */
export function nextOf(block: Block | undefined, output: number): string | null {
  const target = block?.data.next?.[output];
  return typeof target === 'string' ? target : null;
}

/** Keeps `value` under `key`, the oldest entry leaving first once the map holds KEPT. */
function keep<T>(map: Map<string, T>, key: string, value: T): void {
  if (map.size >= KEPT) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}
