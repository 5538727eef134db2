// The response check of development and tests (RESPONSE_VALIDATION, off in production): every JSON body an
// operation sends, its handler's answer or the error it threw, is checked against the status's schema in the
// description; a body the description does not allow is the server's defect, answered 500 internal_error and
// logged with what is wrong, so that a test meets it where it happens.
//
// Why not express-openapi-validator's `validateResponses`, which did this before: it compiled each operation's
// responses into schemas of their own, each carrying the whole description (its paths and components) for $ref
// resolution, so every one cost a walk of the whole document (3 ms) and a compile of every schema it reached.
// The fuzz harness's server spent 11 of its 30 CPU seconds there. Here the description is added to one ajv
// instance once; each status's schema is compiled on first use as a pointer into it, and the schemas it refers to
// are compiled once for all of them.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { fastFormats } from 'ajv-formats/dist/formats.js';
import type { Response } from 'express';
import { strictFormats } from './formats.js';
import { leanValidatorSpec, type Description } from './spec.js';

/** The operation a response answers: its method and the path template of the description. */
export interface Answered {
  method: string;
  path: string;
}

/** A response body the description does not allow (a defect of the server, not of the client). */
export class ResponseContractError extends Error {
  override readonly name = 'ResponseContractError';
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

const DOCUMENT = 'description';
const JSON_TYPE = 'application/json';

/** A JSON pointer's segment, as a URI fragment holds it. */
const segment = (name: string) => encodeURIComponent(name.replace(/~/g, '~0').replace(/\//g, '~1'));
/** The names a local $ref (`#/components/responses/X`) walks through, unescaped. */
const refNames = (ref: string) =>
  ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));

/** The status key of `responses` that answers `status`: itself, its class (`4XX`), or `default`. */
function statusKey(responses: Node, status: number): string | undefined {
  const exact = String(status);
  const range = `${exact[0]}XX`;
  return [exact, range, range.toLowerCase(), 'default'].find((key) => key in responses);
}

/** The checks of one description (an OpenAPI document as `leanValidatorSpec` gives it). */
export class ResponseChecks {
  private readonly ajv: Ajv2020;
  private readonly document: Node;
  private readonly compiled = new Map<string, ValidateFunction | null>();

  constructor(document: Node) {
    this.document = document;
    this.ajv = new Ajv2020({
      strict: false,
      strictNumbers: true,
      strictTuples: true,
      allowUnionTypes: false,
      validateSchema: false,
      allErrors: false,
      validateFormats: true,
    });
    // The formats the request validator knows (ajv-formats' fast set), the database's date-time and uuid over them.
    for (const [name, format] of Object.entries(fastFormats)) this.ajv.addFormat(name, format);
    for (const [name, format] of Object.entries(strictFormats)) this.ajv.addFormat(name, format);
    this.ajv.addFormat('binary', true);
    // A write-only property (a secret sent to set it) never comes back.
    this.ajv.removeKeyword('writeOnly');
    this.ajv.addKeyword({
      keyword: 'writeOnly',
      schemaType: 'boolean',
      validate: (writeOnly: boolean, data: unknown) => !writeOnly || data === null || data === undefined,
    });
    this.ajv.addSchema(this.document, DOCUMENT);
  }

  /** What is wrong with answering `body` with `status` to `operation`, or undefined when the description allows it. */
  problem(operation: Answered, status: number, body: unknown): string | undefined {
    // A 5xx is the server's own failure (501 of a test's handler table, 503 at the deadline): sent as it is, as
    // express-openapi-validator did.
    if (status >= 500) return undefined;
    const where = `${operation.method.toUpperCase()} ${operation.path}`;
    const found = this.responseOf(operation, status);
    if (found === undefined) return `${where} describes no response ${status}`;
    const [pointer, response] = found;
    const content = isNode(response.content) ? response.content : undefined;
    if (!content || Object.keys(content).length === 0)
      return body === undefined ? undefined : `${where} ${status} is described without a body`;
    const media = isNode(content[JSON_TYPE]) ? content[JSON_TYPE] : undefined;
    // A JSON body for a response described in another type only: not a JSON schema's to say.
    if (!media || media.schema === undefined) return undefined;
    const validate = this.validatorAt(`${pointer}/content/${segment(JSON_TYPE)}/schema`);
    if (!validate) return `${where} ${status}: its schema cannot be compiled`;
    // What the client receives: the body as JSON (a Date becomes its ISO string, undefined properties go).
    const sent: unknown = body === undefined ? undefined : JSON.parse(JSON.stringify(body));
    if (validate(sent)) return undefined;
    return `${where} ${status}: ${this.ajv.errorsText(validate.errors, { dataVar: 'response' })}`;
  }

  /** The response object that answers `status` and its pointer in the document ($ref of components followed). */
  private responseOf(operation: Answered, status: number): [string, Node] | undefined {
    const paths = isNode(this.document.paths) ? this.document.paths : {};
    const item = paths[operation.path];
    const described = isNode(item) ? item[operation.method.toLowerCase()] : undefined;
    const responses = isNode(described) && isNode(described.responses) ? described.responses : undefined;
    if (!responses) return undefined;
    const key = statusKey(responses, status);
    if (key === undefined) return undefined;
    let pointer = `#/paths/${segment(operation.path)}/${operation.method.toLowerCase()}/responses/${segment(key)}`;
    let response = responses[key];
    while (isNode(response) && typeof response.$ref === 'string' && response.$ref.startsWith('#/')) {
      pointer = `#/${refNames(response.$ref).map(segment).join('/')}`;
      response = this.at(response.$ref);
    }
    return isNode(response) ? [pointer, response] : undefined;
  }

  /** The node a local $ref (`#/components/responses/X`) names. */
  private at(ref: string): unknown {
    let node: unknown = this.document;
    for (const name of refNames(ref)) node = isNode(node) ? node[name] : undefined;
    return node;
  }

  private validatorAt(pointer: string): ValidateFunction | undefined {
    let validate = this.compiled.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.getSchema(`${DOCUMENT}${pointer}`) ?? null;
      this.compiled.set(pointer, validate);
    }
    return validate ?? undefined;
  }
}

// One per description and process: the compiled schemas hold nothing of an app or a request (as ./validators.ts).
const checks = new Map<Description, ResponseChecks>();

const checksOf = (description: Description) => {
  let found = checks.get(description);
  if (!found) checks.set(description, (found = new ResponseChecks(leanValidatorSpec(description))));
  return found;
};

/** What is wrong with the answer, or undefined: the check itself, for tests. */
export function responseProblem(
  description: Description,
  operation: Answered,
  status: number,
  body: unknown,
): string | undefined {
  return checksOf(description).problem(operation, status, body);
}

/**
 * Checks the JSON body this response will send for `operation`: one that the description does not allow is not
 * sent; `answerDefect` answers instead (500 internal_error), with a ResponseContractError saying what is wrong.
 */
export function checkResponse(
  description: Description,
  operation: Answered,
  res: Response,
  answerDefect: (defect: ResponseContractError) => void,
): void {
  const described = checksOf(description);
  const send = res.json.bind(res);
  res.json = (body: unknown) => {
    // One check per response: the defect's own answer is sent as it is.
    res.json = send;
    const problem = described.problem(operation, res.statusCode, body);
    if (problem === undefined) return send(body);
    answerDefect(new ResponseContractError(problem));
    return res;
  };
}
