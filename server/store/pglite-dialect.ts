// Kysely over embedded PGlite. PGlite has one session, so the driver hands out that session to one user at a
// time (a queue): a transaction's statements never interleave with another request's, and nothing calls the
// shared handle inside a transaction (which would deadlock). The queue serves the API's requests before
// background work (./priority.ts), so a backlog of jobs never starves the API.
import { parse, protocol, type PGlite } from '@electric-sql/pglite';
import {
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { PriorityTurns } from './priority.js';

const concat = (parts: Uint8Array[]): Uint8Array => {
  const whole = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
};

/** What a statement's parameters need, learnt once per SQL text: their types, and how each is written. */
interface StatementParameters {
  types: number[];
  serializers: (((value: unknown) => string) | undefined)[];
}

/** At most this many statements' parameter types are kept (Kysely writes one SQL text per query shape). */
const MAX_STATEMENTS = 2000;

class PGliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, StatementParameters>();

  constructor(private readonly pg: PGlite) {}

  /**
   * One extended-protocol exchange in one call into PGlite: Parse, Bind, Describe, Execute and Sync go together.
   * PGlite's own query() sends them one call each, with a Describe in between to learn the parameter types:
   * about half of a small query's CPU time (npm run bench:profile). The types are learnt once per SQL text
   * (describeQuery) and the values written with PGlite's serializers, as query() would; results go through
   * PGlite's parser, with this database's parsers, and errors are PGlite's DatabaseError, as from query().
   */
  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const parameters = await this.parametersOf(compiled.sql);
    const values = (compiled.parameters as unknown[]).map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = parameters.serializers[i];
      return serializer ? serializer(value) : String(value as string | number | boolean);
    });
    const message = concat([
      protocol.serialize.parse({ text: compiled.sql, types: parameters.types }),
      protocol.serialize.bind({ values }),
      protocol.serialize.describe({ type: 'P' }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    ]);
    const { messages } = await this.pg.execProtocol(message, { syncToFs: false });
    const [result] = parse.parseResults(messages, this.pg.parsers, { rowMode: 'object' });
    const affected = result?.affectedRows;
    return {
      rows: (result?.rows ?? []) as R[],
      ...(affected !== undefined ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }

  private async parametersOf(sql: string): Promise<StatementParameters> {
    let known = this.statements.get(sql);
    if (!known) {
      const described = await this.pg.describeQuery(sql);
      known = {
        types: described.queryParams.map((p) => p.dataTypeID),
        serializers: described.queryParams.map((p) => p.serializer as ((value: unknown) => string) | undefined),
      };
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      this.statements.set(sql, known);
    }
    return known;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on PGlite');
  }
}

class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private readonly turns = new PriorityTurns();

  constructor(private readonly pg: PGlite) {
    this.connection = new PGliteConnection(pg);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.turns.acquire();
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await this.pg.query(`begin${level}`);
    void connection;
  }

  async commitTransaction(): Promise<void> {
    await this.pg.query('commit');
  }

  async rollbackTransaction(): Promise<void> {
    await this.pg.query('rollback');
  }

  async releaseConnection(): Promise<void> {
    this.turns.release();
  }

  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  constructor(private readonly pg: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pg);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}
