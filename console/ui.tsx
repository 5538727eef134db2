// Small pieces the panes share: the API's refusal beside a form, a form's action, a labelled field, and a select
// of a fixed set of choices.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
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

/**
 * A form's action: `busy` while it runs (its button disabled), and the API's refusal kept to show beside the form
 * (ProblemNote); a new run clears the last one. `setProblem`: a refusal of a read of the same pane.
 */
export function useAction() {
  const [problem, setProblem] = useState<Problem | undefined>();
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<void>) => {
    setProblem(undefined);
    setBusy(true);
    try {
      await work();
    } catch (error) {
      setProblem(toProblem(error));
    } finally {
      setBusy(false);
    }
  };
  return { problem, setProblem, busy, run };
}

/** A select of a fixed set of choices (value → label): only one of them reaches `onChoose`, typed. */
export function ChoiceSelect<T extends string>(props: {
  id: string;
  value: T;
  choices: Readonly<Record<T, string>>;
  onChoose: (value: T) => void;
}) {
  const isChoice = (value: string): value is T => Object.hasOwn(props.choices, value);
  return (
    <select
      id={props.id}
      value={props.value}
      onChange={(e) => {
        const value = e.currentTarget.value;
        if (isChoice(value)) props.onChoose(value);
      }}
    >
      {Object.entries<string>(props.choices).map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
    </select>
  );
}
