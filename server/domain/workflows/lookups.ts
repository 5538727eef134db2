// AccountLookups (./validation-types.ts) against the database: what validation asks about one account.
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.js';
import {
  repliesListExists,
  selectConnectedInstagram,
  selectConnectionsByIds,
  selectExistingCustomFieldKeys,
  selectExistingTagNameKeys,
  selectExistingUploadIds,
} from '../../store/workflow-lookups.js';
import { selectPublishedWorkflows, selectWorkflowsByIds } from '../../store/workflows.js';
import { tagNameKey } from '../tags/name-key.js';
import type { AccountLookups, OtherWorkflow } from './validation-types.js';
import { isUuid } from '../../ids.js';

/** Only ids shaped like uuids reach a uuid column: anything else exists nowhere (and would be a SQL error). */
const uuids = (ids: readonly string[]) => [...new Set(ids.filter(isUuid))];

export function accountLookups(db: Kysely<DB>, accountId: string): AccountLookups {
  return {
    // Part B: validation accepts another spelling (letter case) of a tag's name; the run then acts on that tag.
    existingTagNames: async (names) => {
      const found = new Set(await selectExistingTagNameKeys(db, accountId, [...new Set(names.map(tagNameKey))]));
      return new Set(names.filter((name) => found.has(tagNameKey(name))));
    },
    existingCustomFieldKeys: async (keys) =>
      new Set(await selectExistingCustomFieldKeys(db, accountId, [...new Set(keys)])),
    existingUploadIds: async (ids) => new Set(await selectExistingUploadIds(db, accountId, uuids(ids))),
    connections: async (ids) =>
      new Map(
        (await selectConnectionsByIds(db, accountId, uuids(ids))).map((c) => [
          c.id,
          { channel: c.channel, connected: c.status === 'connected' },
        ]),
      ),
    connectedInstagram: async () => (await selectConnectedInstagram(db, accountId))?.id ?? null,
    repliesListExists: async (id) => isUuid(id) && repliesListExists(db, accountId, id),
    workflows: async (ids) => {
      const rows = await selectWorkflowsByIds(db, accountId, uuids(ids));
      const live = new Map(
        rows.some((r) => r.status === 'published' && r.deleted_at === null)
          ? (await selectPublishedWorkflows(db, accountId)).map((w) => [w.id, w])
          : [],
      );
      return new Map(
        rows.map((r): [string, OtherWorkflow] => {
          const version = r.deleted_at === null ? live.get(r.id) : undefined;
          return [
            r.id,
            {
              id: r.id,
              title: r.title,
              deleted: r.deleted_at !== null,
              live: version
                ? {
                    channel: { type: version.channel_type, connection_id: version.connection_id },
                    trigger: version.trigger,
                  }
                : null,
            },
          ];
        }),
      );
    },
    publishedWorkflows: async (exceptId) =>
      (await selectPublishedWorkflows(db, accountId))
        .filter((w) => w.id !== exceptId)
        .map((w) => ({
          id: w.id,
          title: w.title,
          deleted: false,
          live: { channel: { type: w.channel_type, connection_id: w.connection_id }, trigger: w.trigger },
        })),
  };
}
