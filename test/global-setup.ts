// Once per run, before any test file: the migrated databases every test database starts from. Migrating is the
// dear part of a test database (PGlite: initdb and the migrations, ~2 s; PostgreSQL: the migrations, ~1-3 s), and
// it was paid by every test file (and on PostgreSQL by every database a file opens). Here it is paid once:
// - PGlite: a migrated in-memory database dumped to a file; each test file loads it (`loadDataDir`). The same
//   database also as a data directory on disk, for the tests that start the server as a process on a copy of it
//   (test/server/npm-start.ts: `migratedDataDir`): a start without PGlite's initdb and the migrations.
// - PostgreSQL (DATABASE_URL set): a migrated database used as a template; each test database is
//   `create database … template …`, a file copy. Its migrations still run at open: they find nothing to do.
// The harness (test/server/harness.ts) reads both through `inject`, and falls back to migrating itself without.
// Vitest calls this once per project (shared and isolated, vitest.config.ts): one set is made (`shared`).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migratedPGliteTemplate, openDatabase } from '../server/store/database.js';
import { noSessionsLeft } from './pg-sessions.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A file holding a migrated PGlite's `dumpDataDir()`. */
    pgliteTemplate: string;
    /** A migrated PGlite data directory (a server's `DATA_DIR/pglite`), closed: to copy, never to open. */
    pgliteDataDir: string;
    /** The name of a migrated PostgreSQL database to create test databases from (DATABASE_URL set). */
    postgresTemplate: string | undefined;
  }
}

interface Templates {
  /** The PGlite dump's file. */
  file: string;
  /** The same database as a data directory. */
  dataDir: string;
  postgresTemplate: string | undefined;
  drop: () => Promise<void>;
}

/**
 * Made once per run: vitest calls the set-up once per project, in one process but each time on a new instance of
 * this module (module-level state was not shared: the templates were made twice, one after the other, 6.5 s of
 * every run's start). So the run's one set lives on `globalThis`.
 */
interface Shared {
  templates?: Promise<Templates>;
  users: number;
}
const SHARED = Symbol.for('engagement-platform.test-templates');
const holder = globalThis as typeof globalThis & { [SHARED]?: Shared };
const shared: Shared = (holder[SHARED] ??= { users: 0 });

async function makeTemplates(): Promise<Templates> {
  const dir = mkdtempSync(join(tmpdir(), 'ep-test-templates-'));
  const [dump, postgresTemplate] = await Promise.all([migratedPGliteTemplate(), postgresTemplateDatabase()]);
  const file = join(dir, 'pglite.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  // Loaded from the dump into a directory (no initdb): the server opens it as it opens its own.
  const dataDir = join(dir, 'pglite');
  await (await openDatabase({ engine: 'pglite', dataDir, template: dump })).close();
  const drop = async () => {
    rmSync(dir, { recursive: true, force: true });
    if (postgresTemplate) await withAdmin((admin) => admin.query(`drop database if exists ${postgresTemplate}`));
  };
  return { file, dataDir, postgresTemplate, drop };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.users += 1;
  shared.templates ??= makeTemplates();
  const made = await shared.templates;
  project.provide('pgliteTemplate', made.file);
  project.provide('pgliteDataDir', made.dataDir);
  project.provide('postgresTemplate', made.postgresTemplate);
  return async () => {
    shared.users -= 1;
    if (shared.users === 0) await made.drop();
  };
}

/** A migrated PostgreSQL database nobody is connected to (a template must have no session), or none. */
async function postgresTemplateDatabase(): Promise<string | undefined> {
  const base = process.env.DATABASE_URL;
  if (!base) return undefined;
  const name = `ep_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin((admin) => admin.query(`create database ${name}`));
  const url = new URL(base);
  url.pathname = `/${name}`;
  const database = await openDatabase({ engine: 'postgres', url: url.toString(), poolSize: 1 });
  await database.close();
  await withAdmin(async (admin) => {
    if (!(await noSessionsLeft(admin, name, 250))) throw new Error(`the template database ${name} still has sessions`);
  });
  return name;
}

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}
