// GET /v1/me: the account and the key making the call.
import type { Handlers } from '../context.js';

export const accountHandlers: Handlers = {
  getMe: async ({ caller }) => ({
    status: 200,
    body: {
      account: { id: caller.account.id, name: caller.account.name, alias: caller.account.alias },
      api_key: {
        id: caller.key.id,
        name: caller.key.name,
        scopes: caller.key.scopes,
        created_at: caller.key.created_at,
        expires_at: caller.key.expires_at,
      },
    },
  }),
};
