// "Runs": the chosen contact's automation runs (status, the block each waits at and until when, its steps), the
// selected run's automation drawn as a graph with its path and current block marked, and a form that starts a
// run for the contact. The public API has no list of a contact's runs across automations, so the pane lists the
// runs of each automation of the contact's connection with `contact_id` and merges them, newest first; "More
// runs" reads the next page of every automation that has one. Live: a `workflow_run.*` event of the contact
// carries the run itself; a message to or from the contact means a run may have moved, and the pane reads the
// lists' first pages again (once per burst of events). No polling loop.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ok, type Problem, type Schemas } from '../api.js';
import type { Player, Session } from '../session.js';
import { duration, edgeKey, layoutGraph, runPath, type Box, type RunPath } from '../graph.js';
import type { LiveEvent } from '../live.js';
import { Field, ProblemNote, toProblem, useAction } from '../ui.js';

type Workflow = Schemas['WorkflowSummary'];
type Summary = Schemas['WorkflowRunSummary'];
type Run = Schemas['WorkflowRun'];
type Version = Schemas['WorkflowVersion'];
type Started = Schemas['WorkflowRunStarted'];

const PAGE = 10;
const ENDED = new Set(['completed', 'stopped', 'blocked', 'failed']);
/** How long a question, buttons or cards wait for the contact at most (the step's `wait_expired`). */
const WAIT_LIMIT_DAYS = 90;
/** Events of a burst within this many milliseconds make one read. */
const SETTLE_MS = 250;

const newestFirst = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1;

function summaryOf(run: Run): Summary {
  const { steps: _steps, steps_truncated: _truncated, ...summary } = run;
  return summary;
}

function isRun(data: unknown): data is Run {
  return typeof data === 'object' && data !== null && 'workflow_id' in data && 'steps' in data && 'status' in data;
}

function contactOf(event: LiveEvent): string | undefined {
  const data = event.data;
  if (typeof data !== 'object' || data === null || !('contact_id' in data)) return undefined;
  return typeof data.contact_id === 'string' ? data.contact_id : undefined;
}

const when = (iso: string) => new Date(iso).toLocaleString();

/** Where a run that has not ended is, and until when it waits there, from its last step and the block's data. */
function waitOf(run: Run, version: Version | undefined): { at: string; until: string } | undefined {
  const path = runPath(run);
  if (!path.current) return undefined;
  const block = version?.graph.nodes[path.current.id];
  const step = [...run.steps].reverse().find((s) => s.node_id === path.current?.id);
  const at = `${path.current.id}${block ? ` (${block.type})` : ''}`;
  if (!step) return { at, until: '' };
  const started = new Date(step.started_at).getTime();
  if (block?.type === 'sleep' && typeof block.data.seconds === 'number')
    return {
      at,
      until: `${when(new Date(started + block.data.seconds * 1000).toISOString())} (a ${duration(block.data.seconds)} sleep)`,
    };
  if (path.current.status === 'waiting')
    return {
      at,
      until: `the contact answers, at most until ${when(new Date(started + WAIT_LIMIT_DAYS * 86_400_000).toISOString())}`,
    };
  return { at, until: 'it finishes its work' };
}

