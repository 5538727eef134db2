// STUB until the block table lands (branch h-validation replaces this file).
export function outputCount(_type: string, _data: unknown): number | null {
  return null;
}
