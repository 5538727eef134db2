// The console's graph drawing (console/graph.ts), pure: which layout places the boxes (the graph's positions, or
// dagre), one edge per output with its meaning, and a run's path (blocks with their first step, outputs taken,
// the block it is at now). The browser test (console-runs.test.ts) sees the same through the page.
import { describe, expect, it } from 'vitest';
import {
  blockLabel,
  BOX_HEIGHT,
  BOX_WIDTH,
  boxCentre,
  drawingFor,
  fitScale,
  hasOwnPositions,
  layoutGraph,
  MIN_READABLE_SCALE,
  viewBoxFor,
  runPath,
  type GraphBlock,
} from '../../console/graph.js';

const graph = (positions: boolean): Record<string, GraphBlock> => {
  const at = (x: number, y: number) => (positions ? { position: { x, y } } : {});
  return {
    root: { type: 'root', data: { next: ['ask'] }, ...at(0, 0) },
    ask: {
      type: 'buttons',
      data: {
        subtitle: 'Quer um lembrete quando o frete grátis começar?',
        buttons: [
          { id: 'y', title: 'Quero' },
          { id: 'n', title: 'Agora não' },
        ],
        next: ['yes', 'no', null, null],
      },
      ...at(320, 0),
    },
    yes: { type: 'conditional', data: { next: ['no', 'gone'] }, ...at(640, 0) },
    no: { type: 'message', data: { text: 'Tchau', next: [null] }, ...at(640, 160) },
  };
};

