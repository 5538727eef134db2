// The request and response validators, built once per process for each set of options rather than once per app.
// express-openapi-validator loads and dereferences the whole description when an app serves its first request and
// compiles each operation's schemas on that operation's first request: about a second, then a few hundred
// milliseconds per operation, paid again by every app a process builds (the tests build many; a development
// server rebuilt by a watcher too).
//
// Sharing them is safe: the middlewares hold no state of their app or of a request (the description, its
// compiled schemas and caches keyed by operation). One thing is per app in the validator: it puts `app.param`
// handlers on the app of its first request. They only copy path parameters onto Express's `req.params` of routes
// the app itself defines with `:name`, and no validated route is one (the public pipeline matches its operations
// itself, the admin one lives in a router of its own), so a later app lacking them behaves the same.
import type * as OpenApiValidator from 'express-openapi-validator';

type ValidatorMiddlewares = ReturnType<typeof OpenApiValidator.middleware>;

const built = new Map<string, ValidatorMiddlewares>();

/** The validator `key` names (its description and every option that varies), built on the first call. */
export function validatorOnce(key: string, build: () => ValidatorMiddlewares): ValidatorMiddlewares {
  const known = built.get(key);
  if (known) return known;
  const middlewares = build();
  built.set(key, middlewares);
  return middlewares;
}

/**
 * The operations of `spec` that declare no parameter (path, query, header or cookie) and no request body: a
 * request for one of them that has no query string and no body gives the request validator nothing to check.
 */
export function operationsWithoutInput(spec: Record<string, unknown>): Set<string> {
  const found = new Set<string>();
  const isNode = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
  const declares = (holder: Record<string, unknown>) =>
    Array.isArray(holder.parameters) && holder.parameters.length > 0;
  for (const item of Object.values(isNode(spec.paths) ? spec.paths : {})) {
    if (!isNode(item) || declares(item)) continue;
    for (const operation of Object.values(item))
      if (isNode(operation) && typeof operation.operationId === 'string')
        if (!declares(operation) && operation.requestBody === undefined) found.add(operation.operationId);
  }
  return found;
}
