// invoke (Part B) reaches outside the service; it arrives with its own issue. Until then the run takes its
// failure output, the 2nd.
import type { BlockExecutor } from '../../engine/context.js';
import { notYet } from '../../engine/blocks/unavailable.js';

export const execute: BlockExecutor<'invoke'> = () => Promise.resolve({ failed: notYet('invoke'), output: 1 });
