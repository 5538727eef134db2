// Receiving from Instagram (issue 36, slice 4), on every engine of the run, against the fake Graph API on loopback:
// Meta's signed webhooks through the real route `/channels/instagram/webhook` (the subscription check, the
// signature, the account matched by its Instagram id only), each decoder kind applied after the 200 and read back
// through the public API (messages, conversations, contacts) and the events; re-deliveries make nothing twice; a
// standby item marks the conversation owned elsewhere until the thread's next item; attachments fetched from the
// fake's CDN (INSTAGRAM_CDN_BASE_URL) or stored missing.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchemaContact, SchemaMessage, SchemaMessageList } from '../../generated/api.js';
import { recordOutbound } from '../../server/domain/messaging/outbound.js';
import type { JobWorker } from '../../server/jobs/index.js';
import { findConversationOfInstagramContact } from '../../server/store/messaging.js';
import type { EventsTable } from '../../server/store/schema.js';
import type { FakeMeta } from '../fakes/meta/index.js';
import { cdnUrl, newIgId, newMid, type InstagramWebhookPayload } from '../fakes/meta/instagram-webhooks.js';
import { engines, type TestApp, type TestCaller } from './harness.js';
import { json as ok } from './http-helpers.js';
import { startInstagramApp, type InstagramApp } from './instagram-app.js';
import { cdnAddress } from '../../server/channels/instagram/provider.js';
import { ECHO_RECHECK_MS } from '../../server/domain/channels/instagram-apply.js';

const TOKEN = 'admin-token-for-instagram-webhooks-0123456789';
const APP_SECRET = 'meta-app-secret-for-instagram-tests';
const VERIFY_TOKEN = 'meta-verify-token-for-instagram-tests';
const PNG = Buffer.from('\x89PNG\r\n\x1a\nfake-instagram-image');

const newIgsid = () => `19${randomInt(1e13, 9e13)}`;

