// Writing a custom field from a block (data, math, a question's answer): through the contacts domain (history
// and contact.custom_fields_updated, as an automation), the value in the field's type. A value the field refuses
// (text in a number field, an unknown dropdown option) fails the step; the run goes on.
import { clearValue, setValues } from '../../domain/contacts/holdings.js';
import { workflowActor } from '../../domain/contacts/history.js';
import { ApiError } from '../../errors.js';
import { findCustomFieldByKey } from '../../store/workflow-lookups.js';
import type { RunContext, StepError } from '../context.js';

export async function writeField(ctx: RunContext, key: string, value: string | null): Promise<StepError | null> {
  const field = await findCustomFieldByKey(ctx.tx, ctx.account.id, key);
  if (!field) return { code: 'custom_field_not_found', message: `The account has no custom field "${key}".` };
  const actor = workflowActor(ctx.workflow);
  try {
    if (value === null) await clearValue(ctx.tx, ctx.deps.clock, ctx.account.id, ctx.contact.id, field.id, actor);
    else {
      const typed = field.type === 'number' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
      await setValues(
        ctx.tx,
        ctx.deps.clock,
        ctx.account.id,
        ctx.contact.id,
        [{ field_id: field.id, value: typed }],
        actor,
      );
    }
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  ctx.vars.set(key, value);
  return null;
}
