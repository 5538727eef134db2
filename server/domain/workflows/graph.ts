// Graph helpers shared by validation, create/update and reads (Part B, "Graph"):
// - positions: a block sent without `position` gets one computed here (a layered layout: column by
//   breadth-first depth from `root` in `next` order, row by order within the column; blocks not reachable
//   from `root` in one more column after the deepest; ties in the order of the ids as given). Sent positions
//   are kept as they are. Deterministic: the same nodes give the same positions.
// - `fillNext`: what reads return: a block's `next` padded with null up to its output count (never cut;
//   unknown types and counts that cannot be known are left as they are).
// - `graphSize`: the bytes of the graph as JSON with the positions filled in (the 256 KiB cap counts them).
import { blockType, outputCount } from '../../blocks/index.js';

type Json = Record<string, unknown>;

export interface Position {
  x: number;
  y: number;
}

/** The horizontal and vertical steps of computed positions (the catalog's examples use 320 across). */
export const COLUMN_WIDTH = 320;
export const ROW_HEIGHT = 160;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function nextOf(node: unknown): unknown[] {
  if (!isObject(node) || !isObject(node.data)) return [];
  return Array.isArray(node.data.next) ? node.data.next : [];
}

/** The ids reachable from `root`, breadth-first in `next` order, each with its depth (`root` is 0). */
export function reachableFromRoot(nodes: Json): Map<string, number> {
  return reachableFrom(nodes, 'root');
}

/** The ids reachable from block `from` (itself included, depth 0), breadth-first in `next` order. */
export function reachableFrom(nodes: Json, from: string): Map<string, number> {
  const depth = new Map<string, number>();
  if (!Object.hasOwn(nodes, from)) return depth;
  depth.set(from, 0);
  // An array's iterator reads its length at each step, so this visits what the loop pushes.
  const queue: [string, number][] = [[from, 0]];
  for (const [id, at] of queue) {
    for (const next of nextOf(nodes[id])) {
      if (typeof next === 'string' && Object.hasOwn(nodes, next) && !depth.has(next)) {
        depth.set(next, at + 1);
        queue.push([next, at + 1]);
      }
    }
  }
  return depth;
}

/** Whether a block that sends to the contact (its kind's `sends`) is reachable from block `from` (null: none). */
export function sendsFrom(nodes: Json, from: string | null): boolean {
  if (from === null) return false;
  return [...reachableFrom(nodes, from).keys()].some((id) => {
    const node = nodes[id];
    return isObject(node) && blockType(node.type)?.sends === true;
  });
}

/** The computed position of every block (whether or not it has one). */
export function layout(nodes: Json): Map<string, Position> {
  const depth = reachableFromRoot(nodes);
  const unreachableColumn = depth.size === 0 ? 0 : Math.max(...depth.values()) + 1;
  const rows = new Map<number, number>();
  const positions = new Map<string, Position>();
  for (const id of Object.keys(nodes)) {
    const column = depth.get(id) ?? unreachableColumn;
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    positions.set(id, { x: column * COLUMN_WIDTH, y: row * ROW_HEIGHT });
  }
  return positions;
}

/** The nodes with a computed `position` on each block object that has none (`undefined` or absent). */
export function withPositions(nodes: Json): Json {
  const missing = Object.keys(nodes).filter((id) => {
    const node = nodes[id];
    return isObject(node) && node.position === undefined;
  });
  if (missing.length === 0) return nodes;
  const positions = layout(nodes);
  // Object.fromEntries defines own properties, so even an id such as `__proto__` stays a key.
  return Object.fromEntries(
    Object.entries(nodes).map(([id, node]) => [
      id,
      isObject(node) && node.position === undefined ? { ...node, position: positions.get(id) } : node,
    ]),
  );
}

/**
 * The blocks of a graph as stored: each with its position, the one sent kept, a computed one for the others
 * (what withPositions does, for blocks already known to be objects).
 */
export function positioned<Node extends { position?: Position }>(
  nodes: Readonly<Record<string, Node>>,
): Record<string, Node & { position: Position }> {
  const positions = layout(nodes);
  // Object.fromEntries defines own properties, so even an id such as `__proto__` stays a key.
  return Object.fromEntries(
    Object.entries(nodes).map(([id, node]) => [
      id,
      // layout places every id; the origin is only there for the type.
      { ...node, position: node.position === undefined ? (positions.get(id) ?? { x: 0, y: 0 }) : node.position },
    ]),
  );
}

/** For reads: each block's `next` padded with null up to its output count. Extras are kept, and so is each block's type. */
export function fillNext<Node>(nodes: Readonly<Record<string, Node>>): Record<string, Node> {
  return Object.fromEntries(
    Object.entries(nodes).map(([id, node]): [string, Node] => {
      if (!isObject(node) || !isObject(node.data) || !Array.isArray(node.data.next)) return [id, node];
      const count = outputCount(node);
      const next: unknown[] = node.data.next;
      if (count === null || next.length >= count) return [id, node];
      const padded = [...next, ...Array.from({ length: count - next.length }, () => null)];
      return [id, { ...node, data: { ...node.data, next: padded } }];
    }),
  );
}

/** The size in bytes of `{"nodes": …}` as JSON (UTF-8), positions filled in. */
export function graphSize(nodes: Json): number {
  return Buffer.byteLength(JSON.stringify({ nodes: withPositions(nodes) }), 'utf8');
}

/** Part B limits: 500 blocks, 256 KiB. */
export const MAX_BLOCKS = 500;
export const MAX_GRAPH_BYTES = 256 * 1024;
