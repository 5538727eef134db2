// `npm run house`: the figures of the server's house (issue 21) — type casts and non-null assertions in
// server/engine and server/http, functions over 80 lines and import cycles in server/ — each with where it is.
// test/layers.test.ts holds the same figures to their limits.
import { HOUSE_LIMITS, readHouse } from './lib/house.js';

const house = readHouse();
const verbose = process.argv.includes('--list');

const row = (label: string, count: number, limit: number | null) =>
  console.log(`${label.padEnd(46)} ${String(count).padStart(4)}${limit === null ? '' : `   (limit ${limit})`}`);

console.log(`server/: ${house.files.length} files, ${house.imports.length} imports`);
row('casts in server/engine + blocks + http', house.casts.length, HOUSE_LIMITS.casts);
row('  of which without a comment saying why', house.casts.filter((c) => !c.explained).length, 0);
row('non-null in server/engine + blocks + http', house.nonNulls.length, HOUSE_LIMITS.nonNulls);
row('  of which without a comment saying why', house.nonNulls.filter((c) => !c.explained).length, 0);
row(`functions over ${HOUSE_LIMITS.functionLines} lines in server/`, house.longFunctions.length, 0);
row('import cycles in server/ (types included)', house.cycles.length, 0);

if (verbose) {
  for (const c of house.casts)
    console.log(`  cast     ${c.file}:${c.line}  ${c.text}${c.explained ? '' : '  [no why]'}`);
  for (const c of house.nonNulls)
    console.log(`  non-null ${c.file}:${c.line}  ${c.text}${c.explained ? '' : '  [no why]'}`);
  for (const f of house.longFunctions) console.log(`  long     ${f.file}:${f.line}  ${f.name} (${f.lines} lines)`);
  for (const cycle of house.cycles) console.log(`  cycle    ${cycle.join(' ↔ ')}`);
} else console.log('(npm run house -- --list names each one)');
