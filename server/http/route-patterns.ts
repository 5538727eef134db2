// express-openapi-validator (5.6) looks up a request's operation by compiling every route template of the spec
// with path-to-regexp, on every request, until one matches: a fifth of a GET /v1/me's CPU time under load
// (npm run bench:profile). The compilation is a pure function of the template and its options and its result is
// only read, so the module's export is replaced by a memoised one, once per process, before the validator's first
// request. Express's own router compiles its routes once, at definition, through the same module: unaffected.
import { createRequire } from 'node:module';

type PathToRegexp = (path: string, options?: object) => unknown;

/** At most this many compiled patterns are kept (the spec has about 50 templates; a bound all the same). */
const MAX_PATTERNS = 1000;

const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
// The validator's own copy of path-to-regexp, loaded by require: untyped (any), so its one export is named here.
const pathToRegexpModule: { pathToRegexp: PathToRegexp } = validatorRequire('path-to-regexp');

export function memoiseRoutePatterns(): void {
  const compile = pathToRegexpModule.pathToRegexp;
  // Marked on the function itself: every app of the process (and every copy of this module) sees it.
  if ('memoised' in compile) return;
  // Per template: the options it was compiled with (the four that path-to-regexp 8's pathToRegexp reads; it
  // ignores any other) and the result. Compared field by field: cheaper than building a key per call.
  const patterns = new Map<string, { flags: unknown[]; pattern: unknown }>();
  const flagsOf = (options: object | undefined) => {
    const o: Record<string, unknown> = { ...options };
    return [o.sensitive, o.end, o.trailing, o.delimiter];
  };
  const memoised: PathToRegexp = (path, options) => {
    if (typeof path !== 'string') return compile(path, options);
    const flags = flagsOf(options);
    const known = patterns.get(path);
    if (known && known.flags.every((flag, i) => flag === flags[i])) return known.pattern;
    const pattern = compile(path, options);
    if (patterns.size >= MAX_PATTERNS) patterns.clear();
    patterns.set(path, { flags, pattern });
    return pattern;
  };
  pathToRegexpModule.pathToRegexp = Object.assign(memoised, { memoised: true });
}

/** The compiler the validator calls (tests check it is the memoised one). */
export const validatorPathToRegexp = (): PathToRegexp => pathToRegexpModule.pathToRegexp;
