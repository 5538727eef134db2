// The invoke block's request as rendered (server/engine/blocks/invoke/evaluate.ts): a contact's text is data wherever
// it lands (issue 33; docs/security.md). A variable cannot add a header (control characters become spaces), cannot
// become a secret reference (one pass), cannot break out of a JSON string; a header name that is not an HTTP token
// fails the block; the headers the service sets itself are dropped.
import { describe, expect, it } from 'vitest';
import type { BlockData } from '../generated/block-catalog.js';
import { renderRequest } from '../server/engine/blocks/invoke/evaluate.js';

const contact: Record<string, string> = {
  evil: 'x\r\nX-Injected: 1\u0000',
  sneaky: '{secret.token}',
  quote: '", "admin": true, "x": "',
};
const lookup = (name: string) => contact[name];
const block = (data: Partial<BlockData<'invoke'>>): BlockData<'invoke'> => ({
  method: 'POST',
  endpoint: 'https://crm.example/hook',
  next: [null, null],
  ...data,
});

describe('the invoke request: a contact’s text is data', () => {
  it('a variable with CR LF in a header value adds no header: each control character becomes a space', () => {
    const rendered = renderRequest(block({ headers: [{ name: 'X-Lead', value: 'lead {evil}' }] }), 'inv', lookup);
    expect(rendered).toMatchObject({ ok: true });
    if (!rendered.ok) return;
    expect(rendered.request.headers).toEqual([{ name: 'X-Lead', value: ['lead x  X-Injected: 1 '] }]);
  });

  it('a variable whose value looks like a secret reference stays text (one pass)', () => {
    const rendered = renderRequest(block({ data: '{"note": "{sneaky}", "auth": "{secret.token}"}' }), 'inv', lookup);
    if (!rendered.ok) throw new Error('not rendered');
    expect(rendered.request.body).toEqual(['{"note": "{secret.token}", "auth": "', { secret: 'token' }, '"}']);
  });

  it('a variable cannot leave its JSON string', () => {
    const rendered = renderRequest(block({ data: '{"name": "{quote}"}' }), 'inv', lookup);
    if (!rendered.ok) throw new Error('not rendered');
    const body = rendered.request.body?.join('') ?? '';
    expect(JSON.parse(body)).toEqual({ name: contact.quote });
  });

  it('a header name that is not an HTTP token fails the block; the service’s own headers are dropped', () => {
    expect(renderRequest(block({ headers: [{ name: 'X Bad', value: '1' }] }), 'inv', lookup)).toMatchObject({
      ok: false,
      code: 'invalid_header',
    });
    const rendered = renderRequest(
      block({
        headers: [
          { name: 'Host', value: 'internal' },
          { name: 'Transfer-Encoding', value: 'chunked' },
          { name: 'X-Ok', value: '1' },
        ],
      }),
      'inv',
      lookup,
    );
    if (!rendered.ok) throw new Error('not rendered');
    expect(rendered.request.headers.map((h) => h.name)).toEqual(['X-Ok']);
  });

  it('an endpoint that is not http or https is refused', () => {
    for (const endpoint of ['file:///etc/passwd', 'javascript:alert(1)', 'gopher://x', '{evil}'])
      expect(renderRequest(block({ endpoint }), 'inv', lookup)).toMatchObject({ ok: false, code: 'invalid_endpoint' });
  });
});
