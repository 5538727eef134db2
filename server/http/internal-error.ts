// The answer to the server's own defect (an unexpected error, a response its description does not allow): 500
// internal_error with the request id, and the error in the log under that id. Nothing of the error reaches the
// client.
import type { Request, Response } from 'express';
import type { Logger } from 'pino';

export function answerInternalError(logger: Logger, req: Request, res: Response, error: unknown): void {
  const { requestId } = res.locals;
  logger.error({ err: error, requestId, route: req.path }, 'unexpected error');
  res.status(500).json({
    type: 'error',
    message: 'Something went wrong on our side. Retry with the same Idempotency-Key.',
    context: { code: 'internal_error', request_id: requestId },
  });
}
