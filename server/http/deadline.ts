// The request deadline at the HTTP edge: each request runs in its own context (../request-context.ts) with a
// deadline REQUEST_DEADLINE_MS away. At the deadline the request is expired (its database work refused, its
// statements cancelled: ../store/deadline.ts) and `onDeadline` answers it, unless it was answered already.
import type { NextFunction, Response } from 'express';
import { performance } from 'node:perf_hooks';
import { expire, serveRequest, type RequestContext } from '../request-context.js';

export function serveWithDeadline(
  requestId: string,
  deadlineMs: number,
  res: Response,
  next: NextFunction,
  onDeadline: () => void,
): void {
  const context: RequestContext = { requestId, deadline: performance.now() + deadlineMs };
  let timer: NodeJS.Timeout | undefined;
  const done = serveRequest(context, () => {
    timer = setTimeout(() => {
      expire(context);
      onDeadline();
    }, deadlineMs);
    next();
  });
  // Emitted once per answer ('close' follows 'finish', or the client hung up).
  res.on('close', () => {
    clearTimeout(timer);
    done();
  });
}
