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

/**
 * Who carries a connection's messages: the sandbox (the page plays its contacts and channel), or a real channel, a
 * WhatsApp Cloud API number attached through the admin API (its contacts write from their phones, and the sandbox
 * refuses to act for them: `not_sandbox`).
 */
export type Provider = 'sandbox' | AdminSchemas['AdminWhatsAppCloudNumber']['provider'];

export const PROVIDER_LABELS: Record<Provider, string> = { sandbox: 'sandbox', whatsapp_cloud: 'WhatsApp Cloud API' };

/** A connection of the account as the page shows it: the API's connection and who carries its messages. */
export type PlayedConnection = Schemas['Connection'] & { provider: Provider };

/** The contact the user plays, on one connection. No `contactId` yet: someone new, made by their first message. */
export interface Player {
  connection: PlayedConnection;
  sender: Sender;
  name: string;
  contactId?: string;
  conversationId?: string;
}
