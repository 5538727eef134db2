// The failures the sandbox can cause, on the connection and contact played: the next send's outcome, a whatsapp
// message failing later, the connection disconnecting and reconnecting, the contact blocked. Each says what it
// did (`done`) or shows the API's refusal (`problem`).
import { useState } from 'preact/hooks';
import { ok, type AdminSchemas, type Problem } from '../api.js';
import type { Player, Session } from '../session.js';
import { toProblem } from '../ui.js';

export type Outcome = AdminSchemas['SandboxSendOutcome']['outcome'];

export const OUTCOMES: Record<Outcome, string> = {
  accepted: 'Accepted',
  provider_rejected: 'Rejected by the provider',
  provider_throttled: 'Throttled',
  provider_unavailable: 'Provider unavailable',
  outcome_unknown: 'Outcome unknown',
  recipient_unavailable: 'Recipient unavailable',
  conversation_not_owned: 'Conversation not owned',
  fails_later: 'Accepted, fails later (whatsapp)',
};

/** `player` undefined: nothing to cause failures on (the pane shows no control, and what was done stays). */
export function useFailures(session: Session, player: Player | undefined) {
  const { admin } = session;
  const [problem, setProblem] = useState<Problem | undefined>();
  const [done, setDone] = useState<string | undefined>();

  const act = async (what: (player: Player, connectionId: string) => Promise<string>) => {
    if (!player) return;
    setProblem(undefined);
    setDone(undefined);
    try {
      setDone(await what(player, player.connection.id));
    } catch (error) {
      setProblem(toProblem(error));
    }
  };

  const arrangeOutcome = (outcome: Outcome) =>
    act(async (_player, connectionId) => {
      const arranged = ok(
        await admin.POST('/admin/v1/sandbox/connections/{connectionId}/send-outcomes', {
          params: { path: { connectionId } },
          body: { outcome },
        }),
      );
      return `The next send answers ${OUTCOMES[outcome].toLowerCase()} (${arranged.queued} queued).`;
    });

  const failLater = (messageId: string) =>
    act(async () => {
      ok(
        await admin.POST('/admin/v1/sandbox/messages/{messageId}/failure', {
          params: { path: { messageId: messageId.trim() } },
          body: { provider_code: '131026', provider_message: 'Message undeliverable' },
        }),
      );
      return 'whatsapp reported the message undelivered.';
    });

  const setConnected = (connected: boolean) =>
    act(async (player, connectionId) => {
      ok(
        await admin.PATCH('/admin/v1/connections/{connectionId}', {
          params: { path: { connectionId } },
          body: connected
            ? { status: 'connected' }
            : { status: 'disconnected', disconnect_reason: 'authorization_lost' },
        }),
      );
      return `${player.connection.name} ${connected ? 'connected again' : 'disconnected'}.`;
    });

  const setBlocked = (blocked: boolean) =>
    act(async (player) => {
      const contactId = player.contactId ?? '';
      ok(
        await admin.PATCH('/admin/v1/sandbox/contacts/{contactId}', {
          params: { path: { contactId } },
          body: { blocked_from_automations: blocked },
        }),
      );
      return `${player.name} ${blocked ? 'is blocked from automations' : 'is no longer blocked'}.`;
    });

  return { problem, done, arrangeOutcome, failLater, setConnected, setBlocked };
}
