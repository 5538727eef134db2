// Where the bundled descriptions are: the validators and the block catalog read the generated files. Two
// descriptions come from spec/: the public API (`/v1`, what partners get and GET /openapi.json serves) and the
// vendor console with the sandbox (`/admin/v1`); each pipeline validates against its own.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type * as OpenApiValidator from 'express-openapi-validator';
import { IF_MATCH_HEADER } from '../domain/workflows/if-match.js';

export const bundledSpecPath = fileURLToPath(new URL('../../generated/openapi.json', import.meta.url));
export const adminSpecPath = fileURLToPath(new URL('../../generated/admin-openapi.json', import.meta.url));

/** Which description: the public API's or the vendor console's. */
export type Description = 'public' | 'admin';

const pathOf = (description: Description) => (description === 'admin' ? adminSpecPath : bundledSpecPath);

type ApiSpec = Exclude<Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'], string>;
type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;

/** A bundled description as a JSON document, a new copy per call. */
export function specDocument(description: Description = 'public'): Node {
  const path = pathOf(description);
  const doc: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isNode(doc)) throw new Error(`${path} is not a JSON object`);
  return doc;
}

/** The top of an OpenAPI document as the validator's type asks for it; the rest is the validator's to read. */
function isApiSpec(doc: Node): doc is Node & ApiSpec {
  return typeof doc.openapi === 'string' && isNode(doc.info) && isNode(doc.paths);
}

/**
 * The format check of a block sent in a graph: the JSON types of `type`, `data` and `position`, nothing more.
 * The description types a sent block by the catalog (`WorkflowNodeInput`, one closed schema per block type) so
 * that a generated SDK refuses a misspelled block; the service checks blocks against its current catalog itself
 * and answers `422 invalid_graph` (create, update) or lists the problems (validate), never a 400, and accepts
 * block types added after the description a client was generated from (Part B rule 8).
 */
const sentBlockFormat = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    data: { type: 'object' },
    position: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } },
  },
};

/**
 * A bundled description as the request validators read it: every query parameter `allowReserved`, If-Match never
 * required (the service answers its absence with 428), and a sent block checked for its format only
 * (`sentBlockFormat`).
 *
 * express-openapi-validator refuses ("must be url encoded") a query value whose raw form holds an RFC 3986
 * reserved character, unless its parameter allows them. Standard encoders leave some there: URLSearchParams
 * writes a space as `+`, encodeURIComponent (so openapi-fetch, our typed client) leaves `!'()*`. The check only
 * refuses: Express's query parser (qs) reads the value decoded either way (`+` a space, `%2B` a plus), which is
 * what the handlers get. The published spec keeps the default, so clients are still told to encode.
 * A new copy per call: the validator bundles the document it is given in place.
 */
export function validatorSpec(description: Description = 'public'): ApiSpec {
  const doc = specDocument(description);
  const parameters: unknown[] = [];
  const components = isNode(doc.components) && isNode(doc.components.parameters) ? doc.components.parameters : {};
  parameters.push(...Object.values(components));
  for (const item of Object.values(isNode(doc.paths) ? doc.paths : {})) {
    if (!isNode(item)) continue;
    for (const holder of [item, ...Object.values(item)])
      if (isNode(holder) && Array.isArray(holder.parameters)) parameters.push(...holder.parameters);
  }
  for (const parameter of parameters) if (isNode(parameter) && parameter.in === 'query') parameter.allowReserved = true;
  // A required If-Match (PATCH of an automation) is the service's to ask for: 428 precondition_required, which
  // the validator would turn into a 400. Its format is still checked when it is sent.
  for (const parameter of parameters)
    if (isNode(parameter) && parameter.in === 'header' && String(parameter.name).toLowerCase() === IF_MATCH_HEADER)
      parameter.required = false;
  // Wherever a description has the union (a description without graphs, such as a console-only one, has not).
  const schemas = isNode(doc.components) && isNode(doc.components.schemas) ? doc.components.schemas : undefined;
  if (schemas && isNode(schemas.WorkflowNodeInput)) schemas.WorkflowNodeInput = structuredClone(sentBlockFormat);
  if (!isApiSpec(doc)) throw new Error(`${pathOf(description)} is not an OpenAPI document`);
  return doc;
}

/**
 * `validatorSpec` as the server's validators compile it (express-openapi-validator, ./response-check.ts): without
 * what only a reader uses. The mock keeps `validatorSpec` whole: Prism answers with the examples.
 */
export function leanValidatorSpec(description: Description = 'public'): ApiSpec {
  const doc = validatorSpec(description);
  withoutExamples(doc);
  return doc;
}

/**
 * `leanValidatorSpec` as express-openapi-validator's request validator reads it: without the responses too, which
 * it would otherwise walk and resolve at start (half a second of each process's start) for nothing, since the
 * responses are ./response-check.ts's. A response's schemas stay in `components.schemas`.
 */
export function requestValidatorSpec(description: Description = 'public'): ApiSpec {
  const doc = leanValidatorSpec(description);
  withoutResponses(doc);
  return doc;
}

function withoutResponses(doc: Node): void {
  if (isNode(doc.components)) delete doc.components.responses;
  const items = [doc.paths, doc.webhooks].flatMap((group) => (isNode(group) ? Object.values(group) : []));
  for (const item of items)
    if (isNode(item)) for (const operation of Object.values(item)) if (isNode(operation)) delete operation.responses;
}

/**
 * The description without what only a reader uses: the examples (of media types, parameters and headers, and
 * `components.examples`) of the paths and webhooks, and the code samples. express-openapi-validator copies the whole document into each
 * schema it compiles and ajv walks all of it every time (a third of the walk was examples: 3.5 ms rather than 8
 * per schema, measured); the validation reads none of them. A schema's own `examples` keyword stays (an
 * annotation inside the schemas, and a property of that name is not touched).
 */
function withoutExamples(doc: Node): void {
  const holders: Node[] = [];
  const components = isNode(doc.components) ? doc.components : {};
  delete components.examples;
  const mediaTypesOf = (holder: unknown) =>
    isNode(holder) && isNode(holder.content) ? Object.values(holder.content).filter(isNode) : [];
  const headersOf = (holder: unknown) =>
    isNode(holder) && isNode(holder.headers) ? Object.values(holder.headers).filter(isNode) : [];
  const responses = (holder: unknown) => (isNode(holder) ? Object.values(holder).filter(isNode) : []);
  for (const response of [...responses(components.responses)])
    holders.push(...mediaTypesOf(response), ...headersOf(response));
  for (const body of responses(components.requestBodies)) holders.push(...mediaTypesOf(body));
  holders.push(...responses(components.parameters), ...responses(components.headers));
  const items = [doc.paths, doc.webhooks].flatMap((group) => (isNode(group) ? Object.values(group) : []));
  for (const item of items) {
    if (!isNode(item)) continue;
    for (const operation of [item, ...Object.values(item)]) {
      if (!isNode(operation)) continue;
      delete operation['x-codeSamples'];
      if (Array.isArray(operation.parameters)) holders.push(...operation.parameters.filter(isNode));
      holders.push(...mediaTypesOf(operation.requestBody));
      for (const response of responses(operation.responses))
        holders.push(...mediaTypesOf(response), ...headersOf(response));
    }
  }
  for (const holder of holders) {
    delete holder.examples;
    delete holder.example;
  }
}