export function RunsPane(props: {
  session: Session;
  player: Player | undefined;
  /** The chat has shown the contact's newest page: the pane's first reads wait for it (the page comes first). */
  chatRead: boolean;
}) {
  const { api } = props.session;
  const contactId = props.player?.contactId;
  const connectionId = props.player?.connection.id;
  const [workflows, setWorkflows] = useState<Workflow[]>([]);
  const [runs, setRuns] = useState<Summary[]>([]);
  const [cursors, setCursors] = useState<Record<string, string | null>>({});
  const [details, setDetails] = useState<Record<string, Run>>({});
  const [versions, setVersions] = useState<Record<string, Version>>({});
  const [selected, setSelected] = useState<string | undefined>();
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [started, setStarted] = useState<Started[]>([]);
  const [problem, setProblem] = useState<Problem | undefined>();

  // What async reads see now (a ref, so a read started before a change does not write stale state).
  const now = useRef({ contactId, runs, details, versions, selected, expanded, cursors });
  now.current = { contactId, runs, details, versions, selected, expanded, cursors };

  const upsertRuns = (list: Summary[]) =>
    setRuns((old) => {
      const byId = new Map(old.map((r) => [r.id, r]));
      for (const r of list) byId.set(r.id, r);
      return [...byId.values()].sort(newestFirst);
    });

  /** Reads already asked for (run id @ updated_at, version id), so overlapping renders ask once. */
  const reading = useRef(new Set<string>());
  /**
   * Reads the runs of `list` whose read copy is older than the list says (the pane asks for those it shows, the
   * selected and expanded ones, and those that have not ended: where they wait), then the versions they follow.
   */
  /** Counts the bursts of the contact's messages: a forced read is asked once per burst. */
  const burst = useRef(0);
  const readDetails = async (list: Summary[], force = false) => {
    const { details: known, versions: have } = now.current;
    const key = (r: Summary) => `${r.id}@${r.updated_at}${force ? `#${burst.current}` : ''}`;
    const wanted = list.filter(
      (r) => (force || known[r.id]?.updated_at !== r.updated_at) && !reading.current.has(key(r)),
    );
    const keys = wanted.map(key);
    for (const key of keys) reading.current.add(key);
    const read = await Promise.all(
      wanted.map(async (r) =>
        ok(
          await api.GET('/v1/workflows/{workflowId}/runs/{runId}', {
            params: { path: { workflowId: r.workflow_id, runId: r.id } },
          }),
        ),
      ),
    ).catch((error: unknown) => {
      for (const key of keys) reading.current.delete(key); // asked again at the next change
      throw error;
    });
    setDetails((old) => ({ ...old, ...Object.fromEntries(read.map((r) => [r.id, r])) }));
    const missing = [...new Set(read.map((r) => `${r.workflow_id}/${r.version_id}`))].filter((k) => {
      const versionId = k.split('/')[1] ?? '';
      if (have[versionId] || reading.current.has(versionId)) return false;
      reading.current.add(versionId);
      return true;
    });
    const fetched = await Promise.all(
      missing.map(async (k) => {
        const [workflowId = '', versionId = ''] = k.split('/');
        return ok(
          await api.GET('/v1/workflows/{workflowId}/versions/{versionId}', {
            params: { path: { workflowId, versionId } },
          }),
        );
      }),
    ).catch((error: unknown) => {
      for (const k of missing) reading.current.delete(k.split('/')[1] ?? '');
      throw error;
    });
    if (fetched.length) setVersions((old) => ({ ...old, ...Object.fromEntries(fetched.map((v) => [v.id, v])) }));
  };

  const asked = useRef(0);
  /** The automations of the connection and the first page of each one's runs for the contact. */
  const refresh = async () => {
    if (!contactId || !connectionId) return;
    const ask = ++asked.current;
    try {
      const listed: Workflow[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 5; page++) {
        const answer = ok(
          await api.GET('/v1/workflows', {
            params: { query: { connection_id: connectionId, limit: 100, ...(cursor ? { cursor } : {}) } },
          }),
        );
        listed.push(...answer.data);
        if (!answer.next_cursor) break;
        cursor = answer.next_cursor;
      }
      const pages = await Promise.all(
        listed.map(async (w) => ({
          workflowId: w.id,
          page: ok(
            await api.GET('/v1/workflows/{workflowId}/runs', {
              params: { path: { workflowId: w.id }, query: { contact_id: contactId, limit: PAGE } },
            }),
          ),
        })),
      );
      if (ask !== asked.current) return; // a later read answers for now
      setWorkflows(listed);
      const first = pages.flatMap((p) => p.page.data);
      upsertRuns(first);
      // A page read deeper with "More runs" keeps its cursor; an automation seen for the first time gets one.
      setCursors((old) => ({
        ...Object.fromEntries(pages.map((p) => [p.workflowId, p.page.next_cursor])),
        ...Object.fromEntries(Object.entries(old).filter(([id]) => pages.some((p) => p.workflowId === id))),
      }));
      setStarted((list) => list.filter((s) => !first.some((r) => r.id === s.id)));
    } catch (error) {
      setProblem(toProblem(error));
    }
  };

  const more = async () => {
    if (!contactId) return;
    try {
      const open = Object.entries(now.current.cursors).filter((e): e is [string, string] => typeof e[1] === 'string');
      const pages = await Promise.all(
        open.map(async ([workflowId, cursor]) => ({
          workflowId,
          page: ok(
            await api.GET('/v1/workflows/{workflowId}/runs', {
              params: { path: { workflowId }, query: { contact_id: contactId, limit: PAGE, cursor } },
            }),
          ),
        })),
      );
      upsertRuns(pages.flatMap((p) => p.page.data));
      setCursors((old) => ({ ...old, ...Object.fromEntries(pages.map((p) => [p.workflowId, p.page.next_cursor])) }));
    } catch (error) {
      setProblem(toProblem(error));
    }
  };

  // Another contact: start over, and read once the chat has its page.
  useEffect(() => {
    setRuns([]);
    setCursors({});
    setDetails({});
    setSelected(undefined);
    setExpanded(new Set());
    setStarted([]);
    setProblem(undefined);
  }, [contactId, connectionId]);
  useEffect(() => {
    if (props.chatRead) void refresh();
  }, [contactId, connectionId, props.chatRead]);

  // Live, one subscription for the pane (the contact read through the ref).
  const settle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const refreshNow = useRef(refresh);
  refreshNow.current = refresh;
  const readDetailsNow = useRef(readDetails);
  readDetailsNow.current = readDetails;
  useEffect(() => {
    const stop = props.session.subscribe((event) => {
      const contact = now.current.contactId;
      if (!contact || contactOf(event) !== contact) return;
      if (event.type.startsWith('workflow_run.') && isRun(event.data)) {
        const run = event.data;
        setDetails((old) => ({ ...old, [run.id]: run }));
        upsertRuns([summaryOf(run)]);
        setStarted((list) => list.filter((s) => s.id !== run.id));
      }
      // A message either way may have moved a run (or started one): read the first pages once the burst settles,
      // and the runs not ended again even if their `updated_at` did not move (the sandbox clock may stand still).
      clearTimeout(settle.current);
      settle.current = setTimeout(() => {
        burst.current += 1;
        void refreshNow.current();
        const open = now.current.runs.filter((r) => !ENDED.has(r.status));
        void readDetailsNow.current(open, true).catch((error: unknown) => setProblem(toProblem(error)));
      }, SETTLE_MS);
    });
    return () => {
      stop();
      clearTimeout(settle.current);
    };
  }, [props.session]);

  const shownId = selected ?? runs[0]?.id;
  // The steps (and the version's graph) of the runs shown or not ended, read again when the list says they moved.
  useEffect(() => {
    const wanted = runs.filter((r) => !ENDED.has(r.status) || r.id === shownId || expanded.has(r.id));
    if (wanted.some((r) => details[r.id]?.updated_at !== r.updated_at))
      void readDetails(wanted).catch((error: unknown) => setProblem(toProblem(error)));
  }, [shownId, expanded, runs]);

  const titleOf = (workflowId: string) => workflows.find((w) => w.id === workflowId)?.title ?? workflowId;

  if (!props.player || !contactId || !connectionId)
    return (
      <section class="pane runs" aria-labelledby="runs-title">
        <h2 id="runs-title">Runs</h2>
        <p class="note">
          Choose a contact who has written (or one made by phone) to see and start their automation runs.
        </p>
      </section>
    );

  const shown = shownId ? details[shownId] : undefined;
  const hasMore = Object.values(cursors).some((c) => typeof c === 'string');

  return (
    <section class="pane runs" aria-labelledby="runs-title">
      <h2 id="runs-title">Runs of {props.player.name}</h2>
      <StartRun
        session={props.session}
        contactId={contactId}
        workflows={workflows}
        onStarted={(run) => {
          setStarted((list) => [run, ...list]);
          setSelected(undefined);
          clearTimeout(settle.current);
          settle.current = setTimeout(() => void refreshNow.current(), SETTLE_MS);
        }}
      />
      <button type="button" class="secondary" onClick={() => void refresh()}>
        Reload runs
      </button>
      <ProblemNote problem={problem} />
      <div class="runs-body">
        <div class="runs-list-column">
          {runs.length === 0 && started.length === 0 ? (
            <p class="note">No runs for this contact yet.</p>
          ) : (
            <ul class="run-list" aria-label="Runs">
              {started.map((s) => (
                <li key={s.id} class="run">
                  <span class="run-title">{titleOf(s.workflow_id)}</span>{' '}
                  <span class="run-status status-queued">queued</span>
                  <p class="note">Started {when(s.created_at)}; it shows here once the engine picks it up.</p>
                </li>
              ))}
              {runs.map((r) => (
                <RunItem
                  key={r.id}
                  summary={r}
                  run={details[r.id]}
                  version={details[r.id] ? versions[details[r.id]?.version_id ?? ''] : undefined}
                  title={titleOf(r.workflow_id)}
                  selected={r.id === shownId}
                  onSelect={() => setSelected(r.id)}
                  onExpand={(open) =>
                    setExpanded((old) => {
                      const next = new Set(old);
                      if (open) next.add(r.id);
                      else next.delete(r.id);
                      return next;
                    })
                  }
                />
              ))}
            </ul>
          )}
          {hasMore && (
            <button type="button" class="secondary" onClick={() => void more()}>
              More runs
            </button>
          )}
        </div>
        {shown && <RunGraph run={shown} version={versions[shown.version_id]} title={titleOf(shown.workflow_id)} />}
      </div>
    </section>
  );
}