describe.each(engines)('Instagram webhooks on %s', (engine) => {
  let t: TestApp;
  let meta: FakeMeta;
  let worker: JobWorker;
  let attachInstagram: InstagramApp['attachInstagram'];

  beforeAll(async () => {
    const options = { adminToken: TOKEN, appSecret: APP_SECRET, env: { META_VERIFY_TOKEN: VERIFY_TOKEN } };
    ({ t, meta, worker, attachInstagram } = await startInstagramApp(engine, options));
  });
  afterAll(async () => {
    await t?.close();
    await meta?.close();
  });

  const w = () => meta.instagramWebhooks;
  /**
   * Meta's time of the next item, a second after the last, behind the test's clock: the messages read back in the
   * order they were delivered (Meta's times in one millisecond would tie).
   */
  let last = 0;
  const ts = () => {
    last = Math.max(last + 1000, t.clock.now().getTime() - 3_600_000);
    return last;
  };
  const seconds = () => Math.floor(ts() / 1000);

  /** Runs the jobs until none is due (twice, a minute apart: a job that lost a race runs again on its retry). */
  const drain = async () => {
    for (let round = 0; round < 2; round++) {
      while ((await worker.runOnce()) > 0);
      t.clock.advance(60_000);
    }
  };

  /** Meta posts the payloads (each answered 200), then the jobs apply them. */
  async function deliver(...payloads: InstagramWebhookPayload[]) {
    for (const payload of payloads) expect((await meta.sendInstagramWebhook(payload)).status).toBe(200);
    await drain();
  }

  const events = async (accountId: string, type: EventsTable['type']) =>
    t.database.db
      .selectFrom('events')
      .select(['type', 'resource_id', 'data'])
      .where('account_id', '=', accountId)
      .where('type', '=', type)
      .orderBy('created_at')
      .execute();

  /** An account with an attached Instagram account of the fake. */
  async function attached(login: 'instagram' | 'facebook' = 'instagram') {
    const me = await t.account();
    const { account, connection } = await attachInstagram(me, { login });
    return { me, account, connection };
  }

  async function conversations(me: TestCaller) {
    return (
      await ok<{ data: { id: string; contact_id: string }[] }>(await me.call('GET', '/v1/conversations?limit=20'))
    ).data;
  }

  /** The account's one conversation (from the store: one of comments alone is not in the inbox's list). */
  async function onlyConversation(me: TestCaller) {
    const [first, ...others] = await t.database.db
      .selectFrom('conversations')
      .select('id')
      .where('account_id', '=', me.accountId)
      .execute();
    expect(others).toEqual([]);
    if (!first) throw new Error('no conversation');
    return first.id;
  }

  async function messages(me: TestCaller, conversationId?: string) {
    const id = conversationId ?? (await onlyConversation(me));
    return (await ok<SchemaMessageList>(await me.call('GET', `/v1/conversations/${id}/messages?limit=50&order=asc`)))
      .data;
  }

  async function contacts(me: TestCaller) {
    return (await ok<{ data: SchemaContact[] }>(await me.call('GET', '/v1/contacts?limit=20'))).data;
  }

  const message = async (me: TestCaller, id: string) => ok<SchemaMessage>(await me.call('GET', `/v1/messages/${id}`));

  /** The stored message the mid names (its API id). */
  const byMid = async (connectionId: string, mid: string) =>
    t.database.db
      .selectFrom('messages')
      .select(['id', 'direction', 'sender_type'])
      .where('connection_id', '=', connectionId)
      .where('provider_message_id', '=', mid)
      .execute();

  /**
   * The account's message to the contact as a send would have stored it (Meta's mid in `provider_message_id`):
   * a test setup, the sends being another slice's.
   */
  async function accountSent(
    accountId: string,
    connectionId: string,
    igsid: string,
    content: { text: string | null; attachments?: unknown[]; mid?: string },
  ) {
    const mid = content.mid ?? newMid();
    const row = await t.database.db.transaction().execute(async (tx) => {
      const conversation = await findConversationOfInstagramContact(tx, accountId, connectionId, igsid);
      if (!conversation) throw new Error('no conversation for the contact');
      return recordOutbound(
        tx,
        conversation,
        {
          sender: { type: 'api', name: null, api_key_id: null },
          text: content.text,
          attachments: content.attachments ?? [],
          template: null,
          providerMessageId: mid,
        },
        new Date(ts()).toISOString(),
        t.baseUrl,
      );
    });
    return { id: row.id, mid };
  }

  describe('the route', () => {
    it('answers the subscription check with the challenge only for the verify token', async () => {
      const url = `${t.baseUrl}/channels/instagram/webhook`;
      const good = await fetch(`${url}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=8844201`);
      expect(good.status).toBe(200);
      expect(good.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await good.text()).toBe('8844201');
      expect((await fetch(`${url}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=8844201`)).status).toBe(403);
    });

    it('refuses a payload without a valid signature, keeping nothing', async () => {
      const { me, account } = await attached();
      const count = async () =>
        Number(
          (
            await t.database.db
              .selectFrom('jobs')
              .select((eb) => eb.fn.countAll<string>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const body = JSON.stringify(w().text(account, { timestamp: ts(), from: newIgsid(), text: 'Oi' }));
      const url = `${t.baseUrl}/channels/instagram/webhook`;
      const post = (signature: string | null) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
          body,
        });
      expect((await post(null)).status).toBe(401);
      expect((await post(meta.sign(body, 'another-secret'))).status).toBe(401);
      expect((await post(meta.sign(`${body} `))).status).toBe(401);
      expect(await count()).toBe(before);
      await drain();
      expect(await conversations(me)).toEqual([]);
      // The same bytes signed under the app secret are taken.
      expect((await post(meta.sign(body))).status).toBe(200);
      await drain();
      expect(await messages(me)).toHaveLength(1);
    });

    it("answers 200 for an account no connection has, and never matches a Page's id", async () => {
      const { me, account } = await attached('facebook');
      const stranger = { igUserId: `178414${randomInt(1e9, 9e9)}` };
      await deliver(w().text(stranger, { timestamp: ts(), from: newIgsid(), text: 'Oi, quem é?' }));
      // A Page's own Messenger thread: under `page`, in the same shape, its recipient the Page.
      const pageId = account.pageId ?? '';
      await deliver(
        w().onPage(w().text({ igUserId: pageId }, { timestamp: ts(), from: newIgsid(), text: 'Messenger' }), pageId),
      );
      expect(await conversations(me)).toEqual([]);
      expect(
        await t.database.db
          .selectFrom('messages')
          .select('id')
          .where('text', 'in', ['Oi, quem é?', 'Messenger'])
          .execute(),
      ).toEqual([]);
      // The account's thread delivered on its Page (Facebook Login) is the account's.
      await deliver(
        w().onPage(w().text(account, { timestamp: ts(), from: newIgsid(), text: 'Pelo Facebook' }), pageId),
      );
      expect((await messages(me)).map((m) => m.text)).toEqual(['Pelo Facebook']);
    });
  });

  describe("a contact's messages", () => {
    it('a text makes the contact (a placeholder username) and its conversation, once though delivered twice', async () => {
      const { me, account, connection } = await attached();
      const from = newIgsid();
      const payload = w().text(account, { timestamp: ts(), from, text: 'Oi! Tem o tênis no 38?' });
      await deliver(payload, payload);
      await deliver(payload);
      const [only, ...rest] = await messages(me);
      expect(rest).toEqual([]);
      expect(only).toMatchObject({
        direction: 'inbound',
        type: 'message',
        text: 'Oi! Tem o tênis no 38?',
        sender: { type: 'contact' },
        channel: { type: 'instagram', connection_id: connection.id },
      });
      expect(await events(me.accountId, 'message.received')).toHaveLength(1);
      expect(await contacts(me)).toMatchObject([{ instagram: { id: from, username: `ig_${from}` } }]);
      // A comment of the same person brings the username: the contact's username, and its name, which was only
      // the stand-in, follow it.
      const author = { id: newIgId(), username: 'ana.souza', igsid: from };
      await deliver(w().comment(account, { time: seconds(), from: author, text: 'Lindo!' }));
      expect(await contacts(me)).toMatchObject([{ name: 'ana.souza', instagram: { id: from, username: 'ana.souza' } }]);
    });

    it('attachments: fetched from the CDN and stored, or stored missing when the URL fails or is gone', async () => {
      const { me, account } = await attached();
      const from = newIgsid();
      const image = meta.registerInstagramCdn(PNG, 'image/png');
      const video = meta.registerInstagramCdn(Buffer.from('mp4-bytes'), 'video/mp4');
      const audio = meta.registerInstagramCdn(Buffer.from('m4a-bytes'), 'audio/mp4');
      const file = meta.registerInstagramCdn(Buffer.from('%PDF-1.4'), 'application/pdf');
      const reel = meta.registerInstagramCdn(Buffer.from('reel-bytes'), 'video/mp4');
      const post = meta.registerInstagramCdn(PNG, 'image/png');
      const postId = newIgId();
      // The contact first (eight first messages at once would race to make it, the losers' jobs run again).
      await deliver(w().text(account, { timestamp: ts(), from, text: 'Vou mandar fotos' }));
      await deliver(
        w().attachment(account, { timestamp: ts(), from, type: 'image', url: image }),
        w().attachment(account, { timestamp: ts(), from, type: 'video', url: video }),
        w().attachment(account, { timestamp: ts(), from, type: 'audio', url: audio }),
        w().attachment(account, { timestamp: ts(), from, type: 'file', url: file }),
        w().attachment(account, {
          timestamp: ts(),
          from,
          type: 'ig_reel',
          url: reel,
          mediaId: newIgId(),
          title: 'Reel',
        }),
        // Meta sends a shared post twice (share and ig_post): one image.
        w().postShare(account, { timestamp: ts(), from, url: post, mediaId: postId, title: 'Coleção nova' }),
        // A URL the CDN does not know (404), and an attachment whose media is gone (no payload).
        w().attachment(account, { timestamp: ts(), from, type: 'image', url: cdnUrl() }),
        w().attachment(account, { timestamp: ts(), from, type: 'video', url: null }),
      );
      const list = (await messages(me)).slice(1);
      expect(list).toHaveLength(8);
      const media = list.map((m) =>
        m.attachments.map((a) => (a.type === 'cards' ? 'cards' : [a.type, a.content_type])),
      );
      expect(media.slice(0, 6)).toEqual([
        [['image', 'image/png']],
        [['video', 'video/mp4']],
        [['audio', 'audio/mp4']],
        [['file', 'application/pdf']],
        [['video', 'video/mp4']],
        [['image', 'image/png']],
      ]);
      const first = list[0]?.attachments[0];
      if (!first || first.type === 'cards') throw new Error('no media');
      expect(first.size).toBe(PNG.length);
      const content = await me.call('GET', `/v1/media/${first.media_id}/content`, { redirect: 'manual' });
      expect(content.status).toBeLessThan(400);
      // The two missing ones are stored, their media gone (410).
      t.clock.advance(5_000);
      for (const missing of list.slice(6)) {
        const attachment = missing.attachments[0];
        if (!attachment || attachment.type === 'cards') throw new Error('no missing media');
        expect(attachment.size).toBeNull();
        const gone = await me.call('GET', `/v1/media/${attachment.media_id}/content`, { redirect: 'manual' });
        expect(gone.status).toBe(410);
      }
      expect(meta.requests.filter((r) => r.path.startsWith('/ig_messaging_cdn/'))).toHaveLength(7);
    });

    it('a story mention and a story reply carry the story as their post; unsupported shows nothing', async () => {
      const { me, account } = await attached();
      const from = newIgsid();
      const assetId = newIgId();
      const story = meta.registerInstagramCdn(PNG, 'image/jpeg', assetId);
      const storyId = newIgId();
      const goneMid = newMid();
      await deliver(
        w().storyMention(account, { timestamp: ts(), from, url: story }),
        w().storyReply(account, { timestamp: ts(), from, text: 'Que foto!', storyId }),
        w().unsupported(account, { timestamp: ts(), from }),
        w().storyMention(account, { timestamp: ts(), from, url: null, mid: goneMid }),
      );
      const [mention, reply, unsupported, gone] = await messages(me);
      // A mention carries no story id: the story is named by its CDN asset id.
      expect(mention).toMatchObject({
        type: 'story_mention',
        post: { type: 'story', id: assetId },
        attachments: [{ type: 'image', content_type: 'image/jpeg' }],
      });
      expect(reply).toMatchObject({ type: 'story_message', text: 'Que foto!', post: { type: 'story', id: storyId } });
      expect(unsupported).toMatchObject({ type: 'message', is_unsupported: true, text: null, attachments: [] });
      // A mention whose story is gone (no URL): named by its own mid, its media stored missing.
      expect(gone).toMatchObject({ type: 'story_mention', post: { type: 'story', id: goneMid, url: null } });
      expect(gone?.attachments).toMatchObject([{ type: 'image', size: null }]);
      expect(await events(me.accountId, 'message.received')).toHaveLength(4);
    });

    it('a reply names the message it answers; taps name the button and the message holding it', async () => {
      const { me, account, connection } = await attached();
      const from = newIgsid();
      const firstMid = newMid();
      await deliver(w().text(account, { timestamp: ts(), from, text: 'Oi', mid: firstMid }));
      const [first] = await byMid(connection.id, firstMid);
      const card = {
        title: 'Quer o tênis?',
        subtitle: null,
        image: null,
        buttons: [
          { type: 'postback', id: 'yes', title: 'Sim', url: null },
          { type: 'postback', id: 'no', title: 'Não', url: null },
        ],
      };
      const ours = await accountSent(me.accountId, connection.id, from, {
        text: null,
        attachments: [{ type: 'cards', cards: [card] }],
      });
      await deliver(
        w().text(account, { timestamp: ts(), from, text: 'Esse aqui', replyToMid: firstMid }),
        w().quickReply(account, { timestamp: ts(), from, text: 'Sim', payload: 'yes' }),
        w().postback(account, { timestamp: ts(), from, title: 'Não', payload: 'no' }),
        w().postback(account, { timestamp: ts(), from, title: 'Começar', payload: 'GET_STARTED' }),
      );
      const list = await messages(me);
      const [reply, quick, postback, starter] = list.slice(-4);
      expect(reply).toMatchObject({ text: 'Esse aqui', reply_to_message_id: first?.id, button: null });
      expect(quick).toMatchObject({
        text: 'Sim',
        reply_to_message_id: ours.id,
        button: { id: 'yes', title: 'Sim', source: 'api' },
      });
      expect(postback).toMatchObject({
        text: 'Não',
        reply_to_message_id: ours.id,
        button: { id: 'no', title: 'Não', source: 'api' },
      });
      expect(starter).toMatchObject({
        text: 'Começar',
        reply_to_message_id: null,
        button: { id: 'GET_STARTED', title: 'Começar', source: 'other' },
      });
    });

    it('a read changes nothing the API shows', async () => {
      const { me, account, connection } = await attached();
      const from = newIgsid();
      await deliver(w().text(account, { timestamp: ts(), from, text: 'Oi' }));
      const ours = await accountSent(me.accountId, connection.id, from, { text: 'Olá!' });
      const before = await t.database.db
        .selectFrom('events')
        .select('id')
        .where('account_id', '=', me.accountId)
        .execute();
      await deliver(w().read(account, { timestamp: ts(), from, messageMid: ours.mid }));
      const after = await t.database.db
        .selectFrom('events')
        .select('id')
        .where('account_id', '=', me.accountId)
        .execute();
      expect(after).toHaveLength(before.length);
    });
  });

  describe('changes to messages', () => {
    it('a reaction on our message, its re-delivery, its removal: message.updated each time it changes', async () => {
      const { me, account, connection } = await attached();
      const from = newIgsid();
      await deliver(w().text(account, { timestamp: ts(), from, text: 'Oi' }));
      const ours = await accountSent(me.accountId, connection.id, from, { text: 'Temos sim!' });
      const react = w().reaction(account, { timestamp: ts(), from, messageMid: ours.mid, emoji: '❤️' });
      await deliver(react, react);
      expect((await message(me, ours.id)).reactions).toMatchObject([{ emoji: '❤️', by: 'contact' }]);
      expect(await events(me.accountId, 'message.updated')).toHaveLength(1);
      await deliver(w().reaction(account, { timestamp: ts(), from, messageMid: ours.mid, emoji: '😂' }));
      expect((await message(me, ours.id)).reactions).toMatchObject([{ emoji: '😂', by: 'contact' }]);
      await deliver(w().reaction(account, { timestamp: ts(), from, messageMid: ours.mid, action: 'unreact' }));
      expect((await message(me, ours.id)).reactions).toEqual([]);
      expect(await events(me.accountId, 'message.updated')).toHaveLength(3);
      // A reaction to a message not held here changes nothing.
      await deliver(w().reaction(account, { timestamp: ts(), from, messageMid: newMid(), emoji: '👍' }));
      expect(await events(me.accountId, 'message.updated')).toHaveLength(3);
    });

    it("an edit and an unsend of the contact's message; an edit count of 0 and an edit of ours change nothing", async () => {
      const { me, account, connection } = await attached();
      const from = newIgsid();
      const mid = newMid();
      await deliver(w().text(account, { timestamp: ts(), from, text: 'Tem no 37?', mid }));
      const [stored] = await byMid(connection.id, mid);
      const id = stored?.id ?? '';
      await deliver(
        w().messageEdit(account, { timestamp: ts(), from, messageMid: mid, text: 'Tem no 38?', numEdit: 0 }),
      );
      expect(await message(me, id)).toMatchObject({ text: 'Tem no 37?', is_edited: false });
      const edit = w().messageEdit(account, { timestamp: ts(), from, messageMid: mid, text: 'Tem no 38?' });
      await deliver(edit, edit);
      expect(await message(me, id)).toMatchObject({ text: 'Tem no 38?', is_edited: true });
      expect(await events(me.accountId, 'message.updated')).toHaveLength(1);
      const ours = await accountSent(me.accountId, connection.id, from, { text: 'Temos!' });
      await deliver(w().messageEdit(account, { timestamp: ts(), from, messageMid: ours.mid, text: 'Não temos' }));
      expect(await message(me, ours.id)).toMatchObject({ text: 'Temos!', is_edited: false });
      const unsend = w().deleted(account, { timestamp: ts(), from, messageMid: mid });
      await deliver(unsend, unsend);
      expect(await message(me, id)).toMatchObject({ is_removed: true, text: null });
      const deleted = await events(me.accountId, 'message.deleted');
      expect(deleted.map((e) => e.resource_id)).toEqual([id]);
    });
  });

  describe("the account's own messages (echoes)", () => {
    it("an echo of our send changes nothing; one written in Instagram's app is stored as the account's, once", async () => {
      const { me, account, connection } = await attached();
      const from = newIgsid();
      await deliver(w().text(account, { timestamp: ts(), from, text: 'Oi' }));
      const ours = await accountSent(me.accountId, connection.id, from, { text: 'Olá, como posso ajudar?' });
      const sentBefore = await events(me.accountId, 'message.sent');
      await deliver(w().echo(account, { timestamp: ts(), from, text: 'Olá, como posso ajudar?', mid: ours.mid }));
      expect(await messages(me)).toHaveLength(2);
      expect(await events(me.accountId, 'message.sent')).toHaveLength(sentBefore.length);

      const inApp = w().echo(account, { timestamp: ts(), from, text: 'Respondi pelo celular', mid: newMid() });
      expect((await meta.sendInstagramWebhook(inApp)).status).toBe(200);
      expect((await meta.sendInstagramWebhook(inApp)).status).toBe(200);
      // The webhook jobs run (claimed together): an echo of a mid not held is looked at again 30 s later (our own
      // send may not have stored its mid yet), so nothing is stored now.
      await worker.runOnce();
      expect((await messages(me)).filter((m) => m.text === 'Respondi pelo celular')).toEqual([]);
      t.clock.advance(ECHO_RECHECK_MS);
      // Still unknown then: the account wrote it. The stored message's own job waits after the echo jobs: the
      // account's message goes to the automations (`message_sent`) as the sandbox's does.
      await worker.runOnce();
      const stored = await t.database.db
        .selectFrom('messages')
        .select('id')
        .where('text', '=', 'Respondi pelo celular')
        .executeTakeFirstOrThrow();
      const waiting = await t.database.db
        .selectFrom('jobs')
        .select('payload')
        .where('kind', '=', 'messaging.inbound')
        .where('account_id', '=', me.accountId)
        .execute();
      expect(waiting.map((job) => job.payload)).toEqual([{ message_id: stored.id }]);
      await drain();
      const list = await messages(me);
      const written = list.filter((m) => m.text === 'Respondi pelo celular');
      expect(written).toHaveLength(1);
      expect(written[0]).toMatchObject({ direction: 'outbound', sender: { type: 'unattributed' }, status: 'sent' });
      expect(await events(me.accountId, 'message.sent')).toHaveLength(sentBefore.length + 1);
      // The account writing first to someone with no contact here, and an echo Meta cannot show: nothing stored.
      const stranger = newIgsid();
      await deliver(
        w().echo(account, { timestamp: ts(), from: stranger, text: 'Oi, vi seu comentário' }),
        w().threadItem(
          account,
          { from, timestamp: ts() },
          { message: { mid: newMid(), is_unsupported: true, is_echo: true } },
          { echo: true },
        ),
      );
      expect(await contacts(me)).toHaveLength(1);
      expect(await messages(me)).toHaveLength(3);
      expect(await events(me.accountId, 'message.sent')).toHaveLength(sentBefore.length + 1);
    });
    it('the echo of our own send arriving before the send stored its mid changes nothing', async () => {
      const { me, account, connection } = await attached();
      const from = newIgsid();
      await deliver(w().text(account, { timestamp: ts(), from, text: 'Oi' }));
      const sentBefore = await events(me.accountId, 'message.sent');
      // Meta echoes the send while our call still waits for its answer: the mid is not stored yet.
      const mid = newMid();
      expect(
        (await meta.sendInstagramWebhook(w().echo(account, { timestamp: ts(), from, text: 'Temos!', mid }))).status,
      ).toBe(200);
      while ((await worker.runOnce()) > 0);
      expect(await messages(me)).toHaveLength(1);
      // Then the send's answer is recorded, with that mid, before the echo is looked at again.
      await accountSent(me.accountId, connection.id, from, { text: 'Temos!', mid });
      await drain();
      const list = await messages(me);
      expect(list.filter((m) => m.text === 'Temos!')).toHaveLength(1);
      expect(list.filter((m) => m.sender.type === 'unattributed')).toEqual([]);
      // Only the send's own message.sent.
      expect(await events(me.accountId, 'message.sent')).toHaveLength(sentBefore.length + 1);
    });
  });

  describe('comments', () => {
    it("a comment, an ad comment delivered per placement, a live comment; the account's own reply changes nothing", async () => {
      const { me, account } = await attached();
      const author = { id: newIgId(), username: 'ana.souza', igsid: newIgsid() };
      const postId = newIgId();
      const commentId = newIgId();
      await deliver(
        w().comment(account, { time: seconds(), from: author, text: 'Quanto custa?', mediaId: postId, commentId }),
      );
      const original = newIgId();
      const adComment = newIgId();
      const placements = [newIgId(), newIgId()].map((mediaId) =>
        w().comment(account, {
          time: seconds(),
          from: author,
          text: 'Tem frete grátis?',
          mediaId,
          productType: 'AD',
          commentId: adComment,
          ad: { adId: newIgId(), originalMediaId: original },
        }),
      );
      await deliver(...placements);
      const liveId = newIgId();
      await deliver(w().liveComment(account, { time: seconds(), from: author, text: 'Ao vivo!', mediaId: liveId }));
      await deliver(
        w().comment(account, {
          time: seconds(),
          from: { id: account.igUserId, username: account.username },
          text: 'Obrigado!',
        }),
      );
      const list = await messages(me);
      expect(list.map((m) => [m.type, m.text, m.post])).toEqual([
        ['comment', 'Quanto custa?', expect.objectContaining({ type: 'feed', id: postId })],
        ['comment', 'Tem frete grátis?', expect.objectContaining({ type: 'feed', id: original })],
        ['live_comment', 'Ao vivo!', expect.objectContaining({ type: 'live', id: liveId })],
      ]);
      expect(await events(me.accountId, 'comment.received')).toHaveLength(2);
      expect(await events(me.accountId, 'live_comment.received')).toHaveLength(1);
      // The author, named by the id it has in the account's threads, with its username.
      expect(await contacts(me)).toMatchObject([{ instagram: { id: author.igsid, username: 'ana.souza' } }]);
      // Its direct message later finds the same contact, which keeps its username.
      await deliver(w().text(account, { timestamp: ts(), from: author.igsid, text: 'Te mandei DM' }));
      expect(await contacts(me)).toMatchObject([{ instagram: { id: author.igsid, username: 'ana.souza' } }]);
      // Comments are not direct messages: only the DM put the conversation in the inbox.
      expect((await messages(me)).map((m) => m.type)).toEqual(['comment', 'comment', 'live_comment', 'message']);
    });
  });

  describe('standby', () => {
    it("marks the contact's conversation owned elsewhere until the thread's next item clears it", async () => {
      const { me, account, connection } = await attached();
      const from = newIgsid();
      await deliver(w().text(account, { timestamp: ts(), from, text: 'Oi' }));
      const conversationId = await onlyConversation(me);
      const owned = async () =>
        (
          await t.database.db
            .selectFrom('conversations')
            .select('owned_elsewhere_since')
            .where('id', '=', conversationId)
            .executeTakeFirstOrThrow()
        ).owned_elsewhere_since;
      expect(await owned()).toBeNull();
      await deliver(w().standby(account, { timestamp: ts(), from, text: 'Falando com o outro app' }));
      expect(await owned()).not.toBeNull();
      // The standby item's content is the other app's: not stored here.
      expect((await messages(me)).map((m) => m.text)).toEqual(['Oi']);
      const since = await owned();
      await deliver(w().standby(account, { timestamp: ts(), from }));
      expect(await owned()).toEqual(since);
      await deliver(w().read(account, { timestamp: ts(), from, messageMid: newMid() }));
      expect(await owned()).toBeNull();
      // A standby item of someone not known here marks nothing and makes no contact.
      await deliver(w().standby(account, { timestamp: ts(), from: newIgsid() }));
      expect(await conversations(me)).toHaveLength(1);
      expect(
        await t.database.db
          .selectFrom('conversations')
          .select('id')
          .where('connection_id', '=', connection.id)
          .where('owned_elsewhere_since', 'is not', null)
          .execute(),
      ).toEqual([]);
    });
  });

  it('a payload batching several kinds applies each in order', async () => {
    const { me, account } = await attached();
    const from = newIgsid();
    const mid = newMid();
    await deliver(
      w().batch(
        w().text(account, { timestamp: ts(), from, text: 'Primeira', mid }),
        w().messageEdit(account, { timestamp: ts(), from, messageMid: mid, text: 'Primeira (editada)' }),
        w().text(account, { timestamp: ts(), from, text: 'Segunda' }),
      ),
    );
    expect((await messages(me)).map((m) => [m.text, m.is_edited])).toEqual([
      ['Primeira (editada)', true],
      ['Segunda', false],
    ]);
  });
});

describe('INSTAGRAM_CDN_BASE_URL', () => {
  it("sends an attachment URL's path and query to the configured origin, and leaves it as Meta sent it otherwise", () => {
    const url = 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1789&signature=abc';
    expect(cdnAddress(url, 'http://127.0.0.1:4010')).toBe(
      'http://127.0.0.1:4010/ig_messaging_cdn/?asset_id=1789&signature=abc',
    );
    expect(cdnAddress(url, undefined)).toBe(url);
  });
});
