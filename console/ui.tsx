// Small pieces the panes share: the API's refusal beside a form, and a labelled field.
import type { ComponentChildren } from 'preact';
import { ApiProblem, problemOf, type Problem } from './api.js';

export function toProblem(error: unknown): Problem {
  return error instanceof ApiProblem ? error.problem : problemOf(error);
}

/** The API's refusal: its `context.code` and message, announced to screen readers. */
export function ProblemNote({ problem }: { problem: Problem | undefined }) {
  if (!problem) return null;
  return (
    <p class="problem" role="alert">
      {problem.code && <code class="problem-code">{problem.code}</code>} {problem.message}
    </p>
  );
}

export function Field(props: { label: string; children: ComponentChildren }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      {props.children}
    </label>
  );
}
