// multichannel (Part B) reaches outside the service; it arrives with its own issue. Until then the run takes its
// failure output, the last ("no channel can receive").
import type { BlockExecutor } from '../../engine/context.js';
import { notYet } from '../../engine/blocks/unavailable.js';

export const execute: BlockExecutor<'multichannel'> = (ctx) =>
  Promise.resolve({ failed: notYet('multichannel'), output: ctx.data.channels.length });
