// The automation's graph as boxes and edges for the Runs pane to draw, and a run's path through it. Pure (no DOM):
// the pane renders the result as SVG, and a unit test reads it.
//
// - Positions: the graph's own (`position`, the editor's or the one the service computed on save) when every
//   block carries one and no two share it; otherwise, or when asked (`auto`), dagre lays the graph out (left to
//   right like the editor, or top to bottom) and routes the edges around the boxes. "Best" takes whichever of
//   these fits the pane's box at the largest scale (a chain reads top to bottom in a narrow box).
// - The view: the part of the drawing the box shows (an SVG viewBox). Fitted by default; when fitting would make
//   the text too small to read, the view keeps a readable scale and centres the run's current block instead.
// - Edges: one per output (`data.next[i]` naming a block), labelled with what the output means where the block
//   says (a button's title, true/false, success/failure).
// - A run's path: the blocks its steps ran (first step number of each), the outputs it followed, and the block
//   it is at now (the last step still running or waiting, while the run has not ended).
import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from '@dagrejs/dagre';

/** A block as the API reads it (`WorkflowNode`); `position` may be missing in what a client sent. */
export interface GraphBlock {
  type: string;
  data: Record<string, unknown>;
  position?: { x: number; y: number } | undefined;
}

export interface Box {
  id: string;
  type: string;
  label: string;
  /** Top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Edge {
  from: string;
  to: string;
  output: number;
  label: string;
  /** The line from the source box to the target box. */
  points: { x: number; y: number }[];
}

export interface Drawing {
  boxes: Box[];
  edges: Edge[];
  width: number;
  height: number;
  /** `positions` when the graph's own positions placed the boxes, `dagre` (left to right) or `dagre-tb` when dagre did. */
  layout: 'positions' | 'dagre' | 'dagre-tb';
}

export const BOX_WIDTH = 184;
export const BOX_HEIGHT = 58;
const MARGIN = 16;
const LABEL_LENGTH = 26;

const short = (text: string) => (text.length > LABEL_LENGTH ? `${text.slice(0, LABEL_LENGTH - 1)}…` : text);
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** A short label for a block: its text where it has one, else what it does. */
export function blockLabel(block: GraphBlock): string {
  const d = block.data;
  const text = str(d.text) ?? str(d.subtitle) ?? str(d.title) ?? str(d.caption);
  if (text) return short(text.replace(/\s+/g, ' '));
  if (block.type === 'tags' && Array.isArray(d.tags))
    return short(`${str(d.operation) ?? ''} ${d.tags.filter((t) => typeof t === 'string').join(', ')}`.trim());
  if (block.type === 'sleep' && typeof d.seconds === 'number') return `wait ${duration(d.seconds)}`;
  if (Array.isArray(d.cards)) return `${d.cards.length} cards`;
  return '';
}

export function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** What output `i` of a block means, where the block says. */
export function outputLabel(block: GraphBlock, i: number): string {
  const d = block.data;
  const next = Array.isArray(d.next) ? d.next : [];
  if (block.type === 'buttons' && Array.isArray(d.buttons)) {
    const button: unknown = d.buttons[i];
    if (typeof button === 'object' && button !== null && 'title' in button && typeof button.title === 'string')
      return short(button.title);
  }
  if (block.type === 'conditional') return i === 0 ? 'true' : 'false';
  if (block.type === 'invoke') return i === 0 ? 'success' : 'failure';
  return next.length > 1 ? `#${i}` : '';
}

interface EdgeSpec {
  from: string;
  to: string;
  output: number;
  label: string;
}

function edgesOf(nodes: Record<string, GraphBlock>): EdgeSpec[] {
  const edges: EdgeSpec[] = [];
  for (const [id, block] of Object.entries(nodes)) {
    const next = Array.isArray(block.data.next) ? block.data.next : [];
    next.forEach((to, output) => {
      if (typeof to === 'string' && Object.hasOwn(nodes, to))
        edges.push({ from: id, to, output, label: outputLabel(block, output) });
    });
  }
  return edges;
}

