// The account's connections, read once per session, and the one chosen (the first connected one at first).
import { useEffect, useState } from 'preact/hooks';
import { ok, type Api, type Problem, type Schemas } from '../api.js';
import { toProblem } from '../ui.js';

type Connection = Schemas['Connection'];

export function useConnections(api: Api, onProblem: (problem: Problem) => void) {
  const [connections, setConnections] = useState<Connection[]>([]);
  const [connectionId, setConnectionId] = useState('');

  useEffect(() => {
    void (async () => {
      try {
        const list = ok(await api.GET('/v1/connections')).data;
        setConnections(list);
        setConnectionId((id) => id || (list.find((c) => c.status === 'connected')?.id ?? ''));
      } catch (error) {
        onProblem(toProblem(error));
      }
    })();
  }, [api]);

  const connection = connections.find((c) => c.id === connectionId);
  return { connections, connectionId, connection, setConnectionId };
}
