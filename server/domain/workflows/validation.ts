// STUB until the staged validation lands (branch h-validation replaces this file).
import type { ApiError } from '../../errors.js';
import type { AccountLookups, DefinitionToCheck, ValidationOptions, ValidationResult } from './validation-types.js';

export function validateDefinition(
  _def: DefinitionToCheck,
  _lookups: AccountLookups,
  _options: ValidationOptions,
): Promise<ValidationResult> {
  return Promise.resolve({ errors: [], warnings: [] });
}

export function writeProblem(
  _def: DefinitionToCheck,
  _lookups: AccountLookups,
  _options: { workflowId: string | null },
): Promise<ApiError | null> {
  return Promise.resolve(null);
}
