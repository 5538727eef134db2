// Lint rules of this API that configurable rules cannot express (they relate two places of an operation).
// Loaded by redocly.yaml (`plugins`), enabled there as `engagement/<rule>`. Each rule looks only at routes
// (`paths`), never at `webhooks`.

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** Resolves a `$ref` (relative to `from`, the absolute ref of the file holding it) to {node, from}. */
function deref(ctx, node, from) {
  let current = node;
  let source = from;
  for (let depth = 0; depth < 20 && current && typeof current === 'object' && '$ref' in current; depth += 1) {
    const resolved = ctx.resolve(current, source);
    if (!resolved || resolved.node === undefined) return { node: undefined, from: source };
    current = resolved.node;
    source = resolved.location ? resolved.location.source.absoluteRef : source;
  }
  return { node: current, from: source };
}

/** Calls `fn(operation, method, location, from)` for each operation of a path item. */
function eachOperation(pathItem, ctx, fn) {
  const from = ctx.location.source.absoluteRef;
  for (const method of METHODS) {
    if (!pathItem[method]) continue;
    const { node: operation, from: opFrom } = deref(ctx, pathItem[method], from);
    if (operation) fn(operation, method, ctx.location.child([method]), opFrom);
  }
}

/** `x-idempotency` agrees with the `Idempotency-Key` header parameter of the operation. */
function IdempotencyHeader() {
  return {
    Paths: {
      PathItem: {
        enter(pathItem, ctx) {
          const from = ctx.location.source.absoluteRef;
          const shared = (pathItem.parameters || []).map((p) => deref(ctx, p, from).node);
          eachOperation(pathItem, ctx, (operation, method, location, opFrom) => {
            const own = (operation.parameters || []).map((p) => deref(ctx, p, opFrom).node);
            const header = [...own, ...shared].find(
              (p) => p && p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key',
            );
            const rule = operation['x-idempotency'];
            const report = (message) => ctx.report({ message, location: location.child(['x-idempotency']) });
            if (rule === 'required' && !(header && header.required === true)) {
              report(
                'x-idempotency is `required`: declare the Idempotency-Key header parameter with `required: true`.',
              );
            } else if (rule === 'optional' && !(header && header.required !== true)) {
              report('x-idempotency is `optional`: declare the Idempotency-Key header parameter, not required.');
            } else if (rule === 'none' && header) {
              report('x-idempotency is `none` but the operation declares an Idempotency-Key header.');
            }
            if (method === 'get' && rule !== undefined && rule !== 'none')
              report('A GET route has x-idempotency `none`.');
          });
        },
      },
    },
  };
}

/**
 * An operation that takes `Idempotency-Key` declares `Idempotent-Replayed` on every answer the key can keep: its
 * successes, its 409 (`outcome_unknown` of a first request that stopped) and its 502 (`outcome_unknown`). An
 * operation without the key declares it nowhere.
 */
function IdempotentReplayedHeader() {
  return {
    Paths: {
      PathItem: {
        enter(pathItem, ctx) {
          eachOperation(pathItem, ctx, (operation, _method, location, opFrom) => {
            const takesKey = ['optional', 'required'].includes(operation['x-idempotency']);
            for (const [status, raw] of Object.entries(operation.responses || {})) {
              const { node: response } = deref(ctx, raw, opFrom);
              const declared = Boolean(response && response.headers && response.headers['Idempotent-Replayed']);
              const kept = /^2\d\d$/.test(status) || status === '409' || status === '502';
              if (takesKey && kept && !declared)
                ctx.report({
                  message: `Response ${status} can be replayed from the Idempotency-Key: declare the Idempotent-Replayed header.`,
                  location: location.child(['responses', status]),
                });
              if (!takesKey && declared)
                ctx.report({
                  message: `Response ${status} declares Idempotent-Replayed, but the operation takes no Idempotency-Key.`,
                  location: location.child(['responses', status]),
                });
            }
          });
        },
      },
    },
  };
}

/** Every operation that takes a request body declares the `413` of a body over the size limit. */
function PayloadTooLarge() {
  return {
    Paths: {
      PathItem: {
        enter(pathItem, ctx) {
          eachOperation(pathItem, ctx, (operation, _method, location) => {
            if (operation.requestBody && !(operation.responses && operation.responses['413']))
              ctx.report({
                message: 'The operation takes a body: declare 413 (payload_too_large, a body over 1 MB).',
                location: location.child(['responses']),
              });
          });
        },
      },
    },
  };
}

