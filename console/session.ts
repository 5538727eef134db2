// The types the page and its panes share, in a module of their own: the page (app.tsx), the panes and their hooks
// import them from here, so no import runs from a pane back to the page or from one pane to another.
import type { AdminApi, AdminSchemas, Api, Schemas } from './api.js';
import type { LiveEvent } from './live.js';

/** What every pane receives. */
export interface Session {
  admin: AdminApi;
  api: Api;
  token: string;
  account: AdminSchemas['AdminAccount'];
  /** Calls `listener` for each live event of the account until the returned function is called. */
  subscribe: (listener: (event: LiveEvent) => void) => () => void;
}

export type Sender = AdminSchemas['SandboxInboundRequest']['from'];

/** The contact the user plays, on one connection. No `contactId` yet: someone new, made by their first message. */
export interface Player {
  connection: Schemas['Connection'];
  sender: Sender;
  name: string;
  contactId?: string;
  conversationId?: string;
}