function RunItem(props: {
  summary: Summary;
  run: Run | undefined;
  version: Version | undefined;
  title: string;
  selected: boolean;
  onSelect: () => void;
  onExpand: (open: boolean) => void;
}) {
  const { summary: r, run } = props;
  const wait = run && !ENDED.has(r.status) ? waitOf(run, props.version) : undefined;
  return (
    <li class={`run${props.selected ? ' selected' : ''}`}>
      <button
        type="button"
        class="run-pick"
        aria-pressed={props.selected}
        aria-label={`${props.title}: ${r.status}, started ${when(r.created_at)}`}
        onClick={props.onSelect}
      >
        <span class="run-title">{props.title}</span> <span class={`run-status status-${r.status}`}>{r.status}</span>
      </button>
      <dl class="run-facts">
        <dt>Started</dt>
        <dd>
          {when(r.created_at)} · {r.source}
        </dd>
        {r.ended_at && (
          <>
            <dt>Ended</dt>
            <dd>{when(r.ended_at)}</dd>
          </>
        )}
        {wait && (
          <>
            <dt>Waits at</dt>
            <dd>
              <code>{wait.at}</code>
            </dd>
            <dt>Until</dt>
            <dd>{wait.until}</dd>
          </>
        )}
      </dl>
      <details onToggle={(e) => props.onExpand(e.currentTarget.open)}>
        <summary>Steps{run ? ` (${run.steps.length})` : ''}</summary>
        {run ? <Steps run={run} /> : <p class="note">Reading the steps…</p>}
      </details>
    </li>
  );
}

