// What an automation names that other resources must not lose under it: the tag names of its blocks (tags
// blocks and tag conditions; names compared exactly) and its reply list. Kept in `workflow_references` for
// the draft and the live version, so tag rename/delete (tag_in_use) and reply-list delete
// (replies_list_in_use) are one indexed lookup.
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.js';
import { tagNameKey } from '../tags/name-key.js';
import {
  replaceWorkflowReferences,
  selectWorkflowsReferencing,
  type WorkflowReference,
} from '../../store/workflows.js';

/** At most this many ids are listed in tag_in_use and replies_list_in_use (Part B); the count is exact. */
export const MAX_LISTED_WORKFLOWS = 50;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tag names blocks of `nodes` name: `tags` blocks' `tags`, and tag conditions (list and old one-condition form). */
export function tagNamesOf(nodes: Record<string, unknown>): string[] {
  const names: string[] = [];
  const condition = (c: unknown) => {
    if (isRecord(c) && c.field_type === 'tag' && typeof c.field_name === 'string') names.push(c.field_name);
  };
  for (const node of Object.values(nodes)) {
    if (!isRecord(node) || !isRecord(node.data)) continue;
    const { data } = node;
    if (node.type === 'tags' && Array.isArray(data.tags))
      for (const tag of data.tags) if (typeof tag === 'string') names.push(tag);
    if (node.type === 'conditional') {
      if (Array.isArray(data.conditions)) data.conditions.forEach(condition);
      else condition(data);
    }
  }
  return names;
}

export function referencesOf(definition: {
  graph: { nodes: Record<string, unknown> };
  trigger: { replies_list_id?: string | null | undefined };
}): WorkflowReference[] {
  // A block naming a tag in another letter case acts on it too (a tags block renames it): kept by folded name.
  const references: WorkflowReference[] = tagNamesOf(definition.graph.nodes).map((name) => ({
    kind: 'tag',
    name: tagNameKey(name),
  }));
  if (definition.trigger.replies_list_id)
    references.push({ kind: 'replies_list', name: definition.trigger.replies_list_id });
  return references;
}

export async function recordReferences(
  db: Kysely<DB>,
  accountId: string,
  workflowId: string,
  holder: 'draft' | 'live',
  definition: Parameters<typeof referencesOf>[0] | null,
): Promise<void> {
  await replaceWorkflowReferences(db, accountId, workflowId, holder, definition ? referencesOf(definition) : []);
}

/** The automations (draft or live, outside the trash) that name the tag `name` exactly. */
export async function workflowsReferencing(
  db: Kysely<DB>,
  accountId: string,
  kind: WorkflowReference['kind'],
  name: string,
): Promise<{ workflowIds: string[]; workflowCount: number }> {
  const { ids, count } = await selectWorkflowsReferencing(db, accountId, kind, name, MAX_LISTED_WORKFLOWS);
  return { workflowIds: ids, workflowCount: count };
}
