// invoke, sheets and multichannel reach outside the service; they arrive with their own issue. Until then each
// fails its step with this error (server/blocks/<type>/executor.ts says which output the run then takes).
import type { StepError } from '../context.js';

export const notYet = (type: string): StepError => ({
  code: 'block_not_available',
  message: `The ${type} block does not run yet.`,
});
