// sheets (Part B) reaches outside the service; it arrives with its own issue. Until then it fails, and as it has
// no failure output its branch ends.
import type { BlockExecutor } from '../../engine/context.js';
import { notYet } from '../../engine/blocks/unavailable.js';

export const execute: BlockExecutor<'sheets'> = () => Promise.resolve({ failed: notYet('sheets'), end: 'stopped' });
