// The validator's route lookup compiles each template once (server/http/route-patterns.ts), and the memoised
// compiler answers as path-to-regexp does.
import { describe, expect, it } from 'vitest';
import { memoiseRoutePatterns, validatorPathToRegexp } from '../server/http/route-patterns.js';

type Compiled = { regexp: RegExp; keys: { name: string }[] };

describe('route patterns of the validator', () => {
  memoiseRoutePatterns();
  const compile = (path: string, options: object) => validatorPathToRegexp()(path, options) as Compiled;

  it('compiles a template once per set of options', () => {
    const first = compile('/v1/contacts/:contactId', { sensitive: false, strict: false });
    expect(compile('/v1/contacts/:contactId', { sensitive: false, strict: false })).toBe(first);
    const sensitive = compile('/v1/contacts/:contactId', { sensitive: true, strict: false });
    expect(sensitive).not.toBe(first);
    expect(first.regexp.test('/V1/CONTACTS/abc')).toBe(true);
    expect(sensitive.regexp.test('/V1/CONTACTS/abc')).toBe(false);
  });

  it('matches and names parameters as path-to-regexp does', () => {
    const { regexp, keys } = compile('/v1/tags/:tagId/contacts', {});
    expect(keys.map((k) => k.name)).toEqual(['tagId']);
    expect(regexp.exec('/v1/tags/42/contacts')?.[1]).toBe('42');
    expect(regexp.test('/v1/tags/42')).toBe(false);
  });

  it('is installed once, however many apps a process builds', () => {
    const installed = validatorPathToRegexp();
    memoiseRoutePatterns();
    expect(validatorPathToRegexp()).toBe(installed);
  });
});
