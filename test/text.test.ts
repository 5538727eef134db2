// server/text.ts: the trims that replace patterns quadratic on a long run of one character (issue 33), and the
// length of a text in characters as JSON Schema counts them.
import { describe, expect, it } from 'vitest';
import { longerThan, trimAsciiSpace, trimBoth, trimEnd } from '../server/text.js';

describe('text', () => {
  it('trims as the patterns it replaced did', () => {
    expect(trimEnd('https://x.test///', '/')).toBe('https://x.test');
    expect(trimEnd('///', '/')).toBe('');
    expect(trimBoth('--data-de-nascimento--', '-')).toBe('data-de-nascimento');
    expect(trimAsciiSpace(' \t\r\n\f\v 3 \n')).toBe('3');
    expect(trimAsciiSpace('\u00a03\u00a0')).toBe('\u00a03\u00a0');
  });

  it('is linear on a long run of the character that does not end the text', () => {
    const started = performance.now();
    expect(trimEnd(`${'/'.repeat(500_000)}x`, '/')).toHaveLength(500_001);
    expect(trimBoth(`${'-'.repeat(500_000)}x${'-'.repeat(500_000)}y`, '-')).toHaveLength(500_002);
    expect(trimAsciiSpace(`${' '.repeat(500_000)}x${' '.repeat(500_000)}y`)).toHaveLength(500_002);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('counts characters as code points, as maxLength does', () => {
    expect(longerThan('a'.repeat(1000), 1000)).toBe(false);
    expect(longerThan('a'.repeat(1001), 1000)).toBe(true);
    expect(longerThan('😀'.repeat(1000), 1000)).toBe(false);
    expect(longerThan('😀'.repeat(1001), 1000)).toBe(true);
    expect(longerThan('\ud800'.repeat(1001), 1000)).toBe(true);
  });
});
