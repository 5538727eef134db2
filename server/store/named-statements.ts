// PostgreSQL: every statement the app runs again is a named (prepared) statement on its connection, so the
// server parses and plans it once per connection and then runs it from its cached plan. The app's statements
// are long CTEs (a send, an event's fan-out, a run's save) whose planning cost more than their execution:
// bench:engine's PostgreSQL backends used about 40% less CPU with names (docs/decisions.md, issue 37).
//
// Bounds: a connection names at most NAMES_PER_CONNECTION distinct texts (statements whose text varies with
// their input, such as a multi-row insert of N rows, are distinct texts); past that it runs them unnamed, and it
// is closed when given back, so the pool opens a fresh one with no statements held. A table whose columns
// changed under a running process (a migration by another process) makes a `select *` plan fail with 0A000
// ("cached plan must not change result type"): that statement fails once, and the connection is closed when
// given back, with every plan it held.
import type { PostgresCursor, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

export const NAMES_PER_CONNECTION = 256;

/** Only the app's reads and writes with parameters are named: not begin/commit, set, listen, analyze or DDL. */
const NAMEABLE = /^\s*(with|select|insert|update|delete)\b/i;
/** PostgreSQL's feature_not_supported, which a cached plan whose result type changed raises. */
const PLAN_INVALIDATED = '0A000';

/** The names each connection gave, by statement text (kept with the connection across checkouts). */
const namesOf = new WeakMap<pg.PoolClient, Map<string, string>>();
/** Connections to close rather than reuse when given back. */
const retiring = new WeakSet<pg.PoolClient>();

/** A checked-out connection that runs the app's statements under names. */
export class NamingClient implements PostgresPoolClient {
  constructor(private readonly client: pg.PoolClient) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    statement: string | PostgresCursor<R>,
    parameters: ReadonlyArray<unknown> = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof statement !== 'string') throw new Error('streaming queries are not used on this pool');
    return this.run<R>(statement, [...parameters]);
  }

  release(): void {
    this.client.release(retiring.has(this.client) ? new Error('connection retired: its named statements') : undefined);
  }

  private async run<R>(text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    // A statement with parameters goes through the extended protocol anyway (one command, parsed then bound):
    // naming it changes nothing else. One without runs as it always did (it may hold several commands).
    const name = values.length > 0 ? this.nameOf(text) : undefined;
    try {
      const result = await this.client.query<R & pg.QueryResultRow>(name ? { name, text, values } : { text, values });
      return { command: commandOf(result.command), rowCount: result.rowCount ?? 0, rows: result.rows };
    } catch (error) {
      if (name && codeOf(error) === PLAN_INVALIDATED) retiring.add(this.client);
      throw error;
    }
  }

  private nameOf(text: string): string | undefined {
    if (!NAMEABLE.test(text)) return undefined;
    let names = namesOf.get(this.client);
    if (!names) namesOf.set(this.client, (names = new Map()));
    const known = names.get(text);
    if (known || retiring.has(this.client)) return known;
    if (names.size >= NAMES_PER_CONNECTION) {
      retiring.add(this.client);
      return undefined;
    }
    const name = `s${names.size}`;
    names.set(text, name);
    return name;
  }
}

type Command = PostgresQueryResult<unknown>['command'];
const COMMANDS: readonly string[] = ['UPDATE', 'DELETE', 'INSERT', 'SELECT', 'MERGE'] satisfies Command[];
const isCommand = (command: string): command is Command => COMMANDS.includes(command);
/** Kysely reads `command` only to tell an update or insert's affected rows; others read as SELECT. */
const commandOf = (command: string): Command => (isCommand(command) ? command : 'SELECT');

const codeOf = (error: unknown): unknown =>
  typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
