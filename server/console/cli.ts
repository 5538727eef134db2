// `npm run console -- <resource> <action> [--option value…]`: what the vendor's console does, from the command
// line. It calls the same services as the admin API (not over HTTP) on the configured database (DATABASE_URL,
// else the embedded one in DATA_DIR) and prints the same JSON as the admin API. A refusal prints the error
// envelope on stderr and exits 1; a usage or configuration fault exits 2.
//
// The embedded database can be opened by one process at a time: while a server runs on DATA_DIR, use the
// admin API instead (or stop the server).
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { systemClock } from '../clock.js';
import { ConfigError, loadConfig } from '../config.js';
import { isOneOf, messageOf } from '../guards.js';
import { accountView, changeAccount, createAccount, getAccount } from '../domain/accounts/accounts.js';
import { CONSOLE_CLI } from '../domain/accounts/actor.js';
import {
  createApiKey,
  keyView,
  listApiKeys,
  revokeApiKey,
  SCOPES,
  VALIDITY_DAYS,
  type Scope,
} from '../domain/accounts/keys.js';
import {
  createAccountSecret,
  listAccountSecrets,
  listAccountVariables,
  removeAccountSecret,
  removeAccountVariable,
  secretView,
  setAccountVariable,
  variableView,
} from '../domain/console/account-variables.js';
import {
  changeConnection,
  CHANNELS,
  CONNECTION_STATUSES,
  connectionView,
  createConnection,
  DISCONNECT_REASONS,
  type Channel,
  type ConnectionStatus,
  type DisconnectReason,
} from '../domain/console/connections.js';
import {
  createCustomField,
  customFieldView,
  FIELD_TYPES,
  removeCustomField,
  type FieldType,
} from '../domain/console/custom-fields.js';
import {
  changeTemplateStatus,
  createTemplate,
  TEMPLATE_FEATURES,
  TEMPLATE_STATUSES,
  templateView,
  type TemplateFeature,
  type TemplateStatus,
} from '../domain/console/templates.js';
import {
  changeSpreadsheetAccountStatus,
  createSpreadsheetAccount,
  SPREADSHEET_ACCOUNT_STATUSES,
  spreadsheetAccountView,
  type SpreadsheetAccountStatus,
} from '../domain/console/spreadsheet-accounts.js';
import { createUpload, uploadView } from '../domain/console/uploads.js';
import { ApiError } from '../errors.js';
import { DataDirLockedError, openDatabase, type Database } from '../store/database.js';

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

interface Command {
  usage: string;
  options: Options;
  run(database: Database, v: Values): Promise<unknown>;
}

const str = { type: 'string' } as const;

