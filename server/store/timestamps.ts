// Timestamps leave the database as ISO 8601 strings with all six fraction digits (`2026-11-20T14:00:00.123456Z`):
// a JS Date would cut them to milliseconds, and cursors must be exact to the microsecond.
export const TIMESTAMPTZ_OID = 1184;
export const INT8_OID = 20;

/** PostgreSQL's text form (session time zone UTC) → ISO 8601 with microseconds. */
export function parseTimestamptz(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?([+-]\d{2}(?::?\d{2})?)$/.exec(text);
  if (!m) return text; // infinity and the like: not used by the service
  if (m[4] !== '+00' && m[4] !== '+00:00' && m[4] !== '+0000') {
    // Not UTC (the session time zone is UTC, so this should not happen): normalise through Date.
    const d = new Date(`${m[1]}T${m[2]}${m[3] ? `.${m[3]}` : ''}${m[4]}`);
    return d.toISOString().replace(/\.(\d{3})Z$/, `.$1${(m[3] ?? '').padEnd(6, '0').slice(3)}Z`);
  }
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(6, '0')}Z`;
}
