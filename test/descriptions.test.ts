// Two descriptions come from spec/: the public API (generated/openapi.*, what partners get, served at
// GET /openapi.json) and the vendor console with the sandbox (generated/admin-openapi.*). The public one holds
// no admin path, operation or credential; the admin one nothing public; generated side by side by mistake,
// their operationIds never collide and their security schemes have different names.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isObject, listOperations, type JsonObject } from '../scripts/lib/openapi.js';
import { adminBundledSpec, bundledSpec } from './helpers.js';

const publicDoc = bundledSpec();
const adminDoc = adminBundledSpec();

const pathsOf = (doc: JsonObject) => Object.keys(isObject(doc.paths) ? doc.paths : {});
const operationIdsOf = (doc: JsonObject) => listOperations(doc).map((op) => String(op.operation.operationId));
const componentsOf = (doc: JsonObject, section: string): JsonObject => {
  const components = isObject(doc.components) ? doc.components : {};
  const found = components[section];
  return isObject(found) ? found : {};
};

describe('the public description', () => {
  it('has no /admin path: every path is under /v1, but the tracked links and the description itself', () => {
    const paths = pathsOf(publicDoc);
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((path) => path.startsWith('/admin'))).toEqual([]);
    expect(paths.filter((path) => !path.startsWith('/v1/') && !path.startsWith('/links/'))).toEqual(['/openapi.json']);
  });

  it('has no admin operation, tag or credential, and keeps the 3.1 webhooks', () => {
    expect(operationIdsOf(publicDoc).filter((id) => id.startsWith('admin'))).toEqual([]);
    const tags = Array.isArray(publicDoc.tags) ? publicDoc.tags : [];
    expect(tags.filter((tag) => isObject(tag) && ['Admin', 'Sandbox'].includes(String(tag.name)))).toEqual([]);
    expect(Object.keys(componentsOf(publicDoc, 'securitySchemes'))).toEqual(['ApiKey']);
    expect(Object.keys(componentsOf(publicDoc, 'schemas')).filter((name) => /^(Admin|Sandbox)/.test(name))).toEqual([]);
    expect(Object.keys(isObject(publicDoc.webhooks) ? publicDoc.webhooks : {}).length).toBeGreaterThanOrEqual(16);
  });
});

describe('the vendor console description', () => {
  it('is titled apart, holds only /admin/v1 paths and no webhooks', () => {
    expect(isObject(adminDoc.info) && adminDoc.info.title).toBe('Vendor console and sandbox');
    const paths = pathsOf(adminDoc);
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((path) => !path.startsWith('/admin/v1/'))).toEqual([]);
    expect(paths.some((path) => path.startsWith('/admin/v1/sandbox/'))).toBe(true);
    expect(adminDoc.webhooks).toBeUndefined();
  });

  it('names its own credential and prefixes every operationId with admin', () => {
    expect(Object.keys(componentsOf(adminDoc, 'securitySchemes'))).toEqual(['AdminToken']);
    expect(adminDoc.security).toEqual([{ AdminToken: [] }]);
    expect(operationIdsOf(adminDoc).filter((id) => !/^admin[A-Z]/.test(id))).toEqual([]);
  });
});

describe('both descriptions generated together', () => {
  it('share no operationId', () => {
    const publicIds = new Set(operationIdsOf(publicDoc));
    expect(operationIdsOf(adminDoc).filter((id) => publicIds.has(id))).toEqual([]);
  });

  it('give a component name in both the same definition (one source: spec/components)', () => {
    const differing: string[] = [];
    for (const section of ['schemas', 'parameters', 'responses', 'headers']) {
      const pub = componentsOf(publicDoc, section);
      for (const [name, value] of Object.entries(componentsOf(adminDoc, section)))
        if (name in pub && !isDeepStrictEqual(pub[name], value)) differing.push(`${section}/${name}`);
    }
    expect(differing).toEqual([]);
  });
});