/** Whether the graph's own positions can place it: every block has a finite one and no two share one. */
export function hasOwnPositions(nodes: Record<string, GraphBlock>): boolean {
  const seen = new Set<string>();
  for (const block of Object.values(nodes)) {
    const p = block.position;
    if (!p || !Number.isFinite(p.x) || !Number.isFinite(p.y)) return false;
    const key = `${p.x},${p.y}`;
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return Object.keys(nodes).length > 0;
}

/** Which way dagre ranks the blocks: left to right (the editor's way) or top to bottom. */
export type Direction = 'LR' | 'TB';

export function layoutGraph(
  nodes: Record<string, GraphBlock>,
  options: { auto?: boolean; direction?: Direction } = {},
): Drawing {
  const specs = edgesOf(nodes);
  return !options.auto && hasOwnPositions(nodes)
    ? byPositions(nodes, specs)
    : byDagre(nodes, specs, options.direction ?? 'LR');
}

/** How the pane places the boxes: the best fit for its box, the graph's positions, or dagre one way. */
export type LayoutChoice = 'best' | 'positions' | Direction;

export interface ViewSize {
  width: number;
  height: number;
}

/** The drawing for a choice; `best` is the candidate that fits `view` at the largest scale (positions on a tie). */
export function drawingFor(nodes: Record<string, GraphBlock>, choice: LayoutChoice, view: ViewSize): Drawing {
  if (choice === 'positions') return layoutGraph(nodes);
  if (choice !== 'best') return layoutGraph(nodes, { auto: true, direction: choice });
  const candidates = [
    ...(hasOwnPositions(nodes) ? [layoutGraph(nodes)] : []),
    layoutGraph(nodes, { auto: true, direction: 'LR' }),
    layoutGraph(nodes, { auto: true, direction: 'TB' }),
  ];
  let best = candidates[0] ?? layoutGraph(nodes);
  for (const c of candidates) if (fitScale(c, view) > fitScale(best, view) + 0.01) best = c;
  return best;
}

/** Below this scale the boxes' text is too small to read: the view keeps it and shows the current block. */
export const MIN_READABLE_SCALE = 0.7;
/** The fitted view does not enlarge a small graph beyond this. */
export const MAX_FIT_SCALE = 1.25;

/** The scale at which the whole drawing fits the view. */
export const fitScale = (drawing: Pick<Drawing, 'width' | 'height'>, view: ViewSize): number =>
  Math.min(view.width / drawing.width, view.height / drawing.height);

export interface ViewBox {
  x: number;
  y: number;
  width: number;
  height: number;
  scale: number;
}

/**
 * What the view shows: at `zoom` (or fitted: the whole drawing, or at a readable scale around `focus`, the
 * current block, when the whole would be too small), centred on `centre` when given, kept over the drawing.
 */
export function viewBoxFor(
  drawing: Pick<Drawing, 'width' | 'height'>,
  view: ViewSize,
  zoom: number | 'fit',
  centre?: { x: number; y: number },
): ViewBox {
  const fit = fitScale(drawing, view);
  const scale = zoom === 'fit' ? Math.min(MAX_FIT_SCALE, Math.max(fit, MIN_READABLE_SCALE)) : zoom;
  const width = view.width / scale;
  const height = view.height / scale;
  const c = centre ?? { x: drawing.width / 2, y: drawing.height / 2 };
  // Over the drawing: a view larger than the drawing centres it; a smaller one stays inside its edges.
  const place = (middle: number, size: number, total: number) =>
    size >= total ? (total - size) / 2 : Math.min(Math.max(middle - size / 2, 0), total - size);
  return { x: place(c.x, width, drawing.width), y: place(c.y, height, drawing.height), width, height, scale };
}

/** The centre of a block's box, where the view goes to show it. */
export function boxCentre(drawing: Drawing, id: string | undefined): { x: number; y: number } | undefined {
  const b = id === undefined ? undefined : drawing.boxes.find((box) => box.id === id);
  return b && centre(b);
}

function box(id: string, block: GraphBlock, x: number, y: number): Box {
  return { id, type: block.type, label: blockLabel(block), x, y, width: BOX_WIDTH, height: BOX_HEIGHT };
}

function byPositions(nodes: Record<string, GraphBlock>, specs: EdgeSpec[]): Drawing {
  const placed = Object.entries(nodes).map(([id, block]) => ({ id, block, p: block.position ?? { x: 0, y: 0 } }));
  const minX = Math.min(...placed.map((n) => n.p.x));
  const minY = Math.min(...placed.map((n) => n.p.y));
  const boxes = placed.map((n) => box(n.id, n.block, n.p.x - minX + MARGIN, n.p.y - minY + MARGIN));
  const byId = new Map(boxes.map((b) => [b.id, b]));
  const edges: Edge[] = [];
  for (const spec of specs) {
    const from = byId.get(spec.from);
    const to = byId.get(spec.to);
    if (from && to) edges.push({ ...spec, points: connect(from, to) });
  }
  return {
    boxes,
    edges,
    width: Math.max(...boxes.map((b) => b.x + b.width)) + MARGIN,
    height: Math.max(...boxes.map((b) => b.y + b.height)) + MARGIN,
    layout: 'positions',
  };
}

const centre = (b: Box) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });

