// `npm run house`: the figures of the house (issues 21 and 34) over all of server/ and console/ — type casts and
// non-null assertions, the longest function and those over 80 lines, import cycles, and the channels' arrows into
// the domain and the store — each with where it is. test/layers.test.ts holds the same figures to their limits.
import { HOUSE_LIMITS, HOUSE_TREES, readHouse } from './lib/house.js';

const house = readHouse();
const verbose = process.argv.includes('--list');
const where = (f: { file: string; line: number; name: string }) => `${f.name}, ${f.file}:${f.line}`;
const trees = HOUSE_TREES.map((tree) => `${tree}/`).join(' + ');

const row = (label: string, count: number, limit: number, where = '') =>
  console.log(`${label.padEnd(52)} ${String(count).padStart(4)}   (limit ${limit})${where && `  ${where}`}`);

console.log(`${trees}: ${house.files.length} files read, ${house.imports.length} imports`);
row(`casts in ${trees}`, house.casts.length, HOUSE_LIMITS.casts);
row('  of which without a comment saying why', house.casts.filter((c) => !c.explained).length, 0);
row(`non-null assertions in ${trees}`, house.nonNulls.length, HOUSE_LIMITS.nonNulls);
row('  of which without a comment saying why', house.nonNulls.filter((c) => !c.explained).length, 0);
const longest = house.longest;
row('longest function, in lines', longest?.lines ?? 0, HOUSE_LIMITS.functionLines, longest && where(longest));
row(`functions over ${HOUSE_LIMITS.functionLines} lines`, house.longFunctions.length, 0);
row('import cycles (type imports included)', house.cycles.length, 0);
row('imports from server/channels/ into domain/ or store/', house.channelArrows.length, 0);

if (verbose) {
  for (const c of house.casts)
    console.log(`  cast     ${c.file}:${c.line}  ${c.text}${c.explained ? '' : '  [no why]'}`);
  for (const c of house.nonNulls)
    console.log(`  non-null ${c.file}:${c.line}  ${c.text}${c.explained ? '' : '  [no why]'}`);
  for (const f of house.longFunctions) console.log(`  long     ${f.file}:${f.line}  ${f.name} (${f.lines} lines)`);
  for (const cycle of house.cycles) console.log(`  cycle    ${cycle.join(' ↔ ')}`);
  for (const i of house.channelArrows) console.log(`  arrow    ${i.from}:${i.line} → ${i.to}`);
} else console.log('(npm run house -- --list names each one)');