/** Every success response carrying a workflow (schema `Workflow`) declares the `ETag` header. */
function WorkflowEtag() {
  return {
    Paths: {
      PathItem: {
        enter(pathItem, ctx) {
          eachOperation(pathItem, ctx, (operation, _method, location, opFrom) => {
            for (const [status, raw] of Object.entries(operation.responses || {})) {
              if (!/^2\d\d$/.test(status)) continue;
              const { node: response, from } = deref(ctx, raw, opFrom);
              const schema = response && response.content && response.content['application/json']?.schema;
              if (!schema) continue;
              const ref = typeof schema.$ref === 'string' ? schema.$ref : '';
              const resolved = deref(ctx, schema, from).node;
              const isWorkflow = /(^|\/)Workflow\.ya?ml$/.test(ref) || (resolved && resolved.title === 'Workflow');
              if (isWorkflow && !(response.headers && response.headers.ETag)) {
                ctx.report({
                  message: `Response ${status} carries a workflow: declare the ETag header (its revision).`,
                  location: location.child(['responses', status]),
                });
              }
            }
          });
        },
      },
    },
  };
}

/** Every error response of a route (4xx, 5xx, default) has a JSON body with a schema; a tracked link's 4xx are pages. */
function JsonErrorEnvelope() {
  return {
    Paths: {
      PathItem: {
        enter(pathItem, ctx) {
          // A tracked link (`/links/…`) is opened by a contact's browser: its 404 and 410 are small HTML pages. The
          // description (`/openapi.json`) has no route error: its 403 and 429 come from the edge, with no body.
          const pages = String(ctx.key).startsWith('/links/') || ctx.key === '/openapi.json';
          eachOperation(pathItem, ctx, (operation, _method, location, opFrom) => {
            for (const [status, raw] of Object.entries(operation.responses || {})) {
              if (!/^[45]\d\d$/.test(status) && status !== 'default') continue;
              if (pages && status !== 'default') continue;
              const { node: response } = deref(ctx, raw, opFrom);
              if (!response?.content?.['application/json']?.schema) {
                ctx.report({
                  message: `Error response ${status} must have an application/json body with a schema (the error envelope).`,
                  location: location.child(['responses', status]),
                });
              }
            }
          });
        },
      },
    },
  };
}

/**
 * Each API has its own credential: a `/v1` route uses `ApiKey` (an API key, with the route's scope), an
 * `/admin/v1` route uses `AdminToken` without scopes, a `/links` route (a tracked link) none. A route under none
 * of these prefixes is reported. Each API has its own description: one holding both `/v1` and `/admin/v1`
 * paths is reported (the public one is what partners get; the vendor console is spec/admin.yaml).
 */
function SecurityScheme() {
  return {
    Paths: {
      enter(paths, ctx) {
        const keys = Object.keys(paths || {});
        const admin = keys.filter((key) => key.startsWith('/admin/'));
        if (admin.length && keys.some((key) => key.startsWith('/v1/')))
          for (const key of admin)
            ctx.report({
              message: `${key} is an admin path in the public description: the vendor console is spec/admin.yaml.`,
              location: ctx.location.child([key]).key(),
            });
      },
      PathItem: {
        enter(pathItem, ctx) {
          const path = String(ctx.key);
          const admin = path.startsWith('/admin/v1/');
          // The tracked links and the description itself (GET /openapi.json) take no credential.
          if (path.startsWith('/links/') || path === '/openapi.json') {
            // The tracking addresses of link buttons: opened by contacts' browsers, with no credential at all.
            eachOperation(pathItem, ctx, (operation, _method, location) => {
              const security = Array.isArray(operation.security) ? operation.security : undefined;
              if (!security || security.length > 0)
                ctx.report({
                  message: 'A /links or /openapi.json route declares `security: []`.',
                  location: location.child(['security']),
                });
            });
            return;
          }
          if (!admin && !path.startsWith('/v1/')) {
            ctx.report({
              message: `Path ${path} is under none of /v1, /admin/v1 and /links, nor /openapi.json.`,
              location: ctx.location.key(),
            });
            return;
          }
          eachOperation(pathItem, ctx, (operation, _method, location) => {
            const security = Array.isArray(operation.security) ? operation.security : undefined;
            const schemes = (security || []).flatMap((requirement) => Object.keys(requirement || {}));
            const report = (message) => ctx.report({ message, location: location.child(['security']) });
            if (admin) {
              const scopes = (security || []).flatMap((requirement) => requirement.AdminToken || []);
              if (!security || schemes.length !== 1 || schemes[0] !== 'AdminToken' || scopes.length > 0)
                report('An admin route declares `security: [{AdminToken: []}]` and nothing else.');
            } else if (schemes.some((scheme) => scheme !== 'ApiKey')) {
              report('A /v1 route accepts an API key only (`security: [{ApiKey: [<scope>]}]`).');
            }
          });
        },
      },
    },
  };
}

