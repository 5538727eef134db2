// Set-up file (vitest.config.ts, setupFiles): the request and response validators are built once per test file
// for each set of options, not once per app. express-openapi-validator loads and dereferences the whole
// description when an app serves its first request, and compiles each operation's schemas on the operation's
// first request: about a second, then a few hundred milliseconds per operation, paid again by every app a file
// starts (one per engine at least, and a new one for each configuration under test).
//
// Sharing them changes nothing a test checks: the middlewares hold no state of their app or of a request (the
// description, its compiled schemas and caches keyed by operation), and an app gets the middlewares built from
// exactly its options: the key is the options themselves (the description's content, the flags, the format
// checks and the ignored paths as their source). One thing is per app in the validator: it puts `app.param`
// handlers on the app of its first request. They only copy the validator's path parameters onto Express's
// `req.params` of routes the app itself defines with `:name`, and no validated route is one (the public pipeline
// matches its operations itself, the admin one lives in a router of its own, which does not run its app's
// `app.param` handlers), so a later app lacking them behaves the same.
import { createHash } from 'node:crypto';
import type * as Validator from 'express-openapi-validator';
import { vi } from 'vitest';

vi.mock('express-openapi-validator', async (importOriginal) => {
  const real = await importOriginal<typeof Validator>();
  type Options = Parameters<typeof real.middleware>[0];
  const built = new Map<string, ReturnType<typeof real.middleware>>();
  const keyOf = (options: Options) =>
    createHash('sha256')
      .update(
        JSON.stringify(options, (_name, value: unknown) =>
          typeof value === 'function' || value instanceof RegExp ? `${typeof value}:${String(value)}` : value,
        ),
      )
      .digest('hex');
  return {
    ...real,
    middleware(options: Options) {
      const key = keyOf(options);
      const known = built.get(key);
      if (known) return known;
      const middlewares = real.middleware(options);
      built.set(key, middlewares);
      return middlewares;
    },
  };
});