function required(v: Values, name: string): string {
  const value = v[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optional(v: Values, name: string): string | undefined {
  const value = v[name];
  return typeof value === 'string' ? value : undefined;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!isOneOf(allowed, value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got ${value})`);
  return value;
}

function list<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T[] {
  if (value === undefined || value === '') return [];
  if (value === 'all') return [...allowed];
  return value.split(',').map((item) => oneOf(name, item.trim(), allowed));
}

function bool(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new UsageError(`--${name} is true or false (got ${value})`);
}

function integer(name: string, value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`--${name} must be a whole number (got ${value})`);
  return Number(value);
}

const clock = systemClock;

export const commands: Record<string, Command> = {
  'account create': {
    usage: '--name <name> --alias <alias> [--time-zone <IANA zone>]',
    options: { name: str, alias: str, 'time-zone': str },
    run: async ({ db }, v) => {
      const timeZone = optional(v, 'time-zone');
      const input = { name: required(v, 'name'), alias: required(v, 'alias'), ...(timeZone ? { timeZone } : {}) };
      return accountView(await createAccount(db, clock, input, CONSOLE_CLI));
    },
  },
  'account get': {
    usage: '--account <id>',
    options: { account: str },
    run: async ({ db }, v) => accountView(await getAccount(db, required(v, 'account'))),
  },
  'account update': {
    usage: '--account <id> [--name <name>] [--suspended true|false] [--api-enabled true|false] [--time-zone <zone>]',
    options: { account: str, name: str, suspended: str, 'api-enabled': str, 'time-zone': str },
    run: async ({ db }, v) => {
      const changes = {
        name: optional(v, 'name'),
        suspended: bool('suspended', optional(v, 'suspended')),
        api_enabled: bool('api-enabled', optional(v, 'api-enabled')),
        time_zone: optional(v, 'time-zone'),
      };
      const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      if (Object.keys(given).length === 0) throw new UsageError('give at least one change');
      return accountView(await changeAccount(db, clock, required(v, 'account'), given, CONSOLE_CLI));
    },
  },
  'key create': {
    usage: `--account <id> --scopes <scope,scope…|all> --validity-days <${VALIDITY_DAYS.join('|')}> [--name <name>]`,
    options: { account: str, name: str, scopes: str, 'validity-days': str },
    run: async ({ db }, v) => {
      const days = integer('validity-days', required(v, 'validity-days'));
      if (!isOneOf(VALIDITY_DAYS, days))
        throw new UsageError(`--validity-days must be one of ${VALIDITY_DAYS.join(', ')}`);
      const scopes = list<Scope>('scopes', required(v, 'scopes'), SCOPES);
      const { key, secret } = await createApiKey(
        db,
        clock,
        {
          accountId: required(v, 'account'),
          name: optional(v, 'name') ?? 'Console key',
          scopes,
          validityDays: days,
        },
        CONSOLE_CLI,
      );
      return { secret, api_key: keyView(key, clock.now()) };
    },
  },
  'key list': {
    usage: '--account <id>',
    options: { account: str },
    run: async ({ db }, v) => ({
      data: (await listApiKeys(db, required(v, 'account'))).map((k) => keyView(k, clock.now())),
      next_cursor: null,
    }),
  },
  'key revoke': {
    usage: '--key <id>',
    options: { key: str },
    run: async ({ db }, v) => keyView(await revokeApiKey(db, clock, required(v, 'key'), CONSOLE_CLI), clock.now()),
  },
  'connection create': {
    usage:
      '--account <id> --channel instagram|whatsapp --name <name> (--phone <E.164> | --username <name>) ' +
      '[--status connected|disconnected] [--reason <disconnect reason>]',
    options: { account: str, channel: str, name: str, phone: str, username: str, status: str, reason: str },
    run: async ({ db }, v) => {
      const status = optional(v, 'status');
      const reason = optional(v, 'reason');
      const phone = optional(v, 'phone');
      const username = optional(v, 'username');
      const input = {
        channel: oneOf<Channel>('channel', required(v, 'channel'), CHANNELS),
        name: required(v, 'name'),
        ...(phone !== undefined ? { phone } : {}),
        ...(username !== undefined ? { username } : {}),
        ...(status !== undefined ? { status: oneOf<ConnectionStatus>('status', status, CONNECTION_STATUSES) } : {}),
        ...(reason !== undefined
          ? { disconnect_reason: oneOf<DisconnectReason>('reason', reason, DISCONNECT_REASONS) }
          : {}),
      };
      return connectionView(await createConnection(db, clock, required(v, 'account'), input, CONSOLE_CLI));
    },
  },
  'connection update': {
    usage: '--connection <id> [--name <name>] [--status connected|disconnected] [--reason <disconnect reason>]',
    options: { connection: str, name: str, status: str, reason: str },
    run: async ({ db }, v) => {
      const name = optional(v, 'name');
      const status = optional(v, 'status');
      const reason = optional(v, 'reason');
      const change = {
        ...(name !== undefined ? { name } : {}),
        ...(status !== undefined ? { status: oneOf<ConnectionStatus>('status', status, CONNECTION_STATUSES) } : {}),
        ...(reason !== undefined
          ? { disconnect_reason: oneOf<DisconnectReason>('reason', reason, DISCONNECT_REASONS) }
          : {}),
      };
      if (Object.keys(change).length === 0) throw new UsageError('give at least one change');
      return connectionView(await changeConnection(db, clock, required(v, 'connection'), change, CONSOLE_CLI));
    },
  },
  'custom-field create': {
    usage: '--account <id> --label <label> --type number|text|dropdown [--option <value>=<label> …]',
    options: { account: str, label: str, type: str, option: { type: 'string', multiple: true } },
    run: async ({ db }, v) => {
      const raw = Array.isArray(v.option) ? v.option.map(String) : [];
      const options = raw.map((item) => {
        const at = item.indexOf('=');
        if (at <= 0) throw new UsageError(`--option is <value>=<label> (got ${item})`);
        return { value: item.slice(0, at), label: item.slice(at + 1) };
      });
      const input = {
        label: required(v, 'label'),
        type: oneOf<FieldType>('type', required(v, 'type'), FIELD_TYPES),
        ...(options.length ? { options } : {}),
      };
      return customFieldView(await createCustomField(db, clock, required(v, 'account'), input, CONSOLE_CLI));
    },
  },
  'custom-field delete': {
    usage: '--field <id>',
    options: { field: str },
    run: async ({ db }, v) => {
      const field = await removeCustomField(db, clock, required(v, 'field'), CONSOLE_CLI);
      return { id: field.id, deleted: true };
    },
  },
  'template create': {
    usage:
      '--account <id> --connection <whatsapp connection id> --name <name> --language <code> --body <text> ' +
      `[--status ${TEMPLATE_STATUSES.join('|')}] [--unsupported <feature,feature…>]`,
    options: { account: str, connection: str, name: str, language: str, body: str, status: str, unsupported: str },
    run: async ({ db }, v) => {
      const status = optional(v, 'status');
      const input = {
        connection_id: required(v, 'connection'),
        name: required(v, 'name'),
        language: required(v, 'language'),
        body: required(v, 'body'),
        ...(status !== undefined ? { status: oneOf<TemplateStatus>('status', status, TEMPLATE_STATUSES) } : {}),
        unsupported_features: list<TemplateFeature>('unsupported', optional(v, 'unsupported'), TEMPLATE_FEATURES),
      };
      return templateView(await createTemplate(db, clock, required(v, 'account'), input, CONSOLE_CLI));
    },
  },
  'template update': {
    usage: `--template <id> --status ${TEMPLATE_STATUSES.join('|')}`,
    options: { template: str, status: str },
    run: async ({ db }, v) => {
      const status = oneOf<TemplateStatus>('status', required(v, 'status'), TEMPLATE_STATUSES);
      return templateView(await changeTemplateStatus(db, clock, required(v, 'template'), status, CONSOLE_CLI));
    },
  },
  'upload create': {
    usage: '--account <id> --name <file name> --content-type <MIME type> --size <bytes>',
    options: { account: str, name: str, 'content-type': str, size: str },
    run: async ({ db }, v) => {
      const input = {
        name: required(v, 'name'),
        content_type: required(v, 'content-type'),
        size: integer('size', required(v, 'size')),
      };
      return uploadView(await createUpload(db, clock, required(v, 'account'), input, CONSOLE_CLI));
    },
  },
  ...automationCommands(),
};

/** Account variables, secrets and spreadsheet accounts (what automations read and name). */
function automationCommands(): Record<string, Command> {
  return {
    'variable set': {
      usage: '--account <id> --name <name> (--value <text> | --null)',
      options: { account: str, name: str, value: str, null: { type: 'boolean' } },
      run: async ({ db }, v) => {
        const value = v.null === true ? null : optional(v, 'value');
        if (value === undefined) throw new UsageError('give --value <text> or --null');
        const row = await setAccountVariable(
          db,
          clock,
          required(v, 'account'),
          required(v, 'name'),
          value,
          CONSOLE_CLI,
        );
        return variableView(row);
      },
    },
    'variable list': {
      usage: '--account <id>',
      options: { account: str },
      run: async ({ db }, v) => ({
        data: (await listAccountVariables(db, required(v, 'account'))).map(variableView),
        next_cursor: null,
      }),
    },
    'variable delete': {
      usage: '--account <id> --name <name>',
      options: { account: str, name: str },
      run: async ({ db }, v) => {
        await removeAccountVariable(db, clock, required(v, 'account'), required(v, 'name'), CONSOLE_CLI);
        return { name: required(v, 'name'), deleted: true };
      },
    },
    'secret create': {
      usage: '--account <id> --name <name> --value <secret> --domain <host name>',
      options: { account: str, name: str, value: str, domain: str },
      run: async ({ db }, v) => {
        const input = { name: required(v, 'name'), value: required(v, 'value'), domain: required(v, 'domain') };
        return secretView(await createAccountSecret(db, clock, required(v, 'account'), input, CONSOLE_CLI));
      },
    },
    'secret list': {
      usage: '--account <id>',
      options: { account: str },
      run: async ({ db }, v) => ({
        data: (await listAccountSecrets(db, required(v, 'account'))).map(secretView),
        next_cursor: null,
      }),
    },
    'secret delete': {
      usage: '--secret <id>',
      options: { secret: str },
      run: async ({ db }, v) => {
        await removeAccountSecret(db, clock, required(v, 'secret'), CONSOLE_CLI);
        return { id: required(v, 'secret'), deleted: true };
      },
    },
    'spreadsheet-account create': {
      usage: '--account <id> --name <name>',
      options: { account: str, name: str },
      run: async ({ db }, v) => {
        const input = { name: required(v, 'name') };
        return spreadsheetAccountView(
          await createSpreadsheetAccount(db, clock, required(v, 'account'), input, CONSOLE_CLI),
        );
      },
    },
    'spreadsheet-account update': {
      usage: `--spreadsheet-account <id> --status ${SPREADSHEET_ACCOUNT_STATUSES.join('|')}`,
      options: { 'spreadsheet-account': str, status: str },
      run: async ({ db }, v) => {
        const status = oneOf<SpreadsheetAccountStatus>('status', required(v, 'status'), SPREADSHEET_ACCOUNT_STATUSES);
        const id = required(v, 'spreadsheet-account');
        return spreadsheetAccountView(await changeSpreadsheetAccountStatus(db, clock, id, status, CONSOLE_CLI));
      },
    },
  };
}

export function usage(): string {
  return [
    'usage: npm run console -- <resource> <action> [options]',
    '',
    ...Object.entries(commands).map(([name, c]) => `  ${name} ${c.usage}`),
    '',
    'Opens DATABASE_URL, else the embedded database in DATA_DIR (stop a server running on it first, or use the',
    'admin API). Prints JSON; a refusal prints the error on stderr and exits 1.',
  ].join('\n');
}

/** Runs one command; returns the exit code. `out` and `err` receive whole lines. */
export async function main(
  argv: string[],
  out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  err: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [resource, action, ...rest] = argv;
  if (!resource || resource === 'help' || resource === '--help' || resource === '-h') {
    out(usage());
    return resource ? 0 : 2;
  }
  const command = commands[`${resource} ${action ?? ''}`];
  if (!command) {
    err(`unknown command: ${[resource, action].filter(Boolean).join(' ')}\n\n${usage()}`);
    return 2;
  }
  let values: Values;
  try {
    values = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    err(`${messageOf(error)}\nusage: npm run console -- ${resource} ${action} ${command.usage}`);
    return 2;
  }

  let database: Database | undefined;
  try {
    const config = loadConfig(env);
    database = config.databaseUrl
      ? await openDatabase({ engine: 'postgres', url: config.databaseUrl, poolSize: 2 })
      : await openDatabase({ engine: 'pglite', dataDir: resolve(config.dataDir, 'pglite') });
    out(JSON.stringify(await command.run(database, values), null, 2));
    return 0;
  } catch (error) {
    if (error instanceof ApiError) {
      err(JSON.stringify({ status: error.status, ...error.body() }, null, 2));
      return 1;
    }
    if (error instanceof UsageError) {
      err(`${error.message}\nusage: npm run console -- ${resource} ${action} ${command.usage}`);
      return 2;
    }
    if (error instanceof DataDirLockedError) {
      err(
        `${error.message}\n` +
          'The embedded database is locked by a running server (or another console command): stop it first, or ' +
          'make this change through the admin API (Authorization: Bearer <contents of DATA_DIR/admin-token>).',
      );
      return 2;
    }
    if (error instanceof ConfigError) {
      err(error.message);
      return 2;
    }
    throw error;
  } finally {
    await database?.close();
  }
}

// Run when started as a script (`tsx server/console/cli.ts …`), not when imported by a test.
if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
