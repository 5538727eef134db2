// Every named example of both bundled descriptions, the public one and the vendor console's (request bodies, responses, parameters, headers, webhook bodies)
// validates against its schema with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) and ajv-formats.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin, { type FormatsPlugin } from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { deref, isObject, listOperations, type Json, type JsonObject } from '../scripts/lib/openapi.js';
import { adminBundledSpec, bundledSpec } from './helpers.js';

// ajv-formats is CommonJS (`module.exports = plugin`): under NodeNext its default import is the plugin itself.
const addFormats = addFormatsPlugin as unknown as FormatsPlugin;

/** The named examples of one bundled description, each checked against its schema. */
function describeExamples(label: string, doc: JsonObject, minimum: number): void {
  const SPEC_ID = `https://spec.local/${label}.json`;

  const unknownFormats = new Set<string>();
  const ajv = new Ajv2020({
    strict: false, // OpenAPI keywords (discriminator, xml, example, x-…) sit next to JSON Schema ones
    allErrors: true,
    validateSchema: false,
    logger: {
      log: () => {},
      warn: (message: unknown) => {
        const m = /unknown format "([^"]+)"/.exec(String(message));
        if (m) unknownFormats.add(m[1]!);
      },
      error: () => {},
    },
  });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: SPEC_ID }, SPEC_ID);

  const escape = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');
  const pointer = (...tokens: string[]) => tokens.map(escape).join('/');

  const validators = new Map<string, ValidateFunction>();
  function validatorAt(schemaPointer: string): ValidateFunction {
    let v = validators.get(schemaPointer);
    if (!v) {
      v = ajv.compile({ $ref: `${SPEC_ID}#/${schemaPointer}` });
      validators.set(schemaPointer, v);
    }
    return v;
  }

  interface ExampleCase {
    where: string;
    schemaPointer: string;
    value: Json;
  }

  /** Named examples (`examples`) and single ones (`example`) of an object holding a `schema`. */
  function examplesOf(holder: JsonObject, holderPointer: string, where: string): ExampleCase[] {
    if (holder.schema === undefined) return [];
    const cases: ExampleCase[] = [];
    const schemaPointer = `${holderPointer}/schema`;
    if (isObject(holder.examples)) {
      for (const [name, raw] of Object.entries(holder.examples)) {
        const example = deref<JsonObject>(doc, raw);
        if (isObject(example) && 'value' in example)
          cases.push({ where: `${where} example ${name}`, schemaPointer, value: example.value! });
      }
    }
    if ('example' in holder) cases.push({ where: `${where} example`, schemaPointer, value: holder.example! });
    return cases;
  }

  /** The JSON pointer of a node reached through `$ref`s: where the schema actually sits. */
  function refTarget(node: Json, fallback: string): { node: JsonObject; at: string } {
    let at = fallback;
    let current = node;
    while (isObject(current) && typeof current.$ref === 'string') {
      at = current.$ref.slice(2);
      current = deref(doc, { $ref: current.$ref });
    }
    return { node: current as JsonObject, at };
  }

  function contentCases(content: Json, at: string, where: string): ExampleCase[] {
    if (!isObject(content)) return [];
    return Object.entries(content).flatMap(([type, media]) =>
      isObject(media)
        ? examplesOf(media, `${at}/${pointer('content', type)}`.replace(/^\//, ''), `${where} ${type}`)
        : [],
    );
  }

  function collectCases(): ExampleCase[] {
    const cases: ExampleCase[] = [];
    for (const op of listOperations(doc)) {
      const opAt = pointer(op.section, op.key, op.method);
      const name = `${op.method.toUpperCase()} ${op.key}`;
      const params = [
        ...(Array.isArray(op.operation.parameters)
          ? op.operation.parameters.map((p, i) => [p, `${opAt}/parameters/${i}`] as const)
          : []),
        ...(Array.isArray(op.pathItem.parameters)
          ? op.pathItem.parameters.map((p, i) => [p, `${pointer(op.section, op.key)}/parameters/${i}`] as const)
          : []),
      ];
      for (const [raw, at] of params) {
        const { node, at: target } = refTarget(raw, at);
        cases.push(...examplesOf(node, target, `${name} parameter ${String(node.name)}`));
      }
      if (op.operation.requestBody !== undefined) {
        const { node, at } = refTarget(op.operation.requestBody, `${opAt}/requestBody`);
        cases.push(...contentCases(node.content ?? null, at, `${name} request`));
      }
      const responses = isObject(op.operation.responses) ? op.operation.responses : {};
      for (const [status, raw] of Object.entries(responses)) {
        const { node, at } = refTarget(raw, `${opAt}/${pointer('responses', status)}`);
        cases.push(...contentCases(node.content ?? null, at, `${name} ${status}`));
        const headers = isObject(node.headers) ? node.headers : {};
        for (const [header, rawHeader] of Object.entries(headers)) {
          const h = refTarget(rawHeader, `${at}/${pointer('headers', header)}`);
          cases.push(...examplesOf(h.node, h.at, `${name} ${status} header ${header}`));
        }
      }
    }
    // Deduplicate: a shared response or parameter is reached from many operations.
    const seen = new Set<string>();
    return cases.filter((c) => {
      const key = `${c.schemaPointer}|${JSON.stringify(c.value)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  const cases = collectCases();

  describe(`named examples of the ${label} description`, () => {
    it('exist for every request body, every response with a body and every event', () => {
      const missing: string[] = [];
      const needsExample = (content: Json, where: string) => {
        if (!isObject(content)) return;
        for (const [type, media] of Object.entries(content)) {
          if (!isObject(media) || media.schema === undefined) continue;
          // A binary body (the media download's file) has no JSON example to give.
          if (isObject(media.schema) && media.schema.format === 'binary') continue;
          const named = isObject(media.examples) && Object.keys(media.examples).length > 0;
          if (!named && !('example' in media)) missing.push(`${where} ${type}`);
        }
      };
      for (const op of listOperations(doc)) {
        const name = `${op.method.toUpperCase()} ${op.key}`;
        if (op.operation.requestBody !== undefined) {
          needsExample(refTarget(op.operation.requestBody, '').node.content ?? null, `${name} request`);
        }
        const responses = isObject(op.operation.responses) ? op.operation.responses : {};
        for (const [status, raw] of Object.entries(responses)) {
          needsExample(refTarget(raw, '').node.content ?? null, `${name} ${status}`);
        }
      }
      expect(missing).toEqual([]);
      expect(cases.length).toBeGreaterThan(minimum);
    });

    it('each validate against their schema', () => {
      const failures: string[] = [];
      for (const c of cases) {
        const validate = validatorAt(c.schemaPointer);
        if (!validate(c.value)) {
          const errors = (validate.errors ?? [])
            .slice(0, 5)
            .map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`)
            .join('; ');
          failures.push(`${c.where}: ${errors}`);
        }
      }
      expect(failures).toEqual([]);
    });

    it('use only known formats', () => {
      for (const c of cases) validatorAt(c.schemaPointer);
      expect([...unknownFormats]).toEqual([]);
    });
  });
}

describeExamples('public', bundledSpec(), 300);
describeExamples('admin', adminBundledSpec(), 80);
