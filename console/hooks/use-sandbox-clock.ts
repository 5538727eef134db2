// The sandbox clock and what of the account waits on it (runs asleep or waiting for an answer, webhook and
// invoke retries, arranged failures), read again when the account's stream tells something happened (a job that
// ran leaves its trace there), never on a timer; and the clock moved forward.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ok, type AdminSchemas } from '../api.js';
import type { Session } from '../session.js';
import { toProblem, useAction } from '../ui.js';

type Wait = AdminSchemas['SandboxWait'];

/** Events of a burst within this many milliseconds make one read. */
const SETTLE_MS = 150;

export function useSandboxClock(session: Session) {
  const { admin, account } = session;
  const [clock, setClock] = useState<AdminSchemas['SandboxClock'] | undefined>();
  const [waits, setWaits] = useState<Wait[]>([]);
  const action = useAction();
  const asked = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const load = async () => {
    const ask = ++asked.current;
    try {
      const [c, w] = await Promise.all([
        admin.GET('/admin/v1/sandbox/clock'),
        admin.GET('/admin/v1/sandbox/accounts/{accountId}/waits', { params: { path: { accountId: account.id } } }),
      ]);
      if (ask !== asked.current) return;
      setClock(ok(c));
      setWaits(ok(w).data);
    } catch (error) {
      action.setProblem(toProblem(error));
    }
  };
  useEffect(() => void load(), [account.id]);
  // Something happened (an event, a delivery change): what waits may have changed. One read for a burst.
  useEffect(
    () =>
      session.subscribe(() => {
        clearTimeout(timer.current);
        timer.current = setTimeout(() => void load(), SETTLE_MS);
      }),
    [account.id],
  );

  /** Moves the clock `seconds` forward, then reads what waits again. */
  const advance = (seconds: number) =>
    action.run(async () => {
      setClock(ok(await admin.PATCH('/admin/v1/sandbox/clock', { body: { advance_seconds: seconds } })));
      await load();
    });

  return { clock, waits, problem: action.problem, busy: action.busy, advance };
}
