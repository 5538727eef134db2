// invoke (Part B): the request as the block renders it. Pure: the variables come in as a lookup, the secrets'
// values as a map. The answer's fields are field-path.ts's, read off the event loop (field-evaluator.ts).
//
// Headers and body are rendered when the block runs into segments: text with the variables already substituted,
// and secrets by name (`{secret.<name>}`), resolved only at call time for the host each hop reaches (docs/
// decisions.md, "invoke (issue 22)"). So no secret value is ever stored, and a variable's value cannot become a
// secret reference (one pass: a substituted value is never read again).
import type { BlockData } from '../../../../generated/block-catalog.js';
import { VARIABLE_NAME_PATTERN } from '../../../domain/workflows/variable-names.js';
import { variableText, type VariableLookup } from '../../evaluate/variables.js';
import type { InvokeRequest, InvokeSegment } from '../../../store/schema.js';

const VARIABLE_RE = new RegExp(`\\{(${VARIABLE_NAME_PATTERN})\\}`, 'g');
const SECRET = 'secret.';
/** An HTTP header name (RFC 9110 token). */
const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers the service sets itself: a block's own value for them is dropped. */
const OWN_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'idempotency-key']);
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f]/g;

/** A text inside a JSON string: escaped, without its quotes. */
export const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);
/** A header value cannot carry control characters (a CR LF would start another header): each becomes a space. */
const headerSafe = (text: string) => text.replace(CONTROL_RE, ' ');

/** `text` with its variables substituted (each through `escape`) and its secrets kept as references. */
export function segmentsOf(text: string, lookup: VariableLookup, escape: (value: string) => string): InvokeSegment[] {
  const segments: InvokeSegment[] = [];
  let at = 0;
  const push = (piece: InvokeSegment) => {
    const last = segments[segments.length - 1];
    if (typeof piece === 'string' && typeof last === 'string') segments[segments.length - 1] = last + piece;
    else if (piece !== '') segments.push(piece);
  };
  for (const match of text.matchAll(VARIABLE_RE)) {
    const name = match[1] ?? '';
    push(text.slice(at, match.index));
    push(name.startsWith(SECRET) ? { secret: name.slice(SECRET.length) } : escape(variableText(name, lookup)));
    at = match.index + match[0].length;
  }
  push(text.slice(at));
  return segments;
}

/** The secrets a request names. */
export const secretNames = (request: InvokeRequest): string[] => [
  ...new Set(
    [...request.headers.flatMap((h) => h.value), ...(request.body ?? [])].flatMap((s) =>
      typeof s === 'string' ? [] : [s.secret],
    ),
  ),
];

/** Joins segments, each secret as its value for this hop (empty when the host is not the secret's domain). */
export function joinSegments(
  segments: InvokeSegment[],
  secrets: ReadonlyMap<string, string>,
  escape: (v: string) => string,
) {
  return segments.map((s) => (typeof s === 'string' ? s : escape(secrets.get(s.secret) ?? ''))).join('');
}

/** The escaping of a header's value, and of the body (JSON-escaped in a JSON body). */
export const headerEscape = headerSafe;
export const bodyEscape = (json: boolean) => (json ? jsonEscaped : (v: string) => v);

export type Rendered = { ok: true; request: InvokeRequest } | { ok: false; code: string; message: string };

/** The request of the block: endpoint, headers and body rendered; an endpoint not http or https is refused. */
export function renderRequest(data: BlockData<'invoke'>, nodeId: string, lookup: VariableLookup): Rendered {
  // Secrets become empty in the endpoint: the lookup knows none.
  const url = data.endpoint.replace(VARIABLE_RE, (_whole, name: string) => variableText(name, lookup)).trim();
  if (!isHttpUrl(url))
    return { ok: false, code: 'invalid_endpoint', message: 'The endpoint is not an http or https address.' };
  const given = data.headers ?? [];
  const bad = given.find((h) => !TOKEN_RE.test(h.name));
  if (bad) return { ok: false, code: 'invalid_header', message: `"${bad.name}" is not a valid header name.` };
  const headers = given
    .filter((h) => !OWN_HEADERS.has(h.name.toLowerCase()))
    .map((h) => ({ name: h.name, value: segmentsOf(h.value, lookup, headerSafe) }));
  const contentType = headers.find((h) => h.name.toLowerCase() === 'content-type');
  const json = !contentType || /json/i.test(contentType.value.filter((s) => typeof s === 'string').join(''));
  const body = data.data === undefined ? null : segmentsOf(data.data, lookup, bodyEscape(json));
  return {
    ok: true,
    request: { node_id: nodeId, method: data.method, url, headers, body, json, fields: data.fields ?? [] },
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
