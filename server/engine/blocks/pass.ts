// root, comment, blank, unsupported (Part B): they do nothing; the run follows their one output (a blank
// block without `next` ends the branch).
import type { BlockExecutor } from '../context.js';

export const passThrough: BlockExecutor = () => Promise.resolve({ next: 0 });
