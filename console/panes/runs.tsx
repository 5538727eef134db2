// "Runs": the chosen contact's automation runs (status, the block each waits at and until when, its steps), the
// selected run's automation drawn as a graph with its path and current block marked, and a form that starts a
// run for the contact. What it reads, and how the account's events keep it live, is hooks/use-runs.ts.
import { useMemo, useState } from 'preact/hooks';
import { ok, type Schemas } from '../api.js';
import { duration, edgeKey, layoutGraph, runPath, type Box, type Drawing, type Edge, type RunPath } from '../graph.js';
import { ENDED, useRuns } from '../hooks/use-runs.js';
import type { Player, Session } from '../session.js';
import { Field, ProblemNote, useAction } from '../ui.js';

type Workflow = Schemas['WorkflowSummary'];
type Summary = Schemas['WorkflowRunSummary'];
type Run = Schemas['WorkflowRun'];
type Version = Schemas['WorkflowVersion'];
type Started = Schemas['WorkflowRunStarted'];

/** How long a question, buttons or cards wait for the contact at most (the step's `wait_expired`). */
const WAIT_LIMIT_DAYS = 90;

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
  const runs = useRuns(props.session, props.player, props.chatRead);
  const contactId = props.player?.contactId;
  const titleOf = (workflowId: string) => runs.workflows.find((w) => w.id === workflowId)?.title ?? workflowId;

  if (!props.player || !contactId || !props.player.connection.id)
    return (
      <section class="pane runs" aria-labelledby="runs-title">
        <h2 id="runs-title">Runs</h2>
        <p class="note">
          Choose a contact who has written (or one made by phone) to see and start their automation runs.
        </p>
      </section>
    );

  const shown = runs.shownId ? runs.details[runs.shownId] : undefined;
  return (
    <section class="pane runs" aria-labelledby="runs-title">
      <h2 id="runs-title">Runs of {props.player.name}</h2>
      <StartRun session={props.session} contactId={contactId} workflows={runs.workflows} onStarted={runs.onStarted} />
      <button type="button" class="secondary" onClick={() => void runs.refresh()}>
        Reload runs
      </button>
      <ProblemNote problem={runs.problem} />
      <div class="runs-body">
        <div class="runs-list-column">
          <RunList runs={runs} titleOf={titleOf} />
          {runs.hasMore && (
            <button type="button" class="secondary" onClick={() => void runs.more()}>
              More runs
            </button>
          )}
        </div>
        {shown && <RunGraph run={shown} version={runs.versions[shown.version_id]} title={titleOf(shown.workflow_id)} />}
      </div>
    </section>
  );
}

/** The runs started here and not listed yet (queued), then the contact's runs, newest first. */
function RunList(props: { runs: ReturnType<typeof useRuns>; titleOf: (workflowId: string) => string }) {
  const { runs, started, details, versions } = props.runs;
  if (runs.length === 0 && started.length === 0) return <p class="note">No runs for this contact yet.</p>;
  return (
    <ul class="run-list" aria-label="Runs">
      {started.map((s) => (
        <li key={s.id} class="run">
          <span class="run-title">{props.titleOf(s.workflow_id)}</span>{' '}
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
          title={props.titleOf(r.workflow_id)}
          selected={r.id === props.runs.shownId}
          onSelect={() => props.runs.setSelected(r.id)}
          onExpand={(open) => props.runs.expand(r.id, open)}
        />
      ))}
    </ul>
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
        <GraphDrawing drawing={drawing} path={path} />
      </div>
    </figure>
  );
}

function GraphDrawing(props: { drawing: Drawing; path: RunPath }) {
  const { drawing, path } = props;
  return (
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
        <ArrowMarker id="arrow" size="7" headClass="arrow-head" />
        <ArrowMarker id="arrow-taken" size="6" headClass="arrow-head taken" />
      </defs>
      {drawing.edges.map((e) => (
        <GraphEdge key={`${e.from}:${e.output}`} edge={e} taken={path.taken.has(edgeKey(e))} />
      ))}
      {drawing.boxes.map((b) => (
        <GraphBox key={b.id} box={b} path={path} />
      ))}
    </svg>
  );
}

function ArrowMarker(props: { id: string; size: string; headClass: string }) {
  return (
    <marker
      id={props.id}
      viewBox="0 0 10 10"
      refX="9"
      refY="5"
      markerWidth={props.size}
      markerHeight={props.size}
      orient="auto-start-reverse"
    >
      <path d="M 0 0 L 10 5 L 0 10 z" class={props.headClass} />
    </marker>
  );
}

function GraphEdge(props: { edge: Edge; taken: boolean }) {
  const { edge: e, taken } = props;
  const d = e.points.map((p, i) => `${i === 0 ? 'M' : 'L'} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(' ');
  const mid = middle(e.points);
  return (
    <g class={`edge${taken ? ' taken' : ''}`} data-edge={`${e.from}:${e.output}->${e.to}`}>
      <path d={d} marker-end={`url(#${taken ? 'arrow-taken' : 'arrow'})`} />
      {e.label && mid && (
        <text x={mid.x} y={mid.y - 4} class="edge-label">
          {e.label}
        </text>
      )}
    </g>
  );
}

function GraphBox(props: { box: Box; path: RunPath }) {
  const { box: b, path } = props;
  const step = path.visited.get(b.id);
  const current = path.current?.id === b.id;
  const mark = current ? '▶ here' : step !== undefined ? `✓ step ${step}` : '';
  return (
    <g
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
