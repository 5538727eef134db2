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

/** A control with its label (by `for`, so the name is the label alone, not the control's value too). */
export function Field(props: { id: string; label: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
    </div>
  );
}
