// STUB until the graph helpers land (branch h-validation replaces this file).
export function withPositions(nodes: Record<string, unknown>): Record<string, unknown> {
  return nodes;
}
export function fillNext(nodes: Record<string, unknown>): Record<string, unknown> {
  return nodes;
}
