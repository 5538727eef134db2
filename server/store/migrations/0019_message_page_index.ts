// A conversation's page of messages by an index that holds both of its equality filters (issue 25, "Quality"): the
// list reads `where account_id = ? and conversation_id = ? order by created_at, id limit n`. With the conversation
// alone in the index, a planner without statistics (PGlite never analyzes; PostgreSQL before autovacuum has)
// estimated the account filter left one row and read the whole conversation to sort it (5,000 rows for a page of
// 20); with both columns it walks the index in the page's order and stops at the page, whatever the statistics.
// Every other read of messages by conversation also filters the account (the unread check has its own index).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One statement at a time: PGlite's extended protocol takes a single statement per query.
  for (const statement of statements) await statement.execute(db);
}

const statements = [
  sql`create index messages_conversation_page on messages (account_id, conversation_id, created_at, id)`,
  sql`drop index messages_conversation`,
];