function Steps(props: { run: Run }) {
  return (
    <ol class="steps" aria-label="Steps">
      {props.run.steps_truncated && <li class="note">Older steps left out.</li>}
      {props.run.steps.map((s, i) => (
        <li key={i}>
          <code>{s.node_id ?? '—'}</code> {s.type} · {s.status}
          {s.output !== null && ` → output ${s.output}`}
          {s.error && (
            <>
              {' '}
              · <code>{s.error.code}</code> {s.error.message}
            </>
          )}
        </li>
      ))}
    </ol>
  );
}

/** Where an edge's label goes: its middle point, or halfway along a straight line. */
function middle(points: { x: number; y: number }[]): { x: number; y: number } | undefined {
  const [a, b] = points;
  if (points.length === 2 && a && b) return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  return points[Math.floor(points.length / 2)];
}

/** What a box says about the run, in words (the drawing marks it too, by more than colour). */
function boxState(box: Box, path: RunPath): string {
  const parts: string[] = [];
  const step = path.visited.get(box.id);
  if (path.current?.id === box.id) parts.push(`current block (${path.current.status})`);
  if (step !== undefined) parts.push(`on the run's path, step ${step}`);
  else parts.push('not reached');
  return parts.join(', ');
}

function RunGraph(props: { run: Run; version: Version | undefined; title: string }) {
  const [auto, setAuto] = useState(false);
  const nodes = props.version?.graph.nodes;
  const drawing = useMemo(() => (nodes ? layoutGraph(nodes, { auto }) : undefined), [nodes, auto]);
  const path = useMemo(() => runPath(props.run), [props.run]);
  if (!props.version || !drawing) return <p class="note">Reading the automation's graph…</p>;
  const order = [...path.visited.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  return (
    <figure class="run-graph" aria-labelledby="run-graph-caption">
      <figcaption id="run-graph-caption">
        Graph of “{props.title}” (version {props.version.number}), run <code>{props.run.id.slice(0, 8)}</code>{' '}
        <span class={`run-status status-${props.run.status}`}>{props.run.status}</span>
      </figcaption>
      <label class="check">
        <input type="checkbox" checked={auto} onChange={(e) => setAuto(e.currentTarget.checked)} /> Automatic layout
        (dagre)
      </label>
      <p class="note" id="run-path-text">
        Path: {order.join(' → ') || 'no step yet'}
        {path.current ? ` · now at ${path.current.id} (${path.current.status})` : ''}. Boxes on the path are bold with ✓
        and their step; the current block says ▶ here; arrows taken are solid and thick.
      </p>
      <div class="graph-scroll" tabIndex={0} role="region" aria-label="Graph drawing (scrolls)">
        <svg
          role="group"
          aria-label={`Automation graph, ${drawing.layout === 'dagre' ? 'laid out by dagre' : 'at the graph positions'}`}
          aria-describedby="run-path-text"
          viewBox={`0 0 ${drawing.width} ${drawing.height}`}
          width={drawing.width}
          height={drawing.height}
          data-layout={drawing.layout}
        >
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
            </marker>
            <marker
              id="arrow-taken"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="6"
              markerHeight="6"
              orient="auto-start-reverse"
            >
              <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head taken" />
            </marker>
          </defs>
          {drawing.edges.map((e) => {
            const taken = path.taken.has(edgeKey(e));
            const d = e.points.map((p, i) => `${i === 0 ? 'M' : 'L'} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(' ');
            const mid = middle(e.points);
            return (
              <g
                key={`${e.from}:${e.output}`}
                class={`edge${taken ? ' taken' : ''}`}
                data-edge={`${e.from}:${e.output}->${e.to}`}
              >
                <path d={d} marker-end={`url(#${taken ? 'arrow-taken' : 'arrow'})`} />
                {e.label && mid && (
                  <text x={mid.x} y={mid.y - 4} class="edge-label">
                    {e.label}
                  </text>
                )}
              </g>
            );
          })}
          {drawing.boxes.map((b) => {
            const step = path.visited.get(b.id);
            const current = path.current?.id === b.id;
            const mark = current ? '▶ here' : step !== undefined ? `✓ step ${step}` : '';
            return (
              <g
                key={b.id}
                class={`node${step !== undefined ? ' on-path' : ''}${current ? ' current' : ''}`}
                role="img"
                aria-label={`Block ${b.id}, ${b.type}${b.label ? `: ${b.label}` : ''}; ${boxState(b, path)}`}
                data-node={b.id}
              >
                <rect x={b.x} y={b.y} width={b.width} height={b.height} rx="8" />
                <text x={b.x + 10} y={b.y + 18} class="node-type">
                  {b.type} <tspan class="node-id">{b.id}</tspan>
                </text>
                <text x={b.x + 10} y={b.y + 35} class="node-label">
                  {b.label}
                </text>
                {mark && (
                  <text x={b.x + 10} y={b.y + 51} class="node-mark">
                    {mark}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
    </figure>
  );
}

function StartRun(props: {
  session: Session;
  contactId: string;
  workflows: Workflow[];
  onStarted: (run: Started) => void;
}) {
  const [workflowId, setWorkflowId] = useState('');
  const { problem, busy, run: act } = useAction();
  const [note, setNote] = useState<string | undefined>();
  const chosen = workflowId || (props.workflows.find((w) => w.status === 'published')?.id ?? '');

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!chosen) return;
    setNote(undefined);
    await act(async () => {
      const run = ok(
        await props.session.api.POST('/v1/workflows/{workflowId}/runs', {
          params: { path: { workflowId: chosen }, header: { 'Idempotency-Key': crypto.randomUUID() } },
          body: { contact_id: props.contactId },
        }),
      );
      setNote(`Run ${run.id.slice(0, 8)} queued.`);
      props.onStarted(run);
    });
  };

  return (
    <form class="group start-run" aria-label="Start a run" onSubmit={(e) => void submit(e)}>
      <Field id="start-run-workflow" label="Automation">
        <select id="start-run-workflow" value={chosen} onChange={(e) => setWorkflowId(e.currentTarget.value)}>
          {props.workflows.length === 0 && <option value="">No automation on this connection</option>}
          {props.workflows.map((w) => (
            <option key={w.id} value={w.id}>
              {w.title} ({w.status})
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" disabled={busy || !chosen}>
        Start run
      </button>
      {note && (
        <p class="note" role="status">
          {note}
        </p>
      )}
      <ProblemNote problem={problem} />
    </form>
  );
}
