// invoke, sheets and multichannel reach outside the service; they arrive with their own issue. Until then the
// run takes their failure output (invoke: the 2nd; multichannel: the last, "no channel can receive"), and a
// spreadsheet block, which has none, ends its branch.
import type { BlockExecutor } from '../context.js';

const notYet = (type: string) => ({ code: 'block_not_available', message: `The ${type} block does not run yet.` });

export const invoke: BlockExecutor = () => Promise.resolve({ failed: notYet('invoke'), output: 1 });
export const multichannel: BlockExecutor = (ctx) =>
  Promise.resolve({
    failed: notYet('multichannel'),
    output: Array.isArray(ctx.data.channels) ? ctx.data.channels.length : 0,
  });
export const sheets: BlockExecutor = () => Promise.resolve({ failed: notYet('sheets'), end: 'stopped' });
