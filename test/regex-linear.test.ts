// Every regular expression that sees a tenant's or a caller's text is linear (issue 33; docs/security.md). The
// literals in the code are eslint-plugin-regexp's (npm run lint); this test takes the rest: the `pattern`s of the
// public and admin descriptions and of the block catalog (the request validator runs them on every request),
// and the patterns the server composes from parts. scslre (the analysis behind the lint rule) finds the
// quantifiers that backtrack super-linearly.
import { readFileSync } from 'node:fs';
import { analyse } from 'scslre';
import { describe, expect, it } from 'vitest';
import { KEY_PATTERN } from '../server/domain/accounts/keys.js';
import { VARIABLE_NAME_PATTERN } from '../server/domain/workflows/variable-names.js';
import { COMPOSED_PATTERNS } from '../server/engine/evaluate/values.js';

const DOCUMENTS = ['generated/openapi.json', 'generated/admin-openapi.json', 'generated/block-catalog.schema.json'];

function patternsOf(value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) patternsOf(item, found);
  else if (typeof value === 'object' && value !== null)
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'pattern' && typeof inner === 'string') found.add(inner);
      else patternsOf(inner, found);
    }
  return found;
}

/** The quantifiers of `source` that backtrack super-linearly (Ajv compiles `pattern` with the `u` flag). */
const superLinear = (source: string, flags = 'u') =>
  analyse({ source, flags }).reports.map((r) => `${r.type} with ${JSON.stringify(r.character.literal)}`);

describe('linear regular expressions', () => {
  const spec = new Set<string>();
  for (const file of DOCUMENTS) patternsOf(JSON.parse(readFileSync(file, 'utf8')), spec);

  it('finds the descriptions’ patterns, and the analysis flags what it is for', () => {
    expect(spec.size).toBeGreaterThan(5);
    expect(superLinear('^(a+)+b$')).not.toEqual([]);
    expect(superLinear('\\{[^}]+\\}')).not.toEqual([]);
  });

  it.each([...spec])('the description’s pattern %s', (source) => expect(superLinear(source)).toEqual([]));

  it.each([
    ...COMPOSED_PATTERNS.map((re) => re.source),
    KEY_PATTERN.source,
    `^${VARIABLE_NAME_PATTERN}$`,
    `\\{(${VARIABLE_NAME_PATTERN})\\}`,
  ])('the composed pattern %s', (source) => expect(superLinear(source, '')).toEqual([]));
});
