import { generate } from './lib/generate.ts';
await generate({ root: '/work/main', out: '/tmp/det1' });
await generate({ root: '/work/main', out: '/tmp/det2' });
