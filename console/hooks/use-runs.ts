// What the runs pane shows, for the contact played: the runs (use-run-list.ts), the steps and versions of those
// shown or not ended (use-run-details.ts), the run selected and the ones expanded, kept live by the account's
// events (use-run-events.ts). The first reads wait for the chat's (its page is the one the user waits for).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Problem, Schemas } from '../api.js';
import type { Player, Session } from '../session.js';
import { toProblem } from '../ui.js';
import { useLatest } from './use-latest.js';
import { useRunDetails } from './use-run-details.js';
import { useRunEvents } from './use-run-events.js';
import { useRunList } from './use-run-list.js';

type Summary = Schemas['WorkflowRunSummary'];
type Run = Schemas['WorkflowRun'];
type Started = Schemas['WorkflowRunStarted'];

/** The statuses a run does not leave. */
export const ENDED = new Set(['completed', 'stopped', 'blocked', 'failed']);

function summaryOf(run: Run): Summary {
  const { steps: _steps, steps_truncated: _truncated, ...summary } = run;
  return summary;
}

/** `set` with `id` in it (`present`) or not, as a new set. */
function withOrWithout(set: Set<string>, id: string, present: boolean): Set<string> {
  const next = new Set(set);
  if (present) next.add(id);
  else next.delete(id);
  return next;
}

/**
 * For each message a run's buttons or cards step sent (of the runs read in detail): whether a tap on it still
 * answers that run (the step still waits and the run has not ended). A message no step names is not in the map
 * (unknown: its run is not read yet).
 */
export function answeringButtons(runs: Summary[], details: Record<string, Run | undefined>): Record<string, boolean> {
  const answering: Record<string, boolean> = {};
  for (const summary of runs) {
    const run = details[summary.id];
    if (!run) continue;
    const ended = ENDED.has(summary.status) || ENDED.has(run.status);
    for (const step of run.steps)
      if (step.message_id && (step.type === 'buttons' || step.type === 'cards'))
        answering[step.message_id] = !ended && step.status === 'waiting';
  }
  return answering;
}

export function useRuns(session: Session, player: Player | undefined, chatRead: boolean) {
  const contactId = player?.contactId;
  const connectionId = player?.connection.id;
  const [problem, setProblem] = useState<Problem | undefined>();
  const list = useRunList(session.api, { contactId, connectionId }, setProblem);
  const details = useRunDetails(session.api);
  const [selected, setSelected] = useState<string | undefined>();
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const latest = useLatest({ runs: list.runs, refresh: list.refresh, readDetails: details.readDetails });
  /** Counts the bursts of the contact's messages: a forced read is asked once per burst. */
  const burst = useRef(0);
  const reportProblem = (error: unknown) => setProblem(toProblem(error));

  // Another contact: start over, and read once the chat has its page.
  useEffect(() => {
    list.clear();
    details.clear();
    setSelected(undefined);
    setExpanded(new Set());
    setProblem(undefined);
  }, [contactId, connectionId]);
  useEffect(() => {
    if (chatRead) void list.refresh();
  }, [contactId, connectionId, chatRead]);

  const settleThen = useRunEvents(session, {
    contactId,
    onRun: (run) => {
      details.keep(run);
      list.upsertRuns([summaryOf(run)]);
      list.dropStarted(run.id);
    },
    // A message either way may have moved a run (or started one): read the first pages, and the runs not ended
    // again even if their `updated_at` did not move (the sandbox clock may stand still).
    onSettled: () => {
      burst.current += 1;
      void latest.current.refresh();
      const open = latest.current.runs.filter((r) => !ENDED.has(r.status));
      void latest.current.readDetails(open, burst.current).catch(reportProblem);
    },
  });

  const shownId = selected ?? list.runs[0]?.id;
  // The steps (and the version's graph) of the runs shown or not ended, read again when the list says they moved.
  useEffect(() => {
    const wanted = list.runs.filter((r) => !ENDED.has(r.status) || r.id === shownId || expanded.has(r.id));
    if (wanted.some((r) => details.details[r.id]?.updated_at !== r.updated_at))
      void details.readDetails(wanted).catch(reportProblem);
  }, [shownId, expanded, list.runs]);

  const expand = (runId: string, open: boolean) => setExpanded((old) => withOrWithout(old, runId, open));
  /** A run started here: listed as queued until a list shows it, the next read soon. */
  const onStarted = (run: Started) => {
    list.addStarted(run);
    setSelected(undefined);
    settleThen(() => void latest.current.refresh());
  };
  const { workflows, runs, started, hasMore, refresh, more } = list;
  const { details: read, versions } = details;
  const answering = useMemo(() => answeringButtons(runs, read), [runs, read]);
  return {
    answering,
    problem,
    workflows,
    runs,
    started,
    hasMore,
    refresh,
    more,
    details: read,
    versions,
    shownId,
    setSelected,
    expand,
    onStarted,
  };
}
