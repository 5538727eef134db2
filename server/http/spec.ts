// Where the bundled spec is: the validator and the block catalog read the generated files.
import { fileURLToPath } from 'node:url';

export const bundledSpecPath = fileURLToPath(new URL('../../generated/openapi.json', import.meta.url));
