// The contact the tab plays on the open account, kept across a reload (the tab's session storage, one per
// account): a reload opens the same chat and runs again, and another account brings back its own.
import { useEffect, useState } from 'preact/hooks';
import type { Player } from '../session.js';

const keyOf = (accountId: string) => `console-player:${accountId}`;

function isPlayer(value: unknown): value is Player {
  return typeof value === 'object' && value !== null && 'connection' in value && 'sender' in value && 'name' in value;
}

function keptPlayer(accountId: string): Player | undefined {
  try {
    const value: unknown = JSON.parse(sessionStorage.getItem(keyOf(accountId)) ?? 'null');
    return isPlayer(value) ? value : undefined;
  } catch {
    return undefined; // not ours, or from an older page: start without a contact
  }
}

export function usePlayer(accountId: string | undefined): [Player | undefined, (player: Player) => void] {
  const [player, setPlayer] = useState<Player | undefined>();
  useEffect(() => setPlayer(accountId ? keptPlayer(accountId) : undefined), [accountId]);
  const choose = (next: Player) => {
    setPlayer(next);
    if (accountId) sessionStorage.setItem(keyOf(accountId), JSON.stringify(next));
  };
  return [player, choose];
}