/** Where the line from the box's centre towards `towards` leaves the box. */
function exit(b: Box, towards: { x: number; y: number }): { x: number; y: number } {
  const c = centre(b);
  const dx = towards.x - c.x;
  const dy = towards.y - c.y;
  if (dx === 0 && dy === 0) return c;
  const scale = Math.min(
    dx === 0 ? Infinity : b.width / 2 / Math.abs(dx),
    dy === 0 ? Infinity : b.height / 2 / Math.abs(dy),
  );
  return { x: c.x + dx * scale, y: c.y + dy * scale };
}

/** A straight line between two placed boxes (a loop over the top for a block back to itself). */
function connect(from: Box, to: Box): { x: number; y: number }[] {
  if (from.id === to.id) {
    const right = from.x + from.width;
    return [
      { x: right - 30, y: from.y },
      { x: right - 20, y: from.y - 24 },
      { x: right + 10, y: from.y - 24 },
      { x: right, y: from.y + 12 },
    ];
  }
  return [exit(from, centre(to)), exit(to, centre(from))];
}

function byDagre(nodes: Record<string, GraphBlock>, specs: EdgeSpec[], direction: Direction): Drawing {
  const g = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ multigraph: true });
  g.setGraph({
    rankdir: direction,
    nodesep: 24,
    ranksep: direction === 'TB' ? 40 : 56,
    edgesep: 12,
    marginx: MARGIN,
    marginy: MARGIN,
  });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of Object.keys(nodes)) g.setNode(id, { width: BOX_WIDTH, height: BOX_HEIGHT });
  for (const spec of specs) g.setEdge(spec.from, spec.to, { minlen: 1 }, String(spec.output));
  dagre.layout(g);
  const boxes = Object.entries(nodes).map(([id, block]) => {
    const n = g.node(id);
    return box(id, block, (n.x ?? 0) - BOX_WIDTH / 2, (n.y ?? 0) - BOX_HEIGHT / 2);
  });
  const edges = specs.map((spec) => {
    const label = g.edge({ v: spec.from, w: spec.to, name: String(spec.output) });
    return { ...spec, points: label.points ?? [] };
  });
  const size = g.graph();
  return {
    boxes,
    edges,
    width: size.width ?? Math.max(...boxes.map((b) => b.x + b.width)) + MARGIN,
    height: size.height ?? Math.max(...boxes.map((b) => b.y + b.height)) + MARGIN,
    layout: direction === 'TB' ? 'dagre-tb' : 'dagre',
  };
}

/** A step as the run read gives it (`WorkflowRunStep`), the fields the path needs. */
export interface PathStep {
  node_id: string | null;
  status: string;
  output: number | null;
}

export interface RunPath {
  /** Each block the run went through, with the number (from 1) of its first step. */
  visited: Map<string, number>;
  /** The outputs followed, as `${blockId}:${output}`. */
  taken: Set<string>;
  /** The block the run is at now, and how (`waiting` for the contact, `running` a timed wait or a call). */
  current: { id: string; status: string } | undefined;
}

const ENDED = new Set(['completed', 'stopped', 'blocked', 'failed']);

export function runPath(run: { status: string; steps: readonly PathStep[] }): RunPath {
  const visited = new Map<string, number>();
  const taken = new Set<string>();
  let current: RunPath['current'];
  run.steps.forEach((step, i) => {
    if (step.node_id === null) return;
    if (!visited.has(step.node_id)) visited.set(step.node_id, i + 1);
    if (step.output !== null) taken.add(`${step.node_id}:${step.output}`);
  });
  if (!ENDED.has(run.status)) {
    const last = [...run.steps]
      .reverse()
      .find((s) => s.node_id !== null && (s.status === 'waiting' || s.status === 'running'));
    if (last?.node_id) current = { id: last.node_id, status: last.status };
  }
  return { visited, taken, current };
}

export const edgeKey = (edge: { from: string; output: number }) => `${edge.from}:${edge.output}`;
