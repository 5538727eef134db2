// The contact's runs on the chosen connection. The public API has no list of a contact's runs across
// automations, so this lists the runs of each automation of the connection with `contact_id` and merges them,
// newest first; `more` reads the next page of every automation that has one. The runs started here wait in
// `started` until a list shows them.
import { useRef, useState } from 'preact/hooks';
import { ok, type Api, type Problem, type Schemas } from '../api.js';
import { toProblem } from '../ui.js';
import { useLatest } from './use-latest.js';

type Workflow = Schemas['WorkflowSummary'];
type Summary = Schemas['WorkflowRunSummary'];
type Started = Schemas['WorkflowRunStarted'];
type RunPage = { workflowId: string; page: Schemas['WorkflowRunList'] };

const PAGE = 10;
/** The connection's automations are read 100 at a time, this many pages at most. */
const WORKFLOW_PAGES = 5;

const newestFirst = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1;

async function readWorkflows(api: Api, connectionId: string): Promise<Workflow[]> {
  const listed: Workflow[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < WORKFLOW_PAGES; page++) {
    const answer = ok(
      await api.GET('/v1/workflows', {
        params: { query: { connection_id: connectionId, limit: 100, ...(cursor ? { cursor } : {}) } },
      }),
    );
    listed.push(...answer.data);
    if (!answer.next_cursor) break;
    cursor = answer.next_cursor;
  }
  return listed;
}

/** A page of the contact's runs of each automation: the first, or the one after the cursor given. */
function readRunPages(api: Api, contactId: string, wanted: { workflowId: string; cursor?: string }[]) {
  return Promise.all(
    wanted.map(async ({ workflowId, cursor }): Promise<RunPage> => ({
      workflowId,
      page: ok(
        await api.GET('/v1/workflows/{workflowId}/runs', {
          params: {
            path: { workflowId },
            query: { contact_id: contactId, limit: PAGE, ...(cursor !== undefined ? { cursor } : {}) },
          },
        }),
      ),
    })),
  );
}

export function useRunList(
  api: Api,
  player: { contactId: string | undefined; connectionId: string | undefined },
  onProblem: (problem: Problem) => void,
) {
  const { contactId, connectionId } = player;
  const [workflows, setWorkflows] = useState<Workflow[]>([]);
  const [runs, setRuns] = useState<Summary[]>([]);
  const [cursors, setCursors] = useState<Record<string, string | null>>({});
  const [started, setStarted] = useState<Started[]>([]);
  const latestCursors = useLatest(cursors);
  const asked = useRef(0);

  const upsertRuns = (list: Summary[]) =>
    setRuns((old) => {
      const byId = new Map(old.map((r) => [r.id, r]));
      for (const r of list) byId.set(r.id, r);
      return [...byId.values()].sort(newestFirst);
    });

  /** The automations of the connection and the first page of each one's runs for the contact. */
  const refresh = async () => {
    if (!contactId || !connectionId) return;
    const ask = ++asked.current;
    try {
      const listed = await readWorkflows(api, connectionId);
      const pages = await readRunPages(
        api,
        contactId,
        listed.map((w) => ({ workflowId: w.id })),
      );
      if (ask !== asked.current) return; // a later read answers for now
      setWorkflows(listed);
      const first = pages.flatMap((p) => p.page.data);
      upsertRuns(first);
      // A page read deeper with "More runs" keeps its cursor; an automation seen for the first time gets one.
      setCursors((old) => ({
        ...Object.fromEntries(pages.map((p) => [p.workflowId, p.page.next_cursor])),
        ...Object.fromEntries(Object.entries(old).filter(([id]) => pages.some((p) => p.workflowId === id))),
      }));
      setStarted((list) => list.filter((s) => !first.some((r) => r.id === s.id)));
    } catch (error) {
      onProblem(toProblem(error));
    }
  };

  const more = async () => {
    if (!contactId) return;
    try {
      const open = Object.entries(latestCursors.current).flatMap(([workflowId, cursor]) =>
        typeof cursor === 'string' ? [{ workflowId, cursor }] : [],
      );
      const pages = await readRunPages(api, contactId, open);
      upsertRuns(pages.flatMap((p) => p.page.data));
      setCursors((old) => ({ ...old, ...Object.fromEntries(pages.map((p) => [p.workflowId, p.page.next_cursor])) }));
    } catch (error) {
      onProblem(toProblem(error));
    }
  };

  /** Another contact: nothing of the last one stays (the automations stay: the next read replaces them). */
  const clear = () => {
    setRuns([]);
    setCursors({});
    setStarted([]);
  };
  const hasMore = Object.values(cursors).some((c) => typeof c === 'string');
  const addStarted = (run: Started) => setStarted((list) => [run, ...list]);
  const dropStarted = (runId: string) => setStarted((list) => list.filter((s) => s.id !== runId));
  return { workflows, runs, started, hasMore, refresh, more, upsertRuns, clear, addStarted, dropStarted };
}
