// Whatsapp message templates of a connected number, as the console records the channel's review. The body's
// numbered placeholders ({{1}}, {{2}}…) are what a send fills with `body_variables`; the parts the API cannot
// fill are listed in `unsupported_features` (a send of such a template answers template_not_supported).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { findAccount } from '../../store/accounts.js';
import {
  findConnection,
  findTemplate,
  findTemplateById,
  insertTemplate,
  isUniqueViolation,
  updateTemplateStatus,
  type TemplateRow,
} from '../../store/console.js';
import type { DB } from '../../store/schema.js';
import { audit, type Actor } from '../accounts/actor.js';

export const TEMPLATE_STATUSES = ['approved', 'pending', 'rejected', 'paused', 'disabled'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];
/** In this order: a send reports the first one as the `reason` of template_not_supported. */
export const TEMPLATE_FEATURES = [
  'header_media',
  'header_variables',
  'button_variables',
  'carousel',
  'named_variables',
  'authentication',
] as const;
export type TemplateFeature = (typeof TEMPLATE_FEATURES)[number];

const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
const LANGUAGE = /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/;

/**
 * Reads the placeholders of a body: numbered ones must be {{1}}…{{n}} without gaps (their count is what a
 * send fills); a named one ({{first_name}}) means the template has named variables.
 */
export function parseTemplateBody(body: string): { variableCount: number; named: boolean } {
  const invalid = (message: string) => new ApiError(422, 'invalid_template_body', message);
  const numbers = new Set<number>();
  let named = false;
  // The group always takes part in a match (it may be empty).
  for (const [, placeholder = ''] of body.matchAll(/\{\{([^{}]*)\}\}/g)) {
    const inner = placeholder.trim();
    if (/^[0-9]+$/.test(inner)) numbers.add(Number(inner));
    else if (/^[a-z_][a-z0-9_]*$/.test(inner)) named = true;
    else throw invalid(`{{${placeholder}}} is neither a number nor a variable name.`);
  }
  const count = numbers.size;
  for (let n = 1; n <= count; n++)
    if (!numbers.has(n)) throw invalid('Placeholders must be numbered {{1}}, {{2}}… without gaps.');
  return { variableCount: count, named };
}

export interface TemplateInput {
  connection_id: string;
  name: string;
  language: string;
  body: string;
  status?: TemplateStatus;
  unsupported_features?: readonly TemplateFeature[];
}

function checkTemplate(input: TemplateInput): void {
  const bad = (message: string) => new ApiError(422, 'invalid_template', message);
  // The API's schema already refuses these (400); the CLI reaches the service without it.
  if (!TEMPLATE_NAME.test(input.name)) throw bad('The name takes lowercase letters, digits and underscores.');
  if (!LANGUAGE.test(input.language)) throw bad('The language is a code such as pt_BR, en_US or es.');
  if (input.body.trim() === '' || input.body.length > 1024) throw bad('The body has 1 to 1024 characters.');
  if (input.status !== undefined && !TEMPLATE_STATUSES.includes(input.status))
    throw bad(`Unknown status ${String(input.status)}.`);
  for (const f of input.unsupported_features ?? [])
    if (!TEMPLATE_FEATURES.includes(f)) throw bad(`Unknown feature ${String(f)}.`);
}

export async function createTemplate(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: TemplateInput,
  actor?: Actor,
): Promise<TemplateRow> {
  checkTemplate(input);
  const { variableCount, named } = parseTemplateBody(input.body);
  const features = new Set<TemplateFeature>(input.unsupported_features ?? []);
  if (named) features.add('named_variables');
  const now = clock.now().toISOString();
  const exists = (row: TemplateRow) =>
    new ApiError(409, 'template_already_exists', `The number already has ${row.name} in ${row.language}.`, {
      template_id: row.id,
    });
  try {
    return await db.transaction().execute(async (tx) => {
      if (!(await findAccount(tx, accountId))) throw notFound('No such account.');
      const connection = await findConnection(tx, accountId, input.connection_id);
      if (!connection || connection.channel !== 'whatsapp' || connection.status !== 'connected')
        throw new ApiError(
          422,
          'invalid_connection',
          'connection_id is not a connected whatsapp number of the account.',
        );
      const existing = await findTemplate(tx, accountId, connection.id, input.name, input.language);
      if (existing) throw exists(existing);
      const row: TemplateRow = {
        id: randomUUID(),
        account_id: accountId,
        connection_id: connection.id,
        name: input.name,
        language: input.language,
        body: input.body,
        variable_count: variableCount,
        status: input.status ?? 'approved',
        unsupported_features: TEMPLATE_FEATURES.filter((f) => features.has(f)),
        created_at: now,
        updated_at: now,
      };
      const created = await insertTemplate(tx, row);
      await audit(
        tx,
        actor,
        {
          accountId,
          action: 'template.created',
          targetType: 'template',
          targetId: row.id,
          details: { name: row.name, language: row.language, status: row.status },
        },
        now,
      );
      return created;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await findTemplate(db, accountId, input.connection_id, input.name, input.language);
    throw existing ? exists(existing) : error;
  }
}

export async function changeTemplateStatus(
  db: Kysely<DB>,
  clock: Clock,
  templateId: string,
  status: TemplateStatus,
  actor?: Actor,
): Promise<TemplateRow> {
  if (!TEMPLATE_STATUSES.includes(status))
    throw new ApiError(422, 'invalid_template', `Unknown status ${String(status)}.`);
  const now = clock.now().toISOString();
  return db.transaction().execute(async (tx) => {
    const current = await findTemplateById(tx, templateId);
    if (!current) throw notFound('No such template.');
    const updated = await updateTemplateStatus(tx, current.account_id, templateId, status, now);
    if (!updated) throw notFound('No such template.');
    await audit(
      tx,
      actor,
      {
        accountId: current.account_id,
        action: 'template.updated',
        targetType: 'template',
        targetId: templateId,
        details: { status },
      },
      now,
    );
    return updated;
  });
}

export function templateView(row: TemplateRow) {
  return {
    id: row.id,
    connection_id: row.connection_id,
    name: row.name,
    language: row.language,
    body: row.body,
    variable_count: row.variable_count,
    status: row.status,
    unsupported_features: row.unsupported_features,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
