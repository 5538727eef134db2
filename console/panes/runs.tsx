// "Runs": the chosen contact's automation runs (status, the block each waits at and until when, its steps), the
// selected run's automation drawn as a graph with its path and current block marked, and a form that starts a
// run for the contact. What it reads, and how the account's events keep it live, is hooks/use-runs.ts.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ok, type Schemas } from '../api.js';
import {
  boxCentre,
  drawingFor,
  duration,
  edgeKey,
  fitScale,
  runPath,
  viewBoxFor,
  type Box,
  type Drawing,
  type Edge,
  type LayoutChoice,
  type RunPath,
  type ViewSize,
} from '../graph.js';
import { ENDED, useRuns } from '../hooks/use-runs.js';
import type { Player, Session } from '../session.js';
import { ChoiceSelect, Field, ProblemNote, useAction } from '../ui.js';

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
  /** Told which buttons messages still answer a waiting run (the chat greys the others). */
  onAnswering: (answering: Record<string, boolean>) => void;
  /** Counts the automations made from the page: a change reads the connection's automations again. */
  automations: number;
}) {
  const runs = useRuns(props.session, props.player, props.chatRead);
  const { onAnswering } = props;
  useEffect(() => onAnswering(runs.answering), [runs.answering]);
  useEffect(() => {
    if (props.automations > 0 && props.chatRead) void runs.refresh();
  }, [props.automations]);
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
      <StartRun
        session={props.session}
        contactId={contactId}
        workflows={runs.workflows}
        onStarted={runs.onStarted}
        onReload={() => void runs.refresh()}
        runsKey={runs.runs.map((r) => `${r.id}:${r.status}`).join()}
      />
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

const LAYOUTS: Record<LayoutChoice, string> = {
  best: 'Best fit for this box',
  positions: 'The automation’s positions',
  LR: 'Left to right (dagre)',
  TB: 'Top to bottom (dagre)',
};
const ZOOM_STEP = 1.25;
/** How far an arrow key pans, in screen pixels. */
const PAN_STEP = 60;
const PAN_KEYS: Record<string, [number, number]> = {
  ArrowLeft: [-PAN_STEP, 0],
  ArrowRight: [PAN_STEP, 0],
  ArrowUp: [0, -PAN_STEP],
  ArrowDown: [0, PAN_STEP],
};

/** The blocks of the run's path, in the order it first ran them. */
const pathOrder = (path: RunPath) => [...path.visited.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);

/** Where the view goes unless panned: the current block, else the last block the run ran, else `root`. */
function focusOf(drawing: Drawing, path: RunPath) {
  const lastId = [...path.visited.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return boxCentre(drawing, path.current?.id ?? lastId) ?? boxCentre(drawing, 'root');
}

/** The size of the element, followed as the window or the layout changes it. */
function useSize(fallback: ViewSize) {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState<ViewSize>(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const { width, height } = el.getBoundingClientRect();
      if (width > 0 && height > 0) setSize({ width, height });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return { ref, size };
}

function RunGraph(props: { run: Run; version: Version | undefined; title: string }) {
  const [choice, setChoice] = useState<LayoutChoice>('best');
  // The zoom the user chose ('fit' until then), and where they panned to (undefined: the current block).
  const [zoom, setZoom] = useState<number | 'fit'>('fit');
  const [pan, setPan] = useState<{ x: number; y: number } | undefined>();
  const { ref, size } = useSize({ width: 600, height: 320 });
  const nodes = props.version?.graph.nodes;
  const drawing = useMemo(() => (nodes ? drawingFor(nodes, choice, size) : undefined), [nodes, choice, size]);
  const path = useMemo(() => runPath(props.run), [props.run]);
  const currentId = path.current?.id;
  // The run moved (or another run is shown): the view goes back to where it is.
  useEffect(() => setPan(undefined), [currentId, props.run.id, choice]);
  const drag = useRef<{ x: number; y: number; from: { x: number; y: number } } | undefined>();

  const focus = drawing ? focusOf(drawing, path) : undefined;
  const view = drawing ? viewBoxFor(drawing, size, zoom, pan ?? focus) : undefined;
  if (!props.version || !drawing || !view) return <p class="note">Reading the automation's graph…</p>;
  const centreNow = { x: view.x + view.width / 2, y: view.y + view.height / 2 };
  const panBy = (dx: number, dy: number) =>
    setPan({ x: centreNow.x + dx / view.scale, y: centreNow.y + dy / view.scale });
  const zoomTo = (scale: number) => {
    setPan(centreNow);
    setZoom(Math.min(3, Math.max(0.2, scale)));
  };
  return (
    <figure class="run-graph" aria-labelledby="run-graph-caption">
      <figcaption id="run-graph-caption">
        Graph of “{props.title}” (version {props.version.number}), run <code>{props.run.id.slice(0, 8)}</code>{' '}
        <span class={`run-status status-${props.run.status}`}>{props.run.status}</span>
      </figcaption>
      <p class="note" id="run-path-text">
        Path: {pathOrder(path).join(' → ') || 'no step yet'}
        {path.current ? ` · now at ${path.current.id} (${path.current.status})` : ''}.
        <span class="visually-hidden">
          {' '}
          Boxes on the path are bold with ✓ and their step; the current block says ▶ here; arrows taken are solid and
          thick.
        </span>
      </p>
      <GraphTools
        scale={view.scale}
        whole={fitScale(drawing, size) >= view.scale}
        hasCurrent={currentId !== undefined}
        choice={choice}
        onChoice={setChoice}
        onZoom={(factor) => zoomTo(view.scale * factor)}
        onFit={() => {
          setZoom('fit');
          setPan(undefined);
        }}
        onShowCurrent={() => setPan(undefined)}
      />
      <div
        class="graph-view"
        ref={ref}
        tabIndex={0}
        role="region"
        aria-label="Graph drawing (drag or arrow keys to pan)"
        onKeyDown={(e) => {
          const step = PAN_KEYS[e.key];
          if (!step) return;
          e.preventDefault();
          panBy(step[0], step[1]);
        }}
        onPointerDown={(e) => {
          drag.current = { x: e.clientX, y: e.clientY, from: centreNow };
          e.currentTarget.setPointerCapture(e.pointerId);
        }}
        onPointerMove={(e) => {
          const d = drag.current;
          if (d) setPan({ x: d.from.x - (e.clientX - d.x) / view.scale, y: d.from.y - (e.clientY - d.y) / view.scale });
        }}
        onPointerUp={() => (drag.current = undefined)}
        onPointerCancel={() => (drag.current = undefined)}
      >
        <GraphDrawing drawing={drawing} path={path} view={`${view.x} ${view.y} ${view.width} ${view.height}`} />
      </div>
    </figure>
  );
}

/** The graph's view controls: zoom, fit, back to the current block, the layout, and the scale shown. */
function GraphTools(props: {
  scale: number;
  whole: boolean;
  hasCurrent: boolean;
  choice: LayoutChoice;
  onChoice: (choice: LayoutChoice) => void;
  onZoom: (factor: number) => void;
  onFit: () => void;
  onShowCurrent: () => void;
}) {
  return (
    <div class="graph-tools" role="toolbar" aria-label="Graph view">
      <button type="button" class="secondary" aria-label="Zoom in" onClick={() => props.onZoom(ZOOM_STEP)}>
        +
      </button>
      <button type="button" class="secondary" aria-label="Zoom out" onClick={() => props.onZoom(1 / ZOOM_STEP)}>
        −
      </button>
      <button type="button" class="secondary" onClick={props.onFit}>
        Fit
      </button>
      <button type="button" class="secondary" onClick={props.onShowCurrent}>
        {props.hasCurrent ? 'Show the current block' : 'Show the last block'}
      </button>
      <Field id="graph-layout" label="Layout">
        <ChoiceSelect id="graph-layout" value={props.choice} choices={LAYOUTS} onChoose={props.onChoice} />
      </Field>
      <span class="note graph-scale" aria-live="polite">
        {Math.round(props.scale * 100)}%{props.whole ? ', whole graph' : ', drag or use the arrow keys to pan'}
      </span>
    </div>
  );
}

function GraphDrawing(props: { drawing: Drawing; path: RunPath; view: string }) {
  const { drawing, path } = props;
  return (
    <svg
      role="group"
      aria-label={`Automation graph, ${drawing.layout === 'positions' ? 'at the graph positions' : `laid out by dagre ${drawing.layout === 'dagre' ? 'left to right' : 'top to bottom'}`}`}
      aria-describedby="run-path-text"
      viewBox={props.view}
      width="100%"
      height="100%"
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
  onReload: () => void;
  /** The runs and their statuses: a refusal (run_in_progress) is cleared once they change (the run ended). */
  runsKey: string;
}) {
  const [workflowId, setWorkflowId] = useState('');
  const { problem, setProblem, busy, run: act } = useAction();
  useEffect(() => setProblem(undefined), [props.runsKey]);
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
      <div class="start-buttons">
        <button type="submit" disabled={busy || !chosen}>
          Start run
        </button>
        <button type="button" class="secondary" onClick={props.onReload}>
          Reload runs
        </button>
      </div>
      {note && (
        <p class="note" role="status">
          {note}
        </p>
      )}
      <ProblemNote problem={problem} />
    </form>
  );
}
