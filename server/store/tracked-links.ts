// SQL of the tracked links (issue 22): the rows the buttons and cards blocks write when they send a link button,
// and the one read an open makes.
import type { Kysely, Selectable } from 'kysely';
import type { DB, TrackedLinksTable } from './schema.js';

export type TrackedLinkRow = Selectable<TrackedLinksTable>;

export type NewTrackedLink = Omit<TrackedLinkRow, 'message_id'>;

/**
 * Inserts the link, or (the same contact, automation, block, button and address sent again) moves the existing
 * row's run, output and last send: the token stays. Answers the row's token.
 */
export async function upsertTrackedLink(db: Kysely<DB>, link: NewTrackedLink): Promise<string> {
  const row = await db
    .insertInto('tracked_links')
    .values({ ...link, message_id: null })
    .onConflict((oc) =>
      oc.columns(['account_id', 'contact_id', 'workflow_id', 'node_id', 'button_key', 'url']).doUpdateSet({
        run_id: link.run_id,
        button_id: link.button_id,
        output: link.output,
        channel: link.channel,
        message_id: null,
        last_sent_at: link.last_sent_at,
      }),
    )
    .returning('token')
    .executeTakeFirstOrThrow();
  return row.token;
}

/** The message that carried the links `tokens` (known once the send is done). */
export async function updateTrackedLinksMessage(db: Kysely<DB>, tokens: readonly string[], messageId: string) {
  if (tokens.length === 0) return;
  await db.updateTable('tracked_links').set({ message_id: messageId }).where('token', 'in', tokens).execute();
}

export async function selectTrackedLink(db: Kysely<DB>, token: string): Promise<TrackedLinkRow | undefined> {
  return db.selectFrom('tracked_links').selectAll().where('token', '=', token).executeTakeFirst();
}
