// Trimming by hand, in one pass: a pattern such as /-+$/ or /\s+$/ is quadratic on a long run of the character that
// does not end the text (the regex engine retries at every position), and tenants write the text these see
// (issue 33; eslint-plugin-regexp's no-super-linear-move guards the rest).

/** `text` without `char` repeated at its end. */
export function trimEnd(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end -= 1;
  return text.slice(0, end);
}

/** `text` without `char` repeated at either end. */
export function trimBoth(text: string, char: string): string {
  let start = 0;
  while (start < text.length && text[start] === char) start += 1;
  return trimEnd(text.slice(start), char);
}

const ASCII_SPACE = new Set([' ', '\t', '\n', '\r', '\f', '\v']);

/** `text` without ASCII white space (space, tab, line breaks, form feed, vertical tab) at either end. */
export function trimAsciiSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && ASCII_SPACE.has(text[start] ?? '')) start += 1;
  while (end > start && ASCII_SPACE.has(text[end - 1] ?? '')) end -= 1;
  return text.slice(start, end);
}

/** `text` has more than `max` characters, counted as code points (as JSON Schema's maxLength counts them). */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    count += 1;
    if (count > max) return true;
  }
  return false;
}
