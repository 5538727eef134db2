// Whether a run may start for a contact (Part B): not while the account paused the contact's automations
// (contact_automations_paused), not while the contact is mid-run of the same automation (run_in_progress), and
// not beyond the per-contact hourly limit (run_limit_reached). Triggers skip a refused start; the API answers it.
import type { Transaction } from 'kysely';
import { ApiError } from '../errors.js';
import type { ContactRow } from '../store/contacts.js';
import type { DB } from '../store/schema.js';
import { runStartState } from '../store/workflow-runs.js';
import type { ContactRunsState } from '../store/workflows.js';
import type { EngineDeps } from './context.js';

/** The start of the hourly limit's window at `now`. */
export const startWindow = (now: Date) => new Date(now.getTime() - 3_600_000).toISOString();

export async function refusalToStart(
  tx: Transaction<DB>,
  deps: Pick<EngineDeps, 'runsPerContactPerHour'>,
  input: {
    workflowId: string;
    contact: ContactRow;
    now: Date;
    /** The contact's runs as this transaction read them with `startWindow(now)`, when no run started since. */
    runs?: ContactRunsState;
  },
): Promise<ApiError | null> {
  const { contact, now, runs } = input;
  if (contact.automations_paused_until && Date.parse(contact.automations_paused_until) > now.getTime())
    return new ApiError(409, 'contact_automations_paused', 'The account paused automations for this contact.');
  const state = runs
    ? { inProgress: runs.inProgress.has(input.workflowId), recent: runs.recent }
    : await runStartState(tx, contact.account_id, contact.id, input.workflowId, startWindow(now));
  if (state.inProgress)
    return new ApiError(409, 'run_in_progress', 'The contact is in the middle of a run of this automation.');
  if (state.recent >= deps.runsPerContactPerHour)
    return new ApiError(429, 'run_limit_reached', 'The contact reached the hourly limit of automation runs.');
  return null;
}
