// Which operation of the spec a request is for, and its path parameters: one lookup per request. The app used to
// register one Express route per operation, and every request then went through all of them (about 60 layers,
// each a regular expression and a call) before reaching the rest of the pipeline. Matching follows Express's
// defaults: case-insensitive, an optional trailing slash, HEAD served by GET, parameters percent-decoded (a
// malformed one is Express's 400 "Failed to decode param"); literal paths win over templates, and templates with
// fewer parameters win over ones with more (`/v1/workflows/validate` before `/v1/workflows/{workflowId}`).
import { match, type MatchFunction } from 'path-to-regexp';

interface Routable {
  readonly method: string;
  readonly path: string;
  readonly expressPath: string;
}

export interface OperationMatch<O> {
  operation: O;
  params: Record<string, string>;
}

/** Express's error for a parameter that is not valid percent-encoding (the error handler reads it as a 400). */
function undecodable(value: string): Error {
  return Object.assign(new Error(`Failed to decode param '${value}'`), { status: 400 });
}

const decode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    throw undecodable(value);
  }
};

/** The operations of a generated table (`operations`, `adminOperations`), each with its id. */
export function operationList<Table extends Readonly<Record<string, object>>>(
  table: Table,
): (Table[keyof Table] & { id: keyof Table & string })[] {
  const isId = (key: string): key is keyof Table & string => key in table;
  return Object.keys(table)
    .filter(isId)
    .map((id) => ({ ...table[id], id }));
}

export function operationMatcher<O extends Routable>(
  operations: readonly O[],
): (method: string, path: string) => OperationMatch<O> | undefined {
  const parameterCount = (o: O) => o.path.match(/\{/g)?.length ?? 0;
  const literal = new Map<string, O>();
  const templated: { operation: O; match: MatchFunction<Record<string, string>> }[] = [];
  for (const operation of [...operations].sort((a, b) => parameterCount(a) - parameterCount(b))) {
    if (parameterCount(operation) === 0) {
      const key = `${operation.method} ${operation.expressPath.toLowerCase()}`;
      if (!literal.has(key)) literal.set(key, operation);
    } else
      // The templates' parameters are plain `:name` segments (no optional or wildcard ones): each is a string.
      templated.push({ operation, match: match<Record<string, string>>(operation.expressPath, { decode }) });
  }
  return (method, path) => {
    const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
    const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const found = literal.get(`${verb} ${bare.toLowerCase()}`);
    if (found) return { operation: found, params: {} };
    for (const candidate of templated) {
      if (candidate.operation.method !== verb) continue;
      const matched = candidate.match(path);
      if (matched) return { operation: candidate.operation, params: matched.params };
    }
    return undefined;
  };
}
