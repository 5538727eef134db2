// invoke and sheets reach outside the service; they arrive with issue 22's next slices. Until then each
// fails its step with this error (server/blocks/<type>/executor.ts says which output the run then takes).
import type { StepError } from '../context.js';

export const notYet = (type: string): StepError => ({
  code: 'block_not_available',
  message: `The ${type} block does not run yet.`,
});
