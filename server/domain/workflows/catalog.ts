// The automation block catalog (generated/block-catalog.schema.json, built from spec/catalog/), compiled once
// with Ajv 2020 in strict mode (the API's `uuid` format added, all errors reported), and its failures mapped to
// validation codes with the table in the catalog's own `description`:
//   maxProperties → graph_too_large; propertyNames → node_id_invalid; no `root` / `root` of another type →
//   root_missing; `data.next` missing or its count → next_arity_invalid; randomizer options missing, their count
//   or a negative percentage → randomizer_options_invalid; multichannel mode missing → multichannel_mode_missing;
//   multichannel channels missing, their count, a connection_id missing or empty → multichannel_channels_invalid;
//   a condition without field_type, operator or a needed field_name → conditional_incomplete; an empty button
//   url → link_button_url_empty; anything else → schema_violation.
// The wrapper errors Ajv adds around the real one (`if` around a failed `then`, `propertyNames` around its
// keyword) are skipped. Which stage reports each code is ./validation.ts's business.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { catalogVersion } from '../../../generated/block-catalog.js';
import type { ValidationCode } from './validation-types.js';
import { isUuid, uuidPlaces } from '../../ids.js';
import { isRecord } from '../../guards.js';

function readCatalog(): Record<string, unknown> {
  const document: unknown = JSON.parse(
    readFileSync(new URL('../../../generated/block-catalog.schema.json', import.meta.url), 'utf8'),
  );
  if (!isRecord(document)) throw new Error('generated/block-catalog.schema.json is not a JSON object.');
  return document;
}

/** The catalog document served by GET /v1/workflow-graph-schema (`schema`). */
export const catalogDocument = readCatalog();

/** The `catalog_version` served with it. */
export { catalogVersion };

const ajv = new Ajv2020({ strict: true, allErrors: true });
// A block's ids in the API's one form (ajv-formats' `uuid` also takes a `urn:uuid:` prefix).
ajv.addFormat('uuid', { type: 'string', validate: isUuid });
const validateNodes = ajv.compile(catalogDocument);

/** Where a graph's blocks name ids (`format: uuid` in the catalog), from the nodes map. */
export const graphIdPlaces = uuidPlaces(catalogDocument, catalogDocument);

/** One catalog failure, as a validation item (`path` starts at `nodes`; `node_id` null for the whole graph). */
export interface CatalogIssue {
  code: ValidationCode;
  message: string;
  node_id: string | null;
  path: string;
}

const decode = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** A string parameter of an Ajv error (`missingProperty`, `additionalProperty`), if it has one. */
function paramOf(e: ErrorObject, name: string): string | undefined {
  const value: unknown = e.params[name];
  return typeof value === 'string' ? value : undefined;
}

