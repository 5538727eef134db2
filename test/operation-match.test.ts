// One lookup finds a request's operation as Express's router did (server/http/operation-match.ts).
import { describe, expect, it } from 'vitest';
import { operations } from '../generated/operations.js';
import { operationMatcher } from '../server/http/operation-match.js';

const table = Object.entries(operations).map(([id, info]) => ({ ...info, id }));
const find = operationMatcher(table);
const idOf = (method: string, path: string) => find(method, path)?.operation.id;

describe('operation matching', () => {
  it('finds literal paths and templates, with their decoded parameters', () => {
    expect(idOf('GET', '/v1/me')).toBe('getMe');
    expect(find('GET', '/v1/contacts/abc%20d')).toEqual({
      operation: expect.objectContaining({ id: 'getContact' }),
      params: { contactId: 'abc d' },
    });
    expect(find('DELETE', '/v1/contacts/c1/tags/t1')?.params).toEqual({ contactId: 'c1', tagId: 't1' });
  });

  it('prefers a literal segment to a parameter', () => {
    expect(idOf('POST', '/v1/workflows/validate')).toBe('validateWorkflowDefinition');
    expect(idOf('GET', '/v1/workflows/w1')).toBe('getWorkflow');
  });

  it('follows Express: any case, one trailing slash, HEAD as GET; other methods and paths match nothing', () => {
    expect(idOf('GET', '/V1/ME')).toBe('getMe');
    expect(idOf('GET', '/v1/me/')).toBe('getMe');
    expect(idOf('HEAD', '/v1/me')).toBe('getMe');
    expect(idOf('GET', '/V1/Contacts/x/')).toBe('getContact');
    expect(find('PUT', '/v1/me')).toBeUndefined();
    expect(find('GET', '/v1/nothing')).toBeUndefined();
    expect(find('GET', '/v1/contacts/a/b/c/d')).toBeUndefined();
  });

  it('refuses a parameter that is not valid percent-encoding as Express does (a 400)', () => {
    expect(() => find('GET', '/v1/contacts/%E0%A4%A')).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringMatching(/decode param/) }),
    );
  });
});
