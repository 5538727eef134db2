// The command line of the examples that need the API, the admin API and a webhook receiver of their own:
// API_KEY and ADMIN_TOKEN from the environment (BASE_URL, RECEIVER_PORT optional), a receiver on this machine,
// closed at the end whatever happens.
import { createClient, type ApiClient } from '../client/index.js';
import { createAdminClient, type AdminClient } from './sandbox-exchange.js';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.js';

export async function runWithReceiver(
  example: (api: ApiClient, admin: AdminClient, receiver: WebhookReceiver) => Promise<void>,
): Promise<void> {
  const apiKey = process.env.API_KEY;
  const adminToken = process.env.ADMIN_TOKEN;
  if (!apiKey || !adminToken) {
    console.error('Set API_KEY to the key `npm start` printed and ADMIN_TOKEN to the admin token (data/admin-token).');
    process.exit(2);
  }
  const baseUrl = process.env.BASE_URL ?? 'http://127.0.0.1:3000';
  const receiver = await startReceiver({
    port: Number(process.env.RECEIVER_PORT ?? 0),
    secrets: [],
    log: (line) => console.log(`   receiver: ${line}`),
  });
  try {
    await example(createClient({ baseUrl, apiKey }), createAdminClient(baseUrl, adminToken), receiver);
  } finally {
    await receiver.close();
  }
}
