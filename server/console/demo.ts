// The demo account outside production: created on the first start against a database, with a key holding
// every scope. Its key is kept in a file of DATA_DIR (one per database) so each start can print it again.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { faker } from '@faker-js/faker';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { isRecord } from '../guards.js';
import { createAccount } from '../domain/accounts/accounts.js';
import { createApiKey, SCOPES } from '../domain/accounts/keys.js';
import { createConnection } from '../domain/console/connections.js';
import { createCustomField } from '../domain/console/custom-fields.js';
import { createTemplate } from '../domain/console/templates.js';
import { accountHasTemplates, firstConnectedConnection } from '../store/console.js';
import type { DB } from '../store/schema.js';

export interface Demo {
  accountId: string;
  apiKey: string;
  created: boolean;
}

/** The demo account and key a previous start saved (as written below), or undefined when the file holds neither. */
function savedDemo(text: string): { account_id: string; api_key: string } | undefined {
  const saved: unknown = JSON.parse(text);
  if (!isRecord(saved) || typeof saved.account_id !== 'string' || typeof saved.api_key !== 'string') return undefined;
  return { account_id: saved.account_id, api_key: saved.api_key };
}

export async function ensureDemoAccount(
  db: Kysely<DB>,
  clock: Clock,
  dataDir: string,
  file = join(dataDir, 'demo-api-key'),
): Promise<Demo> {
  mkdirSync(dataDir, { recursive: true });
  const saved = existsSync(file) ? savedDemo(readFileSync(file, 'utf8')) : undefined;
  if (saved) {
    // The saved key is only good if its account is still in this database (it may have been reset).
    const known = await db.selectFrom('accounts').select('id').where('id', '=', saved.account_id).executeTakeFirst();
    if (known) {
      await ensureDemoConsole(db, clock, saved.account_id);
      return { accountId: saved.account_id, apiKey: saved.api_key, created: false };
    }
  }
  const name = faker.company.name();
  const alias = `${faker.helpers
    .slugify(name)
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '')
    .slice(0, 40)}-demo`;
  const account = await createAccount(db, clock, { name, alias, timeZone: 'America/Sao_Paulo' });
  const { secret } = await createApiKey(db, clock, {
    accountId: account.id,
    name: 'Demo key (every scope)',
    scopes: SCOPES,
    validityDays: 365,
  });
  await ensureDemoConsole(db, clock, account.id);
  writeFileSync(file, JSON.stringify({ account_id: account.id, api_key: secret }) + '\n', { mode: 0o600 });
  return { accountId: account.id, apiKey: secret, created: true };
}

/**
 * What the console would have set up on the demo account, so every contact route works at once: a connected
 * whatsapp number (for `POST /v1/contacts`), an instagram account, three custom fields of each type, and an
 * approved whatsapp template (the only message that reaches a contact outside the 24-hour window). Added to
 * a demo account made before they existed.
 */
async function ensureDemoConsole(db: Kysely<DB>, clock: Clock, accountId: string): Promise<void> {
  const has = await db.selectFrom('connections').select('id').where('account_id', '=', accountId).executeTakeFirst();
  if (has) return ensureDemoTemplate(db, clock, accountId);
  await createConnection(db, clock, accountId, {
    channel: 'whatsapp',
    name: 'Loja (whatsapp)',
    phone: '+5511930001234',
  });
  await createConnection(db, clock, accountId, {
    channel: 'instagram',
    name: 'Loja (instagram)',
    username: 'loja.demo',
  });
  await createCustomField(db, clock, accountId, {
    label: 'Plano',
    type: 'dropdown',
    options: [
      { value: 'basic', label: 'Básico' },
      { value: 'pro', label: 'Pro' },
    ],
  });
  await createCustomField(db, clock, accountId, { label: 'Cidade', type: 'text' });
  await createCustomField(db, clock, accountId, { label: 'Pedidos', type: 'number' });
  await ensureDemoTemplate(db, clock, accountId);
}

/** The template `DEMO_TEMPLATE` on the demo whatsapp number, unless the account has a template already. */
async function ensureDemoTemplate(db: Kysely<DB>, clock: Clock, accountId: string): Promise<void> {
  const has = await accountHasTemplates(db, accountId);
  const whatsapp = await firstConnectedConnection(db, accountId, 'whatsapp');
  if (has || !whatsapp) return;
  await createTemplate(db, clock, accountId, { connection_id: whatsapp.id, ...DEMO_TEMPLATE });
}

/** The demo account's approved whatsapp template: two body variables (the name and the order number). */
export const DEMO_TEMPLATE = {
  name: 'order_update',
  language: 'pt_BR',
  body: 'Olá {{1}}, seu pedido {{2}} saiu para entrega.',
} as const;