const WINDOW_WORDS = { one: 1, two: 2, five: 5, ten: 10, fifteen: 15, thirty: 30 };
const UNIT_SECONDS = { second: 1, minute: 60, hour: 3600 };

/**
 * The root `x-rate-limits` is the one table of the per-account limits (`window-seconds`, `kinds: {<kind>: calls}`):
 * every `/v1` route names one of its kinds in `x-rate-kind`, and the "Rate limits" section of the description,
 * where it states a window (`one-minute windows`) or a kind's number (`**read** 120`), agrees with it.
 */
function RateLimits() {
  let kinds;
  return {
    Root: {
      enter(root, ctx) {
        const table = deref(ctx, root['x-rate-limits'], ctx.location.source.absoluteRef).node;
        const here = ctx.location.child(['x-rate-limits']);
        const isCount = (n) => Number.isInteger(n) && n > 0;
        // The vendor console's description (no /v1 route) has no per-account rate limits.
        const publicRoutes = Object.keys(root.paths || {}).some((key) => key.startsWith('/v1/'));
        if (!publicRoutes && table === undefined) {
          kinds = undefined;
          return;
        }
        if (!table || typeof table !== 'object' || !table.kinds || typeof table.kinds !== 'object') {
          kinds = undefined;
          ctx.report({
            message: 'Declare the rate limits once: `x-rate-limits: {window-seconds, kinds}`.',
            location: here,
          });
          return;
        }
        kinds = table.kinds;
        for (const [kind, limit] of Object.entries(kinds))
          if (!isCount(limit))
            ctx.report({
              message: `x-rate-limits: ${kind} must be a positive integer.`,
              location: here.child(['kinds', kind]),
            });
        if (!isCount(table['window-seconds']))
          ctx.report({ message: 'x-rate-limits: window-seconds must be a positive integer.', location: here });

        const description = root.info && typeof root.info.description === 'string' ? root.info.description : '';
        const section = /^## Rate limits\n([\s\S]*?)(?=^## |$(?![\s\S]))/m.exec(description)?.[1];
        if (section === undefined) return;
        const prose = ctx.location.child(['info', 'description']);
        const window = /\b(\d+|[a-z]+)-(second|minute|hour) windows?\b/.exec(section);
        if (window) {
          const seconds = (Number(window[1]) || WINDOW_WORDS[window[1]]) * UNIT_SECONDS[window[2]];
          if (seconds !== table['window-seconds'])
            ctx.report({
              message: `"Rate limits" states ${window[0]} but x-rate-limits has window-seconds ${table['window-seconds']}.`,
              location: prose,
            });
        }
        const stated = new Map(
          [...section.matchAll(/\*\*([a-z]+)\*\* (\d[\d,]*)/g)].map((m) => [m[1], Number(m[2].replace(/,/g, ''))]),
        );
        if (stated.size === 0) return;
        for (const [kind, limit] of stated) {
          const declared = Object.hasOwn(kinds, kind) ? kinds[kind] : 'no such kind';
          if (declared !== limit)
            ctx.report({
              message: `"Rate limits" states **${kind}** ${limit} but x-rate-limits has ${kind}: ${declared}.`,
              location: prose,
            });
        }
        for (const kind of Object.keys(kinds))
          if (!stated.has(kind))
            ctx.report({
              message: `"Rate limits" does not state the limit of ${kind} (x-rate-limits).`,
              location: prose,
            });
      },
    },
    Paths: {
      PathItem: {
        enter(pathItem, ctx) {
          if (!String(ctx.key).startsWith('/v1/') || !kinds) return;
          eachOperation(pathItem, ctx, (operation, _method, location) => {
            const kind = operation['x-rate-kind'];
            if (!Object.hasOwn(kinds, kind))
              ctx.report({
                message: `Every route declares x-rate-kind, one of x-rate-limits: ${Object.keys(kinds).join(', ')}.`,
                location: kind === undefined ? location : location.child(['x-rate-kind']),
              });
          });
        },
      },
    },
  };
}

export default function engagementPlugin() {
  return {
    id: 'engagement',
    rules: {
      oas3: {
        'idempotency-header': IdempotencyHeader,
        'idempotent-replayed-header': IdempotentReplayedHeader,
        'payload-too-large': PayloadTooLarge,
        'workflow-etag': WorkflowEtag,
        'json-error-envelope': JsonErrorEnvelope,
        'security-scheme': SecurityScheme,
        'rate-limits': RateLimits,
      },
    },
  };
}
