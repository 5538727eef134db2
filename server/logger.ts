// Structured JSON logs (pino). Never a key, a secret or a message text: the redaction list removes them
// wherever they appear in a logged object. No request body is logged at all; `value` is redacted too, as an
// account secret's value (`POST /admin/v1/accounts/{id}/secrets`) is named, should a body ever be logged.
// A channel's access token (issue 35) is redacted by name (`access_token`, `accessToken`, `token`) and as the
// Authorization header, at the depths a log call nests objects (an error's request, its headers); a token is
// therefore never put inside a string (a URL's query, a message), where no path can find it.
// On a terminal in development the same entries are written as one readable line each (prettyStream).
import { pino, type DestinationStream, type Logger } from 'pino';
import { isRecord } from './guards.js';

/** The Authorization header wherever a logged object carries one: itself, its headers, a request's headers. */
const AUTHORIZATION_PATHS = ['authorization', 'Authorization'].flatMap((name) => [
  name,
  `*.${name}`,
  `headers.${name}`,
  `*.headers.${name}`,
  `*.*.headers.${name}`,
]);

/** Fields that name a token, at the top and two levels down (`{ connection: { credentials: { token } } }`). */
const TOKEN_PATHS = ['access_token', 'accessToken', 'token'].flatMap((name) => [name, `*.${name}`, `*.*.${name}`]);

/**
 * `destination`: stdout by default; tests pass a stream to read what was logged. `pretty`: readable lines
 * (after redaction, which pino applies before the line is written) instead of JSON.
 */
export function createLogger(
  level: string,
  destination?: DestinationStream,
  options: { pretty?: boolean } = {},
): Logger {
  // JSON lines to stdout are written off the event loop (sonic-boom's asynchronous mode: lines written while a
  // write is under way go out together in the next one): a synchronous write per request line cost ~25 µs of
  // the event loop at every request. pino flushes what is left when the process exits; a kill -9 loses the
  // lines of the last write under way, a few milliseconds of them.
  const out = options.pretty
    ? prettyStream(destination ?? process.stdout)
    : (destination ?? pino.destination({ dest: 1, sync: false }));
  return pino(
    {
      level,
      redact: {
        paths: [
          ...AUTHORIZATION_PATHS,
          ...TOKEN_PATHS,
          '*.secret',
          '*.api_key',
          '*.apiKey',
          '*.text',
          '*.value',
          'secret',
          'text',
          'value',
        ],
        censor: '[redacted]',
      },
    },
    out,
  );
}

/**
 * The same logger (level, destination, bindings) without the redaction list, for a line whose fields are chosen
 * one by one and hold no header, body or URL: the request line (http/observability.ts). The redaction's walk of
 * the list's wildcard paths cost 19 µs of the line's 24 µs at every request. Any other entry keeps the list.
 */
export function unredacted(logger: Logger): Logger {
  return logger.child({}, { redact: [] });
}

/** LOG_FORMAT=auto: readable when a person watches (stdout a terminal) outside production, JSON lines otherwise. */
export function prettyLogs(format: 'auto' | 'json' | 'pretty', env: string, isTTY: boolean | undefined): boolean {
  if (format !== 'auto') return format === 'pretty';
  return env !== 'production' && isTTY === true;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** What every entry carries, shown in the line's head or not at all. */
const HEAD = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

/** `12:30:01.250 INFO  message key=value …`, then an error's stack on the lines below. */
export function prettyLine(json: string): string {
  let entry: unknown;
  try {
    entry = JSON.parse(json);
  } catch {
    return json; // not pino's: as it came
  }
  if (!isRecord(entry)) return json; // pino writes an object per line: this one is not pino's either
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const level = (typeof entry.level === 'number' ? LEVELS[entry.level] : undefined) ?? String(entry.level);
  const fields = Object.entries(entry)
    .filter(([key]) => !HEAD.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  const head = [time, level.padEnd(5), typeof entry.msg === 'string' ? entry.msg : '', ...fields].join(' ');
  const err = isRecord(entry.err) ? entry.err : {};
  const detail = typeof err.stack === 'string' ? err.stack : typeof err.message === 'string' ? err.message : '';
  return `${head.trimEnd()}${detail ? `\n    ${detail.split('\n').join('\n    ')}` : ''}\n`;
}

/** A pino destination writing each JSON line to `out` as `prettyLine` shows it. */
export function prettyStream(out: { write(chunk: string): unknown }): DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) out.write(prettyLine(line));
    },
  };
}
