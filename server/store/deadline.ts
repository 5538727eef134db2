// The request deadline at the database: a Kysely driver around the engine's own that refuses, for a request past
// its deadline (../request-context.ts), every new statement, transaction and commit. The transaction then rolls
// back (its rollback is never refused) and the connection goes back: PGlite's single session and a pooled
// PostgreSQL connection, with their row locks, are never kept by a request past its deadline, even one that
// loops on the database. Work outside a request (job workers, migrations) has no deadline.
import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { countRoundTrip } from '../metrics.js';
import { assertBeforeDeadline, requestContext } from '../request-context.js';

/** A statement that only reads: outside a transaction, anything else may have committed a change. */
const READS_ONLY = /^\s*select\b/i;

class DeadlineConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    assertBeforeDeadline();
    if (!this.inTransaction && !READS_ONLY.test(compiled.sql)) markCommitted();
    countRoundTrip();
    return this.inner.executeQuery<R>(compiled);
  }

  streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    assertBeforeDeadline();
    countRoundTrip();
    return this.inner.streamQuery<R>(compiled, chunkSize);
  }
}

function markCommitted(): void {
  const context = requestContext.getStore();
  if (context) context.committed = true;
}

/** The engine's connection inside ours (what the engine's driver was handed out). */
function inner(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof DeadlineConnection ? connection.inner : connection;
}

class DeadlineDriver implements Driver {
  constructor(private readonly driver: Driver) {}

  init(): Promise<void> {
    return this.driver.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new DeadlineConnection(await this.driver.acquireConnection());
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    assertBeforeDeadline();
    countRoundTrip();
    await this.driver.beginTransaction(inner(connection), settings);
    if (connection instanceof DeadlineConnection) connection.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // Past the deadline the commit is refused: Kysely rolls back, and the request's answer (503) stays true.
    assertBeforeDeadline();
    countRoundTrip();
    await this.driver.commitTransaction(inner(connection));
    if (connection instanceof DeadlineConnection) connection.inTransaction = false;
    markCommitted();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof DeadlineConnection) connection.inTransaction = false;
    countRoundTrip();
    await this.driver.rollbackTransaction(inner(connection));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    assertBeforeDeadline();
    if (!this.driver.savepoint) throw new Error('this database driver has no savepoints');
    countRoundTrip();
    await this.driver.savepoint(inner(connection), name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    if (!this.driver.rollbackToSavepoint) throw new Error('this database driver has no savepoints');
    countRoundTrip();
    await this.driver.rollbackToSavepoint(inner(connection), name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    assertBeforeDeadline();
    if (!this.driver.releaseSavepoint) throw new Error('this database driver has no savepoints');
    countRoundTrip();
    await this.driver.releaseSavepoint(inner(connection), name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection(inner(connection));
  }

  destroy(): Promise<void> {
    return this.driver.destroy();
  }
}

/** `dialect` with request deadlines enforced at its driver. */
export class DeadlineDialect implements Dialect {
  constructor(private readonly dialect: Dialect) {}

  createAdapter(): DialectAdapter {
    return this.dialect.createAdapter();
  }

  createDriver(): Driver {
    return new DeadlineDriver(this.dialect.createDriver());
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return this.dialect.createIntrospector(db);
  }

  createQueryCompiler(): QueryCompiler {
    return this.dialect.createQueryCompiler();
  }
}
