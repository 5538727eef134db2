// The public API's steps (match, auth, scope and rate limit, entry rules, validator, idempotency, handler) run as
// one Express middleware. Each step mounted on the app was a layer of Express's router, which, for every layer a
// request passes, reads its path again, tests the layer's pattern and merges its parameters: a dozen layers per
// call, none of which mounts on a path or reads Express's params (the steps keep theirs in `res.locals`).
// The steps see the same request in the same order, and an error ends the run as Express's router does: the
// app's error handler gets it (a step's throw, its `next(error)` or its promise's rejection).
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** A step as Express calls it: it may answer, call `next`, `next(error)`, throw or return a rejected promise. */
export type Step = (req: Request, res: Response, next: NextFunction) => unknown;

/** The steps run one after the other, as one middleware: past the last one, the app's next middleware. */
export function inOrder(steps: readonly Step[]): RequestHandler {
  return (req, res, done) => new StepRun(steps, req, res, done).next();
}

/**
 * One request's run through the steps. A class, its `next` bound per request: under tsx (esbuild's keepNames) a
 * function literal bound to a name is renamed with `Object.defineProperty` each time it is made.
 */
class StepRun {
  private index = 0;
  readonly next: (error?: unknown) => void;

  constructor(
    private readonly steps: readonly Step[],
    private readonly req: Request,
    private readonly res: Response,
    private readonly done: NextFunction,
  ) {
    this.next = this.step.bind(this);
  }

  private step(error?: unknown): void {
    // Express's router treats any truthy value as an error ('route' and 'router' are not used here).
    if (error) return this.done(error);
    const step = this.steps[this.index++];
    if (step === undefined) return this.done();
    try {
      const returned = step(this.req, this.res, this.next);
      if (returned instanceof Promise)
        returned.then(undefined, (error: unknown) => this.next(error || new Error('Rejected promise')));
    } catch (thrown) {
      this.next(thrown || new Error('a step threw nothing'));
    }
  }
}
