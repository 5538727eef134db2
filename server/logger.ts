// Structured JSON logs (pino). Never a key, a secret or a message text: the redaction list removes them
// wherever they appear in a logged object. No request body is logged at all; `value` is redacted too, as an
// account secret's value (`POST /admin/v1/accounts/{id}/secrets`) is named, should a body ever be logged.
import { pino, type DestinationStream, type Logger } from 'pino';

/** `destination`: stdout by default; tests pass a stream to read what was logged. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          'authorization',
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
    destination,
  );
}
