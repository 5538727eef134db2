// `npm run fake:meta`: the fake Graph API (test/fakes/meta/) on this machine, with one demo WhatsApp number and one
// demo Instagram account (Instagram Login), so a client team plays a real provider round trip without Meta: point
// the server's GRAPH_API_BASE_URL and INSTAGRAM_GRAPH_BASE_URL at it, connect with the admin calls, and send signed
// inbound messages and comments to the server's webhooks from here.
//
//   FAKE_META_PORT=4010                      where it listens (0: any free port)
//   META_APP_SECRET=…                        the secret webhooks are signed with (the server's META_APP_SECRET;
//                                            a random one is made and printed when unset)
//   FAKE_META_WEBHOOK_URL=…                  the server's webhook (default http://127.0.0.1:3000/channels/whatsapp/webhook)
//   FAKE_META_ACCESS_TOKEN=…                 the demo number's token (default fake-meta-demo-token)
//   FAKE_META_DISPLAY_PHONE="+55 11 93000-1234"  the number as Meta shows it (the demo account's whatsapp number)
//   FAKE_META_INSTAGRAM_WEBHOOK_URL=…        the server's instagram webhook
//                                            (default http://127.0.0.1:3000/channels/instagram/webhook)
//   FAKE_META_INSTAGRAM_TOKEN=…              the demo instagram account's token (default fake-meta-demo-ig-token)
//   FAKE_META_INSTAGRAM_USERNAME=loja.demo   its username (the demo account's instagram connection)
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startFakeMeta, type FakeInstagramAccount, type FakeMeta, type FakeNumber } from '../test/fakes/meta/index.js';

/** The demo number, matching the demo account's whatsapp connection and its approved template `order_update`. */
export function demoNumber(env: NodeJS.ProcessEnv): FakeNumber {
  return {
    phoneNumberId: '106540352242922',
    wabaId: '102290129340398',
    accessToken: env.FAKE_META_ACCESS_TOKEN ?? 'fake-meta-demo-token',
    displayPhoneNumber: env.FAKE_META_DISPLAY_PHONE ?? '+55 11 93000-1234',
    verifiedName: 'Loja Demo',
    templates: [
      {
        name: 'order_update',
        language: 'pt_BR',
        status: 'APPROVED',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Olá {{1}}, seu pedido {{2}} saiu para entrega.' }],
      },
      {
        name: 'welcome',
        language: 'en_US',
        status: 'APPROVED',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Hello {{1}}, welcome!' }],
      },
      {
        name: 'spring_sale',
        language: 'en_US',
        status: 'PAUSED',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Our spring sale starts today.' }],
      },
    ],
  };
}

/** The demo instagram account (Instagram Login), matching the demo account's instagram connection `loja.demo`. */
export function demoInstagram(env: NodeJS.ProcessEnv): FakeInstagramAccount {
  return {
    login: 'instagram',
    igUserId: '17841405309211844',
    username: env.FAKE_META_INSTAGRAM_USERNAME ?? 'loja.demo',
    accessToken: env.FAKE_META_INSTAGRAM_TOKEN ?? 'fake-meta-demo-ig-token',
  };
}

/** What a client team needs to know, printed at start. */
export function banner(
  fake: FakeMeta,
  appSecret: string,
  webhookUrl: string,
  instagramWebhookUrl = 'http://127.0.0.1:3000/channels/instagram/webhook',
): string {
  const number = fake.number();
  const instagram = fake.instagramAccounts[0];
  return [
    `fake Meta Graph API listening on ${fake.url}`,
    '',
    'Set on the server:',
    `  GRAPH_API_BASE_URL=${fake.url}`,
    `  META_APP_SECRET=${appSecret}`,
    '',
    'Connect the number (admin API):',
    `  PUT /admin/v1/connections/{connectionId}/whatsapp-cloud`,
    `  {"phone_number_id":"${number.phoneNumberId}","waba_id":"${number.wabaId}","access_token":"${number.accessToken}"}`,
    `  (the connection's phone must be ${number.displayPhoneNumber})`,
    '',
    `Webhooks go to ${webhookUrl}. Send a signed inbound text:`,
    `  curl -s ${fake.url}/_fake/inbound -H 'content-type: application/json' \\`,
    `    -d '{"from":"+5511987654321","name":"Ana","text":"Oi!"}'`,
    'Fail one of our messages later (a failed status webhook):',
    `  curl -s ${fake.url}/_fake/status -H 'content-type: application/json' -d '{"message_id":"wamid.…","status":"failed"}'`,
    'Arrange an answer for a recipient (e.g. outside the 24-hour window):',
    `  curl -s ${fake.url}/_fake/script -H 'content-type: application/json' \\`,
    `    -d '{"to":"+5511987654321","answer":{"kind":"error","code":131047}}'`,
    `What the server sent: curl -s ${fake.url}/_fake/requests   (the accepted messages: ${fake.url}/_fake/sent)`,
    ...(instagram ? instagramBanner(fake, instagram, instagramWebhookUrl) : []),
  ].join('\n');
}

function instagramBanner(fake: FakeMeta, account: FakeInstagramAccount, webhookUrl: string): string[] {
  const post = `curl -s ${fake.url}/_fake/instagram`;
  const json = "-H 'content-type: application/json'";
  return [
    '',
    `Instagram: set INSTAGRAM_GRAPH_BASE_URL=${fake.url} too, then connect the account (admin API):`,
    `  PUT /admin/v1/connections/{connectionId}/instagram`,
    `  {"login":"instagram","ig_user_id":"${account.igUserId}","access_token":"${account.accessToken}"}`,
    `  (the connection's username must be ${account.username})`,
    `Instagram webhooks go to ${webhookUrl}. A signed direct message, a comment, a tap on a button:`,
    `  ${post}/inbound ${json} -d '{"from":"1914016295355745","text":"Oi!"}'`,
    `  ${post}/comment ${json} -d '{"from":"1914016295355745","username":"ana","text":"Price?"}'`,
    `  ${post}/inbound ${json} -d '{"from":"1914016295355745","text":"Track","postback_payload":"track"}'`,
    'Arrange an answer for a contact or a comment (e.g. outside the messaging window):',
    `  ${post}/script ${json} \\`,
    `    -d '{"recipient":"1914016295355745","answer":{"kind":"error","code":10,"subcode":2534022}}'`,
    `What it accepted: curl -s ${fake.url}/_fake/instagram/sent`,
  ];
}

async function main(): Promise<void> {
  const appSecret = process.env.META_APP_SECRET ?? randomBytes(16).toString('hex');
  const webhookUrl = process.env.FAKE_META_WEBHOOK_URL ?? 'http://127.0.0.1:3000/channels/whatsapp/webhook';
  const port = Number(process.env.FAKE_META_PORT ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('FAKE_META_PORT must be a port number');
  const instagramWebhookUrl =
    process.env.FAKE_META_INSTAGRAM_WEBHOOK_URL ?? 'http://127.0.0.1:3000/channels/instagram/webhook';
  const fake = await startFakeMeta({
    port,
    appSecret,
    webhookUrl,
    numbers: [demoNumber(process.env)],
    instagramWebhookUrl,
    instagramAccounts: [demoInstagram(process.env)],
  });
  console.log(banner(fake, appSecret, webhookUrl, instagramWebhookUrl));
  const stop = () => void fake.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
