// Structured JSON logs (pino). Never a key, a secret or a message text: the redaction list removes them
// wherever they appear in a logged object.
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
          'secret',
          'text',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
