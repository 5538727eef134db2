// `npm run bench:whatsapp` (issue 35): Meta's webhook and an automation's reply over the WhatsApp Cloud API, on the
// server as an operator runs it (`npm start`'s command, its job workers in the same process) against the fake
// Graph API on loopback (test/fakes/meta), on PGlite (a temporary DATA_DIR) and on PostgreSQL (a scratch database,
// created and dropped). Two numbers are attached through the admin API: one without automations, one whose
// published automation answers any message. Then:
//   1. acknowledgment: signed text payloads (each its own wamid, from --contacts contacts who wrote once before, so
//      none is a new contact's race) POSTed to /channels/whatsapp/webhook at --rate per second (500) for --seconds
//      (20) by --clients (16) keep-alive clients. It prints the payloads/s acknowledged and the 200's p50/p95/p99,
//      timed from each payload's planned send (an answer that comes late delays the payloads after it, and they
//      count the wait), goal ≥ 500/s with p99 ≤ 100 ms; the backlog of `channels.webhook` jobs when the load ends
//      and how long until it is applied;
//   2. the reply: --reply-rate (50) new contacts a second for --seconds write to the second number; per message,
//      the time from its webhook POST to the automation's reply at the fake (matched by recipient), goal p50 ≤
//      100 ms on PostgreSQL;
//   3. nothing lost: --crash-payloads (2000) payloads as fast as the server acknowledges them (at most 900/s), the
//      server killed (SIGKILL) right after the last 200 while its workers apply them, and started again on the same
//      data; once the backlog is gone, each acknowledged wamid must be exactly one inbound message.
// PostgreSQL's jobs and messages are queried while the server runs. PGlite's directory belongs to the server
// process: there the backlog is read from /metrics (jobs due or running, of every kind) and the messages are
// counted once the server has stopped.
//
// Flags: --engine pglite|postgres|both (both), --rate N, --seconds N, --clients N, --contacts N, --reply-rate N,
// --crash-payloads N (0 skips 3.), --worker-processes N (PostgreSQL: the API process with WORKERS=false beside N server processes
// that run the jobs, every one of them killed in 3.; default 0, one process as `npm start` runs). LOG_LEVEL sets the
// server's (warn); SERVER_LOG_DIR keeps its log.
// The load, the server's start and the tables are shared with bench:instagram (meta-webhooks.ts).
import { randomBytes, randomInt } from 'node:crypto';
import { webhooks, type FakeMeta, type FakeNumber } from '../../test/fakes/meta/index.js';
import { phoneOf } from './common.js';
import {
  benchAccount,
  idOf,
  options,
  publishReply,
  runChannelBench,
  signedJson,
  type ChannelBench,
  type Signed,
} from './meta-webhooks.js';

/** Phones of the contacts who write to the number without automations, and of the new ones who get replies. */
const FIRST_CONTACT = 0;
const FIRST_REPLY_CONTACT = 1_000_000;
const REPLY_GOAL_P50 = 100;

/** A text payload as Meta writes it, signed; its reply is matched by the phone's digits. */
function signedText(number: FakeNumber, phone: string, text: string): Signed {
  const wamid = webhooks.newWamid();
  const payload = webhooks.text(number, { from: phone, name: 'Cliente Bench', text, id: wamid });
  return signedJson(webhooks.metaJson(payload), wamid, webhooks.digitsOf(phone));
}

/** A number of the fake, as the admin API attaches it. */
function fakeNumber(name: string): { number: FakeNumber; phone: string } {
  const local = `9${randomInt(1000_0000, 9999_9999)}`;
  return {
    phone: `+5511${local}`,
    number: {
      phoneNumberId: `10${randomInt(1e12, 9e12)}`,
      wabaId: `10${randomInt(1e12, 9e12)}`,
      accessToken: `EAAG${randomBytes(24).toString('hex')}`,
      displayPhoneNumber: `+55 11 ${local.slice(0, 5)}-${local.slice(5)}`,
      verifiedName: name,
      templates: [],
    },
  };
}

interface Seeded {
  /** The number without automations (acknowledgment, crash) and its connection. */
  quiet: { number: FakeNumber; connectionId: string };
  /** The number whose automation answers any message. */
  replying: { number: FakeNumber; connectionId: string };
}

/** An account, a key, two whatsapp connections attached to numbers of the fake, an automation published on one. */
async function seed(baseUrl: string, fake: FakeMeta): Promise<Seeded> {
  const { accountId, admin, api } = await benchAccount(baseUrl, 'Bench WhatsApp');
  const attach = async (name: string) => {
    const { number, phone } = fakeNumber(name);
    fake.addNumber(number);
    const connection = await admin('POST', `/accounts/${accountId}/connections`, { channel: 'whatsapp', name, phone });
    const connectionId = idOf(connection, 'a connection');
    await admin('PUT', `/connections/${connectionId}/whatsapp-cloud`, {
      phone_number_id: number.phoneNumberId,
      waba_id: number.wabaId,
      access_token: number.accessToken,
    });
    return { number, connectionId };
  };
  const quiet = await attach('Loja Quieta');
  const replying = await attach('Loja Atende');
  await publishReply(
    api,
    { type: 'whatsapp', connection_id: replying.connectionId },
    'Resposta automática',
    { events: ['message'], match: 'any' },
    'Oi! Recebemos sua mensagem.',
  );
  return { quiet, replying };
}

const contactPhone = (i: number) => phoneOf(FIRST_CONTACT + (i % options.contacts)).nine;

const whatsapp: ChannelBench<Seeded> = {
  name: 'WhatsApp',
  short: 'wa',
  webhookPath: '/channels/whatsapp/webhook',
  env: () => ({}),
  seed,
  quietConnectionId: (seeded) => seeded.quiet.connectionId,
  ackPayloads: ({ quiet }, count) => ({
    warm: Array.from({ length: options.contacts }, (_, i) => signedText(quiet.number, contactPhone(i), 'Oi')),
    load: Array.from({ length: count }, (_, i) =>
      signedText(quiet.number, contactPhone(i), `Mensagem ${i}: tem o tênis no 38?`),
    ),
  }),
  crashPayloads: ({ quiet }, count) =>
    Array.from({ length: count }, (_, i) => signedText(quiet.number, contactPhone(i), `Antes da queda ${i}`)),
  replies: [
    {
      title: "A new contact's text → the automation's reply at the fake Graph API",
      rate: options.replyRate,
      label: 'new contacts written',
      payloads: ({ replying }, count) =>
        Array.from({ length: count }, (_, i) =>
          signedText(replying.number, phoneOf(FIRST_REPLY_CONTACT + i).nine, 'Oi, vocês estão abertos hoje?'),
        ),
      arrivals: (fake, { replying }) => {
        const first = new Map<string, number>();
        for (const reply of fake.sent) {
          if (reply.phoneNumberId !== replying.number.phoneNumberId) continue;
          const to = webhooks.digitsOf(reply.to);
          if (!first.has(to)) first.set(to, reply.at.getTime());
        }
        return first;
      },
      goalP50OnPostgres: REPLY_GOAL_P50,
    },
  ],
};

await runChannelBench(whatsapp);
