// Kysely over embedded PGlite. PGlite has one session, so the driver hands out that session to one user at a
// time (a queue): a transaction's statements never interleave with another request's, and nothing calls the
// shared handle inside a transaction (which would deadlock). The queue serves the API's requests before
// background work (./priority.ts), so a backlog of jobs never starves the API. A request that still holds the
// session at its deadline (awaiting something else inside its transaction) loses it: the transaction is rolled
// back and the session handed on (PGliteLease).
import { performance } from 'node:perf_hooks';
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
import { codeOf } from '../guards.js';
import { DeadlineExceededError, requestContext } from '../request-context.js';
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

/** What a statement needs, learnt once per SQL text: its parameters' types, how each is written, its name. */
interface Statement {
  types: number[];
  serializers: (((value: unknown) => string) | undefined)[];
  /** The name it is prepared under in the session, once it is (see `prepare`). */
  name?: string;
}

/** How long statements may run back to back before the event loop is let turn once. */
const YIELD_EVERY_MS = 50;

/** At most this many statements are known and prepared (Kysely writes one SQL text per query shape). */
const MAX_STATEMENTS = 2000;

/** PostgreSQL's "cached plan must not change result type": a prepared `select *` after its table changed. */
const PLAN_CHANGED = '0A000';

class PGliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly pg: PGlite) {}

  /**
   * One extended-protocol exchange in one call into PGlite. PGlite's own query() makes six calls into the
   * WebAssembly backend (Parse, Describe to learn the parameter types, Bind, Describe, Execute, Sync) and plans
   * the statement every time. Here a statement's parameter types are learnt once per SQL text (describeQuery),
   * and the statement is prepared under a name the first time it runs outside a transaction: later runs send
   * Bind, Describe, Execute and Sync in one call, and PostgreSQL reuses its plan (a page query 930 → 180 µs).
   * Values are written with PGlite's serializers for those types, as query() writes them; results are read by
   * PGlite's parser with this database's parsers; errors are PGlite's DatabaseError, as from query().
   */
  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    await this.yieldNowAndThen();
    const statement = await this.statementOf(compiled.sql);
    const values = compiled.parameters.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = statement.serializers[i];
      return serializer ? serializer(value) : String(value);
    });
    if (statement.name === undefined) await this.prepare(compiled.sql, statement);
    if (statement.name === undefined && this.pg.isInTransaction()) this.unprepared.set(compiled.sql, statement);
    let messages;
    try {
      messages = await this.run(compiled.sql, statement, values);
    } catch (error) {
      if (statement.name === undefined || codeOf(error) !== PLAN_CHANGED) throw error;
      // Its table changed since it was prepared (a migration): run it unprepared from now on.
      delete statement.name;
      messages = await this.run(compiled.sql, statement, values);
    }
    const [result] = parse.parseResults(messages, this.pg.parsers, { rowMode: 'object' });
    const affected = result?.affectedRows;
    return {
      // Kysely's driver contract: the query builder that compiled the statement types its rows R; PGlite's parser
      // gives them untyped, and no check here could know R.
      rows: (result?.rows ?? []) as R[],
      ...(affected !== undefined ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }

  /** When the event loop last turned, as statements saw it; and whether one waits to see the next turn. */
  private lastTurn = performance.now();
  private watching = false;

  /**
   * PGlite answers within microtasks, so a long run of statements (a big transaction, a loop) never lets the event
   * loop turn: no timer, no socket, no signal. When it has not turned for YIELD_EVERY_MS, the next statement
   * waits for one turn, so /healthz, the request deadlines and SIGTERM are served meanwhile.
   */
  private async yieldNowAndThen(): Promise<void> {
    if (!this.watching) {
      // The last watch saw the loop turn, and nothing has run since without a statement: a run starts here.
      this.watching = true;
      this.lastTurn = performance.now();
      setImmediate(() => {
        this.watching = false;
        this.lastTurn = performance.now();
      });
    }
    if (performance.now() - this.lastTurn < YIELD_EVERY_MS) return;
    await new Promise((ok) => setImmediate(ok));
  }

  private async run(sql: string, statement: Statement, values: (string | null)[]) {
    const message = concat([
      ...(statement.name === undefined ? [protocol.serialize.parse({ text: sql, types: statement.types })] : []),
      protocol.serialize.bind({ values, ...(statement.name === undefined ? {} : { statement: statement.name }) }),
      protocol.serialize.describe({ type: 'P' }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    ]);
    return (await this.pg.execProtocol(message, { syncToFs: false })).messages;
  }

  /** Statements first met inside a transaction: prepared once it ends (work runs mostly in transactions). */
  private readonly unprepared = new Map<string, Statement>();

  /** After a transaction: prepares the statements it ran unprepared, so their next runs reuse a plan. */
  async prepareMet(): Promise<void> {
    for (const [sql, statement] of this.unprepared)
      if (statement.name === undefined) await this.prepare(sql, statement);
    this.unprepared.clear();
  }

  /**
   * Prepares the statement under a name, outside transactions only: a transaction may be failed (the Parse would
   * be refused) and the name must not depend on whether it commits. A statement that cannot be prepared runs
   * unprepared, as before.
   */
  private async prepare(sql: string, statement: Statement): Promise<void> {
    if (this.pg.isInTransaction() || this.prepared >= MAX_STATEMENTS) return;
    const name = `ep_${this.prepared + 1}`;
    try {
      await this.pg.execProtocol(
        concat([protocol.serialize.parse({ name, text: sql, types: statement.types }), protocol.serialize.sync()]),
        { syncToFs: false },
      );
    } catch {
      return; // the run itself reports what is wrong with the statement
    }
    this.prepared += 1;
    statement.name = name;
  }

  private prepared = 0;

  private async statementOf(sql: string): Promise<Statement> {
    let known = this.statements.get(sql);
    if (!known) {
      const described = await this.pg.describeQuery(sql);
      known = {
        types: described.queryParams.map((p) => p.dataTypeID),
        // PGlite types a parameter's serializer as always there; an unknown type has none (hence `| undefined` above).
        serializers: described.queryParams.map((p) => p.serializer),
      };
      // Past the bound, new texts are described each time and never prepared: memory stays bounded.
      if (this.statements.size < MAX_STATEMENTS) this.statements.set(sql, known);
    }
    return known;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on PGlite');
  }
}

/**
 * One holder's turn on the session. A request whose deadline passes while it holds the turn, awaiting something
 * else inside its transaction, loses it: the transaction is rolled back and the turn goes to the next holder;
 * whatever the late holder does with its lease afterwards is refused or ignored.
 */
class PGliteLease implements DatabaseConnection {
  /** Taken back (the holder's deadline) or given back (released): the lease is of no use any more. */
  ended = false;

  constructor(private readonly connection: PGliteConnection) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.ended) return Promise.reject(new DeadlineExceededError());
    return this.connection.executeQuery<R>(compiled);
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>();
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
    const lease = new PGliteLease(this.connection);
    // A request's deadline takes the session back if the request still holds it then.
    const context = requestContext.getStore();
    if (context) {
      const takeBack = () => void this.takeBack(lease);
      (context.cancels ??= new Set()).add(takeBack);
      this.takeBacks.set(lease, () => context.cancels?.delete(takeBack));
    }
    return lease;
  }

  private readonly takeBacks = new WeakMap<PGliteLease, () => void>();

  /** Ends the lease of a request past its deadline: rolls back its transaction and hands the session on. */
  private async takeBack(lease: PGliteLease): Promise<void> {
    if (lease.ended) return;
    lease.ended = true;
    try {
      if (this.pg.isInTransaction()) await this.pg.query('rollback');
      await this.connection.prepareMet();
    } finally {
      this.turns.release();
    }
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (leaseOf(connection).ended) throw new DeadlineExceededError();
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await this.pg.query(`begin${level}`);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (leaseOf(connection).ended) throw new DeadlineExceededError();
    await this.pg.query('commit');
    await this.connection.prepareMet();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // A lease taken back was rolled back then; the session may be another holder's now.
    if (leaseOf(connection).ended) return;
    await this.pg.query('rollback');
    await this.connection.prepareMet();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = leaseOf(connection);
    this.takeBacks.get(lease)?.();
    if (lease.ended) return;
    lease.ended = true;
    this.turns.release();
  }

  async destroy(): Promise<void> {}
}

function leaseOf(connection: DatabaseConnection): PGliteLease {
  if (!(connection instanceof PGliteLease)) throw new Error('not a connection of this PGlite driver');
  return connection;
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
