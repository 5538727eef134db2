// Spectral's `spectral:oas` ruleset ('all') on the bundled descriptions, run by `npm run lint:spec` beside redocly:
// what a partner's own linter says about the files they download. Rules are turned off or replaced only where
// they are wrong for OpenAPI 3.1, each with its reason below.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import spectralCore, { type ISpectralDiagnostic, type RulesetDefinition } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { DESCRIPTIONS } from './descriptions.js';
import { isObject } from './openapi.js';

const { Spectral, Document, Ruleset, createRulesetFunction } = spectralCore;

/**
 * `oas3-operation-security-defined` as OpenAPI 3.1 reads it: the scheme must be defined, and an oauth2 scope must
 * be one of its flows'; for other schemes (our bearer keys) 3.1 allows role names in the array (§4.8.30.1), which
 * spectral:oas reports as undefined scopes.
 */
const securityDefined = createRulesetFunction<Record<string, string[]>, null>(
  { input: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }, options: null },
  (input, _options, { document, path }) => {
    const data = document.data;
    const schemes = isObject(data) && isObject(data.components) ? data.components.securitySchemes : undefined;
    const problems: { message: string; path: (string | number)[] }[] = [];
    for (const [name, scopes] of Object.entries(input)) {
      const scheme = isObject(schemes) ? schemes[name] : undefined;
      if (!isObject(scheme)) {
        problems.push({ message: `"${name}" is not in components.securitySchemes.`, path: [...path, name] });
        continue;
      }
      if (scheme.type !== 'oauth2') continue;
      const flows = isObject(scheme.flows) ? Object.values(scheme.flows).filter(isObject) : [];
      scopes.forEach((scope, i) => {
        if (!flows.some((f) => isObject(f.scopes) && scope in f.scopes))
          problems.push({ message: `"${scope}" must be listed among the flows' scopes.`, path: [...path, name, i] });
      });
    }
    return problems;
  },
);

const RULESET: RulesetDefinition = {
  extends: [[oas as RulesetDefinition, 'all']],
  rules: {
    'oas3-operation-security-defined': {
      description: 'Security requirements name a defined scheme; 3.1 allows role names for non-oauth2 schemes.',
      severity: 'warn',
      given: ['$.security[*]', '$.paths[*][get,put,post,delete,options,head,patch,trace].security[*]'],
      then: { function: securityDefined },
    },
  },
  overrides: [
    {
      // WebhookEvent is referenced by nothing on purpose: it is the type receivers and generators that skip 3.1
      // `webhooks` narrow on (the webhooks reference each event body); a component library is valid in 3.1.
      files: ['**#/components/schemas/WebhookEvent'],
      rules: { 'oas3-unused-component': 'off' },
    },
  ],
};

export interface SpectralProblem {
  file: string;
  rule: string;
  severity: 'error' | 'warning' | 'info' | 'hint';
  path: string;
  line: number;
  message: string;
}

const SEVERITIES = ['error', 'warning', 'info', 'hint'] as const;

/** Runs spectral:oas on `files` (relative to `root` or absolute; the two bundled descriptions by default). */
export async function spectralLint(
  root: string,
  files: readonly string[] = DESCRIPTIONS.map((d) => d.yaml),
): Promise<SpectralProblem[]> {
  const spectral = new Spectral();
  // A ruleset with a source, so that its `overrides` (file globs) apply.
  spectral.setRuleset(new Ruleset(RULESET, { source: join(root, '.spectral.ts') }));
  const problems: SpectralProblem[] = [];
  for (const file of files) {
    const source = resolve(root, file);
    const results: ISpectralDiagnostic[] = await spectral.run(
      new Document(readFileSync(source, 'utf8'), Parsers.Yaml, source),
    );
    for (const r of results)
      problems.push({
        file,
        rule: String(r.code),
        severity: SEVERITIES[r.severity] ?? 'error',
        path: r.path.join('.'),
        line: r.range.start.line + 1,
        message: r.message,
      });
  }
  return problems;
}

/** One line per problem: file:line severity rule path message. */
export function formatSpectral(problems: readonly SpectralProblem[]): string {
  return problems.map((p) => `${p.file}:${p.line} ${p.severity} ${p.rule} at ${p.path}: ${p.message}`).join('\n');
}