describe('console graph drawing', () => {
  it('places the boxes at the graph positions when every block has its own', () => {
    const nodes = graph(true);
    expect(hasOwnPositions(nodes)).toBe(true);
    const drawing = layoutGraph(nodes);
    expect(drawing.layout).toBe('positions');
    const at = (id: string) => {
      const box = drawing.boxes.find((b) => b.id === id);
      if (!box) throw new Error(`no box ${id}`);
      return box;
    };
    // Shifted by the same margin, relative places kept.
    expect(at('ask').x - at('root').x).toBe(320);
    expect(at('no').y - at('yes').y).toBe(160);
    // A straight edge from the side of one box to the side of the next.
    const edge = drawing.edges.find((e) => e.from === 'root');
    expect(edge?.points).toEqual([
      { x: at('root').x + BOX_WIDTH, y: at('root').y + BOX_HEIGHT / 2 },
      { x: at('ask').x, y: at('ask').y + BOX_HEIGHT / 2 },
    ]);
  });

  it('lays the graph out with dagre when a position is missing, shared, or when asked', () => {
    const missing = graph(true);
    missing.no = { type: 'message', data: { text: 'Tchau', next: [null] } };
    const shared = graph(true);
    shared.no = { type: 'message', data: { text: 'Tchau', next: [null] }, position: { x: 640, y: 0 } };
    for (const [nodes, auto] of [
      [graph(false), false],
      [missing, false],
      [shared, false],
      [graph(true), true],
    ] as const) {
      const drawing = layoutGraph(nodes, { auto });
      expect(drawing.layout).toBe('dagre');
      expect(drawing.boxes).toHaveLength(4);
      // No two boxes overlap, and every edge has a route from dagre.
      for (const a of drawing.boxes)
        for (const b of drawing.boxes)
          if (a !== b)
            expect(a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y).toBe(
              true,
            );
      for (const e of drawing.edges) expect(e.points.length).toBeGreaterThanOrEqual(2);
      // Left to right: root before what follows it.
      const x = (id: string) => drawing.boxes.find((b) => b.id === id)?.x ?? NaN;
      expect(x('root')).toBeLessThan(x('ask'));
      expect(x('ask')).toBeLessThan(x('yes'));
    }
  });

  it('lays a chain out top to bottom when asked, and takes the layout that fits the box best by default', () => {
    const chain: Record<string, GraphBlock> = {
      root: { type: 'root', data: { next: ['b1'] }, position: { x: 0, y: 0 } },
    };
    for (let i = 1; i <= 8; i += 1)
      chain[`b${i}`] = {
        type: 'message',
        data: { text: `m${i}`, next: [i < 8 ? `b${i + 1}` : null] },
        position: { x: i * 320, y: 0 },
      };
    const tb = layoutGraph(chain, { auto: true, direction: 'TB' });
    expect(tb.layout).toBe('dagre-tb');
    const y = (id: string) => tb.boxes.find((b) => b.id === id)?.y ?? NaN;
    expect(y('root')).toBeLessThan(y('b1'));
    expect(tb.height).toBeGreaterThan(tb.width);
    // A narrow, tall box (a phone): top to bottom; a wide, short one: left to right (dagre's is the tighter here).
    expect(drawingFor(chain, 'best', { width: 360, height: 500 }).layout).toBe('dagre-tb');
    expect(drawingFor(chain, 'best', { width: 3000, height: 300 }).layout).toBe('dagre');
    expect(drawingFor(chain, 'positions', { width: 360, height: 500 }).layout).toBe('positions');
  });

  it('fits the view to the drawing, or keeps a readable scale centred on the current block', () => {
    const small = { width: 400, height: 200 };
    // Fits: the whole drawing, centred (the view larger than the drawing).
    const whole = viewBoxFor(small, { width: 800, height: 400 }, 'fit');
    expect(whole.scale).toBe(1.25);
    expect(whole.x).toBeLessThanOrEqual(0);
    expect(whole.x + whole.width).toBeGreaterThanOrEqual(400);
    // Too wide to fit readably: the readable scale, around the block, kept over the drawing.
    const wide = { width: 3000, height: 100 };
    const view = { width: 600, height: 300 };
    expect(fitScale(wide, view)).toBeLessThan(MIN_READABLE_SCALE);
    const around = viewBoxFor(wide, view, 'fit', { x: 2000, y: 50 });
    expect(around.scale).toBe(MIN_READABLE_SCALE);
    expect(around.x).toBeLessThan(2000);
    expect(around.x + around.width).toBeGreaterThan(2000);
    const atEnd = viewBoxFor(wide, view, 2, { x: 2990, y: 50 });
    expect(atEnd.x + atEnd.width).toBeCloseTo(3000);
    const drawing = layoutGraph(graph(true));
    const c = boxCentre(drawing, 'no');
    const box = drawing.boxes.find((b) => b.id === 'no');
    expect(c).toEqual({ x: (box?.x ?? 0) + BOX_WIDTH / 2, y: (box?.y ?? 0) + BOX_HEIGHT / 2 });
  });

  it('draws one edge per output naming a block, labelled with what the output means', () => {
    const edges = layoutGraph(graph(true)).edges.map((e) => `${e.from}:${e.output}->${e.to} ${e.label}`);
    // A null output and one naming no block ("gone") draw nothing.
    expect(edges.sort()).toEqual(['ask:0->yes Quero', 'ask:1->no Agora não', 'root:0->ask ', 'yes:0->no true'].sort());
  });

  it('labels a block with its text, shortened', () => {
    expect(blockLabel({ type: 'message', data: { text: 'Tchau' } })).toBe('Tchau');
    expect(blockLabel(graph(false).ask ?? { type: 'x', data: {} })).toBe('Quer um lembrete quando o…');
    expect(blockLabel({ type: 'tags', data: { operation: 'add', tags: ['vip'] } })).toBe('add vip');
    expect(blockLabel({ type: 'sleep', data: { seconds: 7200 } })).toBe('wait 2 h');
  });

  it("reads a run's path: blocks with their first step, outputs taken, and the block it waits at", () => {
    const steps = [
      { node_id: 'root', status: 'completed', output: 0 },
      { node_id: 'ask', status: 'completed', output: 1 },
      { node_id: null, status: 'completed', output: null },
      { node_id: 'no', status: 'waiting', output: null },
    ];
    const waiting = runPath({ status: 'waiting', steps });
    expect([...waiting.visited]).toEqual([
      ['root', 1],
      ['ask', 2],
      ['no', 4],
    ]);
    expect([...waiting.taken].sort()).toEqual(['ask:1', 'root:0']);
    expect(waiting.current).toEqual({ id: 'no', status: 'waiting' });
    // An ended run is at no block, whatever its last step says.
    expect(runPath({ status: 'stopped', steps }).current).toBeUndefined();
    expect(runPath({ status: 'queued', steps: [] })).toEqual({
      visited: new Map(),
      taken: new Set(),
      current: undefined,
    });
  });
});
