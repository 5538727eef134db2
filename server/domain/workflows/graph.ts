// STUB until the graph helpers land (branch h-validation replaces this file).
export function withPositions(nodes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(nodes).map(([id, node], i) => [
      id,
      typeof node === 'object' && node !== null && !('position' in node) ? { ...node, position: { x: 0, y: i * 150 } } : node,
    ]),
  );
}
export function fillNext(nodes: Record<string, unknown>): Record<string, unknown> {
  return nodes;
}
