// Writes every named example of the spec into spec/components/examples/<area>/<Name>.yaml.
// The files are generated: edit the area builders here, never the YAML. `npm run generate` runs this.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'prettier';
import { stringify } from 'yaml';
import { buildWorld, makeFaker, type AreaBuilder, type ExampleSet } from './world.js';
import errors from './errors.js';
import contacts from './contacts.js';
import messaging from './messaging.js';
import workflows from './workflows.js';
import catalog from './catalog.js';
import webhooks from './webhooks.js';
import admin from './admin.js';
import sandbox from './sandbox.js';

// New areas go last: each area's faker seed follows its position, so the others' examples stay the same.
const areas: Record<string, AreaBuilder> = {
  errors,
  contacts,
  messaging,
  workflows,
  catalog,
  webhooks,
  admin,
  sandbox,
};

export async function buildExamples(root: string): Promise<string[]> {
  const world = buildWorld();
  const written: string[] = [];
  const seen = new Map<string, string>();
  let seed = 1000;
  for (const [area, build] of Object.entries(areas)) {
    // Each area has its own seeded faker, so adding examples to one area leaves the others unchanged.
    const set: ExampleSet = build(world, makeFaker((seed += 1)));
    const dir = join(root, 'spec/components/examples', area);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const [name, example] of Object.entries(set)) {
      if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) throw new Error(`example name ${name} is not PascalCase`);
      const other = seen.get(name);
      if (other) throw new Error(`example ${name} is defined in ${other} and ${area}`);
      seen.set(name, area);
      const yaml = stringify(
        {
          summary: example.summary,
          ...(example.description ? { description: example.description } : {}),
          value: example.value,
        },
        { lineWidth: 0 },
      );
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, await format(yaml, { parser: 'yaml', printWidth: 120 }));
      written.push(file);
    }
  }
  return written;
}

export function listExampleFiles(root: string): string[] {
  const base = join(root, 'spec/components/examples');
  return readdirSync(base, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
}
