// The runs pane's live refresh: a `workflow_run.*` event of the contact carries the run itself; any event of the
// contact (a message to or from them) means a run may have moved, and `onSettled` runs once the burst of events
// settles. One subscription per session, reading the contact and the handlers of the last render. No polling.
import { useEffect, useRef } from 'preact/hooks';
import type { Schemas } from '../api.js';
import type { LiveEvent } from '../live.js';
import type { Session } from '../session.js';
import { useLatest } from './use-latest.js';

type Run = Schemas['WorkflowRun'];

/** Events of a burst within this many milliseconds make one read. */
const SETTLE_MS = 250;

function isRun(data: unknown): data is Run {
  return typeof data === 'object' && data !== null && 'workflow_id' in data && 'steps' in data && 'status' in data;
}

function contactOf(event: LiveEvent): string | undefined {
  const data = event.data;
  if (typeof data !== 'object' || data === null || !('contact_id' in data)) return undefined;
  return typeof data.contact_id === 'string' ? data.contact_id : undefined;
}

/** Returns `settleThen`: `work` once no event came for a moment (the burst's read, if one is due, replaced). */
export function useRunEvents(
  session: Session,
  handlers: { contactId: string | undefined; onRun: (run: Run) => void; onSettled: () => void },
) {
  const latest = useLatest(handlers);
  const settle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const settleThen = (work: () => void) => {
    clearTimeout(settle.current);
    settle.current = setTimeout(work, SETTLE_MS);
  };

  useEffect(() => {
    const stop = session.subscribe((event) => {
      const { contactId, onRun } = latest.current;
      if (!contactId || contactOf(event) !== contactId) return;
      if (event.type.startsWith('workflow_run.') && isRun(event.data)) onRun(event.data);
      settleThen(() => latest.current.onSettled());
    });
    return () => {
      stop();
      clearTimeout(settle.current);
    };
  }, [session]);

  return settleThen;
}
