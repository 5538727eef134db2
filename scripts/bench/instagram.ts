// `npm run bench:instagram` (issue 36): Meta's Instagram webhook and an automation's replies, a direct message and a
// private reply to a comment, on the server as an operator runs it (`npm start`'s command, its job workers in the
// same process) against the fake Graph API on loopback (test/fakes/meta, both hosts: GRAPH_API_BASE_URL and
// INSTAGRAM_GRAPH_BASE_URL), on PGlite (a temporary DATA_DIR) and on PostgreSQL (a scratch database, created and
// dropped). Two Instagram professional accounts (Instagram Login) are attached through the admin API
// (`PUT /admin/v1/connections/{id}/instagram`): one without automations, one with two published automations, a
// direct message containing `preço` answered in the thread, a comment containing `quero` answered by a private
// reply. Then, as bench:whatsapp (the load, the server and the tables are meta-webhooks.ts):
//   1. acknowledgment: signed text messages (each its own mid, from --contacts contacts who wrote once before, so
//      none is a new contact's race) POSTed to /channels/instagram/webhook at --rate per second (500) for
//      --seconds (20) by --clients (16) keep-alive clients: the payloads/s acknowledged and the 200's p50/p95/p99,
//      timed from each payload's planned send, goal ≥ 500/s with p99 ≤ 100 ms; the backlog when the load ends and
//      how long until it is applied;
//   2. a direct message with the keyword: --reply-rate (50) new contacts a second for --seconds write to the second
//      account; per message, the time from its webhook POST to the automation's reply at the fake (matched by
//      `recipient.id`, the contact's IGSID), goal p50 ≤ 100 ms on PostgreSQL;
//   3. a comment with the keyword: --comment-rate (50) comments a second, each by a new author, on a post of the
//      second account; per comment, the time from its webhook POST to the private reply at the fake (matched by
//      `recipient.comment_id`); no goal is set, the figure is reported;
//   4. nothing lost: --crash-payloads (2000) messages as fast as the server acknowledges them (at most 900/s), the
//      server killed (SIGKILL) right after the last 200, started again on the same data; once the backlog is gone,
//      each acknowledged mid must be exactly one inbound message.
//
// Flags: --engine pglite|postgres|both (both), --rate N, --seconds N, --clients N, --contacts N, --reply-rate N,
// --comment-rate N, --crash-payloads N (0 skips 4.), --worker-processes N (PostgreSQL: the API process with
// WORKERS=false beside N server processes that run the jobs, every one of them killed in 4.; default 0). LOG_LEVEL
// sets the server's (warn); SERVER_LOG_DIR keeps its log.
import { randomBytes, randomInt } from 'node:crypto';
import { instagramWebhooks, webhooks, type FakeInstagramAccount, type FakeMeta } from '../../test/fakes/meta/index.js';
import { argInt } from './common.js';
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

const commentRate = argInt('comment-rate', 50);
/** IGSIDs of the contacts who write to the account without automations, of the new ones who get a reply, of commenters. */
const FIRST_CONTACT = 1_790_000_000_000_000;
const FIRST_REPLY_CONTACT = 1_791_000_000_000_000;
const FIRST_COMMENTER = 1_792_000_000_000_000;
const REPLY_GOAL_P50 = 100;
const DM_KEYWORD = 'preço';
const COMMENT_KEYWORD = 'quero';

/** A direct message as Meta writes it, signed; its reply is matched by the contact's IGSID. */
function signedMessage(account: FakeInstagramAccount, igsid: string, text: string): Signed {
  const mid = instagramWebhooks.newMid(account.igUserId);
  const payload = instagramWebhooks.text(account, { from: igsid, mid, text });
  return signedJson(webhooks.metaJson(payload), mid, igsid);
}

/** A comment on the account's post by a new author, signed; its private reply is matched by the comment's id. */
function signedComment(account: FakeInstagramAccount, author: string, postId: string, text: string): Signed {
  const commentId = instagramWebhooks.newIgId();
  const payload = instagramWebhooks.comment(account, {
    from: { id: `9${author}`, username: `cliente.${author}`, igsid: author },
    commentId,
    mediaId: postId,
    text,
  });
  return signedJson(webhooks.metaJson(payload), commentId, commentId);
}

/** An Instagram professional account of the fake (Instagram Login), as the admin API attaches it. */
function fakeAccount(): FakeInstagramAccount {
  return {
    login: 'instagram',
    igUserId: `178414${randomInt(1e9, 9e9)}`,
    username: `loja.bench.${randomBytes(4).toString('hex')}`,
    accessToken: `IGAA${randomBytes(24).toString('hex')}`,
  };
}

interface Attached {
  account: FakeInstagramAccount;
  connectionId: string;
}

