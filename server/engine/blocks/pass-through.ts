// root, comment, blank, unsupported (Part B), and a type the engine does not know: they do nothing; the run
// follows their one output (a blank block without `next` ends the branch).
import type { BlockResult } from '../context.js';

export const passThrough = (): Promise<BlockResult> => Promise.resolve({ next: 0 });