/** `nodes.<id>.data.tags[0]` from the JSON pointer `/<id>/data/tags/0` (segments after the id). */
function pathOf(id: string, rest: string[]): string {
  let path = `nodes.${id}`;
  for (const segment of rest) path += /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`;
  return path;
}

/** The value at `rest` inside `node` (undefined when absent). */
function valueAt(node: unknown, rest: string[]): unknown {
  let value = node;
  for (const segment of rest) {
    if (!isRecord(value)) return undefined;
    value = value[segment];
  }
  return value;
}

function codeOf(e: ErrorObject, id: string, rest: string[], nodes: Record<string, unknown>): ValidationCode {
  const [first, field, index, sub, subIndex, leaf] = rest;
  const missing = e.keyword === 'required' ? paramOf(e, 'missingProperty') : undefined;
  const node = nodes[id];
  const type = isRecord(node) ? node.type : undefined;
  if (e.schemaPath.startsWith('#/allOf/0/properties/root/')) return 'root_missing';
  if (first !== 'data') return 'schema_violation';
  // data.next: missing, or its number of entries.
  if (rest.length === 1 && missing === 'next') return 'next_arity_invalid';
  if (field === 'next' && rest.length === 2 && (e.keyword === 'minItems' || e.keyword === 'maxItems')) {
    return 'next_arity_invalid';
  }
  if (type === 'randomizer') {
    if (rest.length === 1 && missing === 'options') return 'randomizer_options_invalid';
    if (field === 'options' && rest.length === 2 && (e.keyword === 'minItems' || e.keyword === 'maxItems')) {
      return 'randomizer_options_invalid';
    }
    if (field === 'options' && sub === 'percentage' && rest.length === 4 && e.keyword === 'minimum') {
      return 'randomizer_options_invalid';
    }
  }
  if (type === 'multichannel') {
    if (rest.length === 1 && missing === 'mode') return 'multichannel_mode_missing';
    if (rest.length === 1 && missing === 'channels') return 'multichannel_channels_invalid';
    if (field === 'channels' && rest.length === 2 && (e.keyword === 'minItems' || e.keyword === 'maxItems')) {
      return 'multichannel_channels_invalid';
    }
    if (field === 'channels' && rest.length === 3 && missing === 'connection_id')
      return 'multichannel_channels_invalid';
    if (field === 'channels' && sub === 'connection_id' && rest.length === 4 && e.keyword === 'minLength') {
      return 'multichannel_channels_invalid';
    }
  }
  if (type === 'conditional' && field === 'conditions' && rest.length === 3 && index !== undefined) {
    if (missing === 'field_type' || missing === 'operator' || missing === 'field_name') return 'conditional_incomplete';
  }
  // An empty button url (buttons: data.buttons.<i>.url; cards: data.cards.<c>.buttons.<b>.url).
  if (e.keyword === 'pattern' && valueAt(node, rest) === '') {
    if (type === 'buttons' && field === 'buttons' && sub === 'url' && rest.length === 4) return 'link_button_url_empty';
    if (type === 'cards' && field === 'cards' && sub === 'buttons' && subIndex !== undefined && leaf === 'url') {
      return 'link_button_url_empty';
    }
  }
  return 'schema_violation';
}

/**
 * The catalog failures of `nodes`, in the order Ajv reports them, one item per (code, path). An invalid id
 * gives one `node_id_invalid` at `nodes.<id>`; a missing or extra field is placed at the field itself.
 */
export function catalogIssues(nodes: unknown): CatalogIssue[] {
  if (validateNodes(nodes)) return [];
  const record = isRecord(nodes) ? nodes : {};
  const issues: CatalogIssue[] = [];
  const seen = new Set<string>();
  const add = (issue: CatalogIssue) => {
    const key = `${issue.code} ${issue.path}`;
    if (seen.has(key)) return;
    seen.add(key);
    issues.push(issue);
  };
  for (const e of validateNodes.errors ?? []) {
    if (e.keyword === 'if' || e.keyword === 'propertyNames') continue;
    if (e.propertyName !== undefined) {
      add({
        code: 'node_id_invalid',
        message: 'A block id must be lowercase letters and digits with single `_` between parts, up to 64 characters.',
        node_id: e.propertyName,
        path: `nodes.${e.propertyName}`,
      });
      continue;
    }
    const [id, ...rest] = e.instancePath === '' ? [] : e.instancePath.slice(1).split('/').map(decode);
    if (id === undefined) {
      if (e.keyword === 'maxProperties') {
        add({ code: 'graph_too_large', message: 'The graph has more than 500 blocks.', node_id: null, path: 'nodes' });
      } else if (e.keyword === 'required') {
        add({ code: 'root_missing', message: 'The graph has no `root` block.', node_id: null, path: 'nodes.root' });
      } else {
        add({ code: 'schema_violation', message: `nodes ${e.message ?? ''}`.trim(), node_id: null, path: 'nodes' });
      }
      continue;
    }
    const code = codeOf(e, id, rest, record);
    const missing = e.keyword === 'required' ? paramOf(e, 'missingProperty') : undefined;
    const extra = e.keyword === 'additionalProperties' ? paramOf(e, 'additionalProperty') : undefined;
    const at = missing ?? extra;
    const path = pathOf(id, at === undefined ? rest : [...rest, at]);
    if (code === 'root_missing') {
      add({ code, message: 'The `root` block must have type `root`.', node_id: null, path: 'nodes.root.type' });
      continue;
    }
    const message =
      missing !== undefined
        ? `${path} is missing.`
        : extra !== undefined
          ? `${path} is not a field of this block type.`
          : `${path} ${e.message ?? 'is invalid'}.`;
    add({ code, message, node_id: id, path });
  }
  return issues;
}