interface Seeded {
  /** The account without automations (acknowledgment, crash) and its connection. */
  quiet: Attached;
  /** The account whose automations answer a direct message and a comment with their keyword. */
  replying: Attached;
  /** The post the comments are on. */
  postId: string;
}

/** An account, a key, two instagram connections attached to accounts of the fake, two automations on one. */
async function seed(baseUrl: string, fake: FakeMeta): Promise<Seeded> {
  const { accountId, admin, api } = await benchAccount(baseUrl, 'Bench Instagram');
  const attach = async (name: string): Promise<Attached> => {
    const account = fakeAccount();
    fake.addInstagramAccount(account);
    const connection = await admin('POST', `/accounts/${accountId}/connections`, {
      channel: 'instagram',
      name,
      username: account.username,
    });
    const connectionId = idOf(connection, 'a connection');
    await admin('PUT', `/connections/${connectionId}/instagram`, {
      login: 'instagram',
      ig_user_id: account.igUserId,
      access_token: account.accessToken,
    });
    return { account, connectionId };
  };
  const quiet = await attach('Loja Quieta');
  const replying = await attach('Loja Atende');
  const channel: { type: 'instagram'; connection_id: string } = {
    type: 'instagram',
    connection_id: replying.connectionId,
  };
  await publishReply(
    api,
    channel,
    'Preço no direct',
    { events: ['message'], match: 'contains', keywords: [DM_KEYWORD] },
    'Oi! O preço é R$ 199, frete grátis.',
  );
  await publishReply(
    api,
    channel,
    'Comentário com quero',
    { events: ['comment'], match: 'contains', keywords: [COMMENT_KEYWORD] },
    'Oi! Te mandei os detalhes aqui no direct.',
  );
  return { quiet, replying, postId: instagramWebhooks.newIgId() };
}

const contact = (i: number) => String(FIRST_CONTACT + (i % options.contacts));

/** The first message the fake accepted from `account` per key (`key` of its recipient, or skip it: undefined). */
function firstSent(
  fake: FakeMeta,
  account: FakeInstagramAccount,
  key: (recipient: { id: string } | { comment_id: string }) => string | undefined,
): Map<string, number> {
  const first = new Map<string, number>();
  for (const sent of fake.instagramSent) {
    if (sent.igUserId !== account.igUserId) continue;
    const k = key(sent.recipient);
    if (k !== undefined && !first.has(k)) first.set(k, sent.at.getTime());
  }
  return first;
}

const instagram: ChannelBench<Seeded> = {
  name: 'Instagram',
  short: 'ig',
  webhookPath: '/channels/instagram/webhook',
  env: (fake) => ({ INSTAGRAM_GRAPH_BASE_URL: fake.url }),
  seed,
  quietConnectionId: (seeded) => seeded.quiet.connectionId,
  ackPayloads: ({ quiet }, count) => ({
    warm: Array.from({ length: options.contacts }, (_, i) => signedMessage(quiet.account, contact(i), 'Oi')),
    load: Array.from({ length: count }, (_, i) =>
      signedMessage(quiet.account, contact(i), `Mensagem ${i}: tem o tênis no 38?`),
    ),
  }),
  crashPayloads: ({ quiet }, count) =>
    Array.from({ length: count }, (_, i) => signedMessage(quiet.account, contact(i), `Antes da queda ${i}`)),
  replies: [
    {
      title: `A new contact's direct message with "${DM_KEYWORD}" → the automation's reply at the fake (recipient.id)`,
      rate: options.replyRate,
      label: 'direct messages written',
      payloads: ({ replying }, count) =>
        Array.from({ length: count }, (_, i) =>
          signedMessage(replying.account, String(FIRST_REPLY_CONTACT + i), `Oi, qual o ${DM_KEYWORD} do tênis?`),
        ),
      arrivals: (fake, { replying }) =>
        firstSent(fake, replying.account, (recipient) => ('id' in recipient ? recipient.id : undefined)),
      goalP50OnPostgres: REPLY_GOAL_P50,
    },
    {
      title: `A new author's comment with "${COMMENT_KEYWORD}" → the private reply at the fake (recipient.comment_id)`,
      rate: commentRate,
      label: 'comments written',
      payloads: ({ replying, postId }, count) =>
        Array.from({ length: count }, (_, i) =>
          signedComment(replying.account, String(FIRST_COMMENTER + i), postId, `Eu ${COMMENT_KEYWORD}! Tem no 38?`),
        ),
      arrivals: (fake, { replying }) =>
        firstSent(fake, replying.account, (recipient) =>
          'comment_id' in recipient ? recipient.comment_id : undefined,
        ),
      goalP50OnPostgres: null,
    },
  ],
};

await runChannelBench(instagram);
