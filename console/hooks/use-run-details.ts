// The runs' steps and the automation versions they follow, read as the pane asks: each run when the list says
// it moved (or when a burst of the contact's messages may have moved it), each version once.
import { useRef, useState } from 'preact/hooks';
import { ok, type Api, type Schemas } from '../api.js';
import { useLatest } from './use-latest.js';

type Summary = Schemas['WorkflowRunSummary'];
type Run = Schemas['WorkflowRun'];
type Version = Schemas['WorkflowVersion'];

/**
 * Reads each of `items` whose key is not being read (or read) already, so overlapping renders ask once; a failed
 * read forgets its keys, to be asked again at the next change.
 */
async function readNew<T, R>(
  reading: Set<string>,
  items: T[],
  keyOf: (item: T) => string,
  read: (item: T) => Promise<R>,
): Promise<R[]> {
  const fresh = items.filter((item) => {
    const key = keyOf(item);
    if (reading.has(key)) return false;
    reading.add(key);
    return true;
  });
  return Promise.all(fresh.map(read)).catch((error: unknown) => {
    for (const item of fresh) reading.delete(keyOf(item));
    throw error;
  });
}

export function useRunDetails(api: Api) {
  const [details, setDetails] = useState<Record<string, Run>>({});
  const [versions, setVersions] = useState<Record<string, Version>>({});
  const latest = useLatest({ details, versions });
  /** Reads already asked for (run id @ updated_at, version id). */
  const reading = useRef(new Set<string>());

  /**
   * Reads the runs of `list` whose read copy is older than the list says, then the versions they follow. With
   * `burst` (the count of the contact's bursts of messages), every run of `list` again, once per burst.
   */
  const readDetails = async (list: Summary[], burst?: number) => {
    const { details: known, versions: have } = latest.current;
    const force = burst !== undefined;
    const moved = list.filter((r) => force || known[r.id]?.updated_at !== r.updated_at);
    const read = await readNew(
      reading.current,
      moved,
      (r) => `${r.id}@${r.updated_at}${force ? `#${burst}` : ''}`,
      async (r) =>
        ok(
          await api.GET('/v1/workflows/{workflowId}/runs/{runId}', {
            params: { path: { workflowId: r.workflow_id, runId: r.id } },
          }),
        ),
    );
    setDetails((old) => ({ ...old, ...Object.fromEntries(read.map((r) => [r.id, r])) }));
    const followed = read.filter(
      (r, i) => read.findIndex((o) => o.version_id === r.version_id) === i && !have[r.version_id],
    );
    const fetched = await readNew(
      reading.current,
      followed,
      (r) => r.version_id,
      async (r) =>
        ok(
          await api.GET('/v1/workflows/{workflowId}/versions/{versionId}', {
            params: { path: { workflowId: r.workflow_id, versionId: r.version_id } },
          }),
        ),
    );
    if (fetched.length) setVersions((old) => ({ ...old, ...Object.fromEntries(fetched.map((v) => [v.id, v])) }));
  };

  /** A run as an event brought it (its steps included). */
  const keep = (run: Run) => setDetails((old) => ({ ...old, [run.id]: run }));
  /** Another contact: the runs go, the versions (of the account's automations) stay. */
  const clear = () => setDetails({});
  return { details, versions, readDetails, keep, clear };
}
