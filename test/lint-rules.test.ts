// Each rule of redocly.yaml fires: a copy of spec/ is broken in one place per rule, and lint must name the
// rule. (The real spec passing every rule is test/spec-lint.test.ts.)
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { lintProblems, type LintProblem } from '../scripts/lib/redocly.js';
import { repoRoot } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'lint-rules-'));
let problems: LintProblem[] = [];

/** Edits one YAML file of the copy. */
function edit(file: string, change: (doc: ReturnType<typeof parseDocument>) => void): void {
  const path = join(work, 'spec', file);
  const doc = parseDocument(readFileSync(path, 'utf8'));
  change(doc);
  writeFileSync(path, doc.toString());
}

beforeAll(async () => {
  cpSync(join(repoRoot, 'spec'), join(work, 'spec'), { recursive: true });
  edit('paths/v1_tags.yaml', (d) => {
    d.deleteIn(['get', 'responses', '429']); // rule/operation-common-responses
    d.deleteIn(['post', 'responses', '201', 'headers', 'RateLimit-Reset']); // rule/success-response-headers
    d.setIn(['post', 'operationId'], 'tagsCreate'); // rule/route-operation-id-style
    d.setIn(['post', 'responses', '409'], { description: 'Conflict.' }); // engagement/json-error-envelope
  });
  edit('paths/v1_me.yaml', (d) => {
    d.setIn(['get', 'x-rate-kind'], 'fast'); // engagement/rate-limits: a kind not in x-rate-limits
    d.deleteIn(['get', 'x-idempotency']); // rule/operation-idempotency
    d.deleteIn(['get', 'security']); // rule/operation-security
  });
  edit('paths/v1_conversations_{conversationId}_messages.yaml', (d) => {
    d.setIn(['post', 'x-idempotency'], 'optional'); // engagement/idempotency-header (the key is required)
  });
  edit('paths/v1_tags_{tagId}.yaml', (d) => {
    d.deleteIn(['patch', 'responses', '200', 'headers', 'Idempotent-Replayed']); // engagement/idempotent-replayed-header
    d.deleteIn(['patch', 'responses', '413']); // engagement/payload-too-large
  });
  edit('paths/v1_webhooks_{webhookId}_test.yaml', (d) => {
    // engagement/idempotent-replayed-header: a route that takes no key never replays.
    d.setIn(['post', 'responses', '200', 'headers', 'Idempotent-Replayed'], {
      $ref: '../components/headers/IdempotentReplayed.yaml',
    });
  });
  edit('paths/v1_workflows_{workflowId}.yaml', (d) => {
    d.deleteIn(['get', 'responses', '200', 'headers', 'ETag']); // engagement/workflow-etag
  });
  edit('paths/admin_v1_accounts.yaml', (d) => {
    d.deleteIn(['post', 'responses', '401']); // rule/admin-common-responses
    d.deleteIn(['post', 'responses', '201', 'headers', 'Cache-Control']); // rule/admin-success-headers
    d.setIn(['post', 'operationId'], 'createAccount'); // rule/admin-operation-id-style: no `admin` prefix
  });
  edit('paths/admin_v1_keys_{keyId}.yaml', (d) => {
    d.setIn(['delete', 'security'], [{ ApiKey: ['contacts:read'] }]); // engagement/security-scheme
  });
  // engagement/security-scheme: an admin path in the public description.
  edit('openapi.yaml', (d) => {
    d.setIn(['paths', '/admin/v1/accounts/{accountId}'], { $ref: 'paths/admin_v1_accounts_{accountId}.yaml' });
  });
  edit('webhooks/contact.tagged.yaml', (d) => {
    d.setIn(['post', 'operationId'], 'contactTagged'); // rule/webhook-operation-id-style
  });
  edit('paths/v1_contacts.yaml', (d) => {
    d.deleteIn(['get', 'x-rate-kind']); // engagement/rate-limits: no kind
  });
  edit('paths/v1_media_{mediaId}_content.yaml', (d) => {
    d.deleteIn(['get', 'responses', '302', 'headers', 'Location']); // rule/media-redirect-headers
  });
  // engagement/rate-limits: the prose disagrees with the table (send 20 and one-minute windows there).
  const root = join(work, 'spec/openapi.yaml');
  const text = readFileSync(root, 'utf8');
  writeFileSync(root, text.replace('**send** 20', '**send** 25').replace('one-minute windows', 'two-minute windows'));
  edit('components/responses/RateLimited.yaml', (d) => {
    d.deleteIn(['headers', 'Retry-After']); // rule/rate-limited-headers
  });
  edit('components/examples/errors/NotFoundError.yaml', (d) => {
    d.setIn(['value', 'context', 'code'], 404); // no-invalid-media-type-examples
  });
  problems = [
    ...(await lintProblems(repoRoot, join(work, 'spec/openapi.yaml'))),
    ...(await lintProblems(repoRoot, join(work, 'spec/admin.yaml'))),
  ];
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('lint rules', () => {
  it.each([
    'rule/operation-common-responses',
    'rule/success-response-headers',
    'rule/media-redirect-headers',
    'rule/rate-limited-headers',
    'rule/route-operation-id-style',
    'rule/webhook-operation-id-style',
    'engagement/rate-limits',
    'rule/operation-idempotency',
    'rule/operation-security',
    'engagement/idempotency-header',
    'engagement/idempotent-replayed-header',
    'engagement/payload-too-large',
    'engagement/workflow-etag',
    'engagement/json-error-envelope',
    'no-invalid-media-type-examples',
    'rule/admin-common-responses',
    'rule/admin-success-headers',
    'rule/admin-operation-id-style',
    'engagement/security-scheme',
  ])('%s fires on a broken copy of the spec', (rule) => {
    expect(problems.map((p) => p.ruleId)).toContain(rule);
  });

  it('asks Idempotent-Replayed where a key can replay an answer and nowhere else, and a 413 where a body goes', () => {
    const found = (rule: string) =>
      problems
        .filter((p) => p.ruleId === rule)
        .map((p) => `${p.location[0]?.source.ref.split('/').pop()} ${p.location[0]?.pointer}`);
    expect(found('engagement/idempotent-replayed-header')).toEqual(
      expect.arrayContaining([
        'v1_tags_{tagId}.yaml #/patch/responses/200',
        'v1_webhooks_{webhookId}_test.yaml #/post/responses/200',
      ]),
    );
    expect(found('engagement/payload-too-large')).toEqual(['v1_tags_{tagId}.yaml #/patch/responses']);
  });

  it('keeps each API in its own description with its own credential (engagement/security-scheme)', () => {
    const found = problems.filter((p) => p.ruleId === 'engagement/security-scheme').map((p) => p.message);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/admin\/v1\/accounts\/\{accountId\} is an admin path in the public description/),
        'An admin route declares `security: [{AdminToken: []}]` and nothing else.',
      ]),
    );
  });

  it('checks every route and the prose against the one rate-limit table (x-rate-limits)', () => {
    const found = problems
      .filter((p) => p.ruleId === 'engagement/rate-limits')
      .map((p) => `${p.location[0]?.source.ref.split('/').pop()} ${p.location[0]?.pointer}: ${p.message}`);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^v1_me\.yaml #\/get\/x-rate-kind: .*read, write, send/),
        expect.stringMatching(/^v1_contacts\.yaml #\/get: /),
        expect.stringMatching(/^openapi\.yaml #\/info\/description: .*\*\*send\*\* 25 .* send: 20/),
        expect.stringMatching(/^openapi\.yaml #\/info\/description: .*two-minute windows .* 60/),
      ]),
    );
    expect(found).toHaveLength(4);
  });

  it('reports the route rules on routes only, never on webhooks', () => {
    const routeRules = problems.filter((p) => p.ruleId === 'rule/route-operation-id-style');
    expect(routeRules.length).toBe(1); // tagsCreate (an admin route's id has its own rule, rule/admin-operation-id-style)
    expect(routeRules.every((p) => p.location.every((l) => !l.source.ref.includes('/webhooks/')))).toBe(true);
  });

  it('asks the public-API things (scopes, rate limits, idempotency, 403/429) of /v1 routes only', () => {
    const publicRules = [
      'rule/operation-common-responses',
      'rule/success-response-headers',
      'rule/rate-limited-headers',
      'engagement/rate-limits',
      'rule/operation-idempotency',
      'rule/operation-security',
    ];
    const onAdmin = problems.filter(
      (p) => publicRules.includes(p.ruleId) && p.location.some((l) => l.source.ref.includes('/paths/admin_v1')),
    );
    expect(onAdmin).toEqual([]);
    const adminRules = problems.filter((p) => p.ruleId.startsWith('rule/admin-'));
    expect(adminRules.every((p) => p.location.every((l) => l.source.ref.includes('/paths/admin_v1')))).toBe(true);
  });
});
