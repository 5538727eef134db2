// The fuzz harness's reading of the descriptions (test/fuzz/spec.ts): which operations answer without a key (the
// description itself and a tracked link's redirect). The harness expects a refusal of a missing or wrong
// Authorization only where the description asks for a key, so the long run (`npm run fuzz`) no longer reports
// GET /openapi.json (declared `security: []`) for answering 200.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPELLINGS, spellingsOf } from './fuzz/cases.js';
import { loadSpec } from './fuzz/spec.js';

const spec = loadSpec(resolve(import.meta.dirname, '..'));
const operation = (key: string) => spec.operations.find((op) => op.key === key);

describe('the fuzz harness reads which operations are open', () => {
  it('GET /openapi.json is open: declared security: []', () => {
    expect(operation('GET /openapi.json')?.open).toBe(true);
  });

  it('the API and the vendor console ask for their keys', () => {
    expect(operation('GET /v1/contacts')?.open).toBe(false);
    expect(operation('GET /v1/me')?.open).toBe(false);
    const open = spec.operations.filter((op) => op.open).map((op) => op.key);
    // Every open operation is named here: a new one is a decision, not an accident.
    expect(open.sort()).toEqual(['GET /links/{token}', 'GET /openapi.json']);
  });
});

describe("the ids class's spellings (test/fuzz/cases.ts spellingsOf)", () => {
  it('sends all nine for every id by default (npm run fuzz)', () => {
    expect(spellingsOf(0)).toEqual(SPELLINGS);
    expect(spellingsOf(41)).toEqual(SPELLINGS);
  });

  it('with fewer per id, keeps upper and mixed case for every id and sends every refused spelling in turn', () => {
    const chosen = Array.from({ length: 7 }, (_, index) => spellingsOf(index, 5));
    for (const spellings of chosen) {
      expect(spellings).toHaveLength(5);
      expect(spellings.slice(0, 2)).toEqual(['upper', 'mixed']);
      expect(new Set(spellings).size).toBe(5);
    }
    expect(new Set(chosen.flat())).toEqual(new Set(SPELLINGS));
  });
});
