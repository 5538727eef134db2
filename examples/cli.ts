// The command line of the examples that need the API, the admin API and a webhook receiver of their own:
// API_KEY and ADMIN_TOKEN from the environment (BASE_URL, default http://127.0.0.1:3000, and RECEIVER_PORT
// optional), a receiver on this machine, closed at the end whatever happens; a server that is not there is one
// line and exit 1.
import { createClient, type ApiClient } from '../client/index.js';
import { baseUrl, runExample, settings } from './check.js';
import { createAdminClient, type AdminClient } from './sandbox-exchange.js';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.js';

export async function runWithReceiver(
  example: (api: ApiClient, admin: AdminClient, receiver: WebhookReceiver) => Promise<void>,
): Promise<void> {
  const { API_KEY, ADMIN_TOKEN } = settings('API_KEY', 'ADMIN_TOKEN');
  const receiver = await startReceiver({
    port: Number(process.env.RECEIVER_PORT ?? 0),
    secrets: [],
    log: (line) => console.log(`   receiver: ${line}`),
  });
  try {
    await runExample(() =>
      example(
        createClient({ baseUrl: baseUrl(), apiKey: API_KEY }),
        createAdminClient(baseUrl(), ADMIN_TOKEN),
        receiver,
      ),
    );
  } finally {
    await receiver.close();
  }
}
