// The account's connections, each with who carries its messages (the sandbox or a WhatsApp Cloud API number), and
// the one chosen (the first connected one at first). Read once per session, and again when a connection's
// status changes (attaching or detaching a number passes through `connection.disconnected` and `connected`).
import { useEffect, useRef, useState } from 'preact/hooks';
import { ok, type AdminApi, type Problem, type Schemas } from '../api.js';
import type { PlayedConnection, Provider, Session } from '../session.js';
import { toProblem } from '../ui.js';

/** The provider of a connection: only a whatsapp one can have a WhatsApp Cloud number (404 `not_whatsapp_cloud`: none). */
async function providerOf(admin: AdminApi, connection: Schemas['Connection']): Promise<Provider> {
  if (connection.channel !== 'whatsapp') return 'sandbox';
  const answer = await admin.GET('/admin/v1/connections/{connectionId}/whatsapp-cloud', {
    params: { path: { connectionId: connection.id } },
  });
  if (answer.response.status === 404) return 'sandbox';
  return ok(answer).provider;
}

export function useConnections(session: Session, onProblem: (problem: Problem) => void) {
  const [connections, setConnections] = useState<PlayedConnection[]>([]);
  const [connectionId, setConnectionId] = useState('');
  const asked = useRef(0);

  useEffect(() => {
    const load = async () => {
      const ask = ++asked.current;
      try {
        const list = ok(await session.api.GET('/v1/connections')).data;
        const played = await Promise.all(
          list.map(async (c) => ({ ...c, provider: await providerOf(session.admin, c) })),
        );
        if (ask !== asked.current) return; // a later read answers for now
        setConnections(played);
        setConnectionId((id) => id || (list.find((c) => c.status === 'connected')?.id ?? ''));
      } catch (error) {
        onProblem(toProblem(error));
      }
    };
    void load();
    return session.subscribe((event) => {
      if (event.type.startsWith('connection.')) void load();
    });
  }, [session]);

  const connection = connections.find((c) => c.id === connectionId);
  return { connections, connectionId, connection, setConnectionId };
}
