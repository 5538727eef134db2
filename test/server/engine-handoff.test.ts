// The whatsapp handoff (issue 22; Part B, buttons and cards `whatsapp_connection_id`, `whatsapp_message`) on
// every engine, driven through the sandbox: an instagram automation's handoff button goes out as a
// click-to-chat link `https://wa.me/<digits>?text=<#CODE message>`; the contact sending that message to the
// number continues the run on whatsapp (a run of its own on the whatsapp contact, joined to the instagram
// contact's person), and the instagram run ends `completed` at the buttons. docs/decisions.md, "The whatsapp
// handoff (issue 22)".
import { describe, expect, it } from 'vitest';
import type { SchemaConnection, SchemaMessage } from '../../generated/api.js';
import { ANY, DAY, engineHarness, keyword } from './engine-harness.js';
import { engines, type TestCaller } from './harness.js';
import { json } from './http-helpers.js';

const CODE = /^#[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{8} /;

describe.each(engines)('the whatsapp handoff on %s', (engine) => {
  const { h, admin, drain, connect, contactOn, setUp, publish, runsOf, runOf, messagesOf } = engineHarness(engine);

  const say = (text: string) => ({ type: 'message', data: { text, next: [null] } });
  const handoffButton = (wa: SchemaConnection, message = 'Oi {contact.first_name}, quero falar') => ({
    id: 'zap',
    title: 'Falar no zap',
    url: 'https://ignored.example.com',
    whatsapp_connection_id: wa.id,
    whatsapp_message: message,
  });
  /** root → `menu` (buttons: the handoff button, a reply button) → output 0 `out0`. */
  const menuGraph = (wa: SchemaConnection) => ({
    nodes: {
      root: { type: 'root', data: { next: ['menu'] } },
      menu: {
        type: 'buttons',
        data: {
          subtitle: 'Fale com a gente',
          buttons: [handoffButton(wa), { id: 'depois', title: 'Depois' }],
          next: ['out0', 'out1', null, null],
        },
      },
      out0: say('Olá {contact.first_name} no zap, você disse: {message.trigger}'),
      out1: say('Até depois'),
    },
  });

  const sentBy = async (me: TestCaller, connectionId: string) =>
    (await messagesOf(me)).filter((m) => m.sender.type === 'workflow' && m.channel.connection_id === connectionId);
  const buttonsOf = (message: SchemaMessage | undefined) =>
    (message?.attachments ?? []).flatMap((a) => (a.type === 'cards' ? a.cards.flatMap((c) => c.buttons ?? []) : []));
  /** The click-to-chat link of the message, parsed: the number's digits and the pre-written text. */
  function chatLinkOf(message: SchemaMessage | undefined) {
    const link = buttonsOf(message).find((b) => b.type === 'open_url' && b.url?.startsWith('https://wa.me/'));
    if (!link?.url) throw new Error(`no click-to-chat link in ${JSON.stringify(message)}`);
    const url = new URL(link.url);
    return { url: link.url, digits: url.pathname.slice(1), text: url.searchParams.get('text') ?? '' };
  }
  const clicks = (me: TestCaller) =>
    h.t.database.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'link.clicked')
      .where('account_id', '=', me.accountId)
      .execute();
  const personOf = async (contactId: string) =>
    (
      await h.t.database.db
        .selectFrom('contacts')
        .select('person_id')
        .where('id', '=', contactId)
        .executeTakeFirstOrThrow()
    ).person_id;

  /** An instagram account with a whatsapp number; the instagram contact triggers `graph` and gets the link. */
  async function instagramHandoff(graph: (wa: SchemaConnection) => unknown = menuGraph) {
    const ig = await setUp('instagram');
    const wa = await connect(ig.me);
    const workflowId = await publish(ig.me, ig.connection.id, graph(wa), ANY, 'Handoff', 'instagram');
    const igContact = (await ig.writes('quero o zap')).contact;
    const [run] = await runsOf(ig.me, workflowId);
    const [menu] = await sentBy(ig.me, ig.connection.id);
    return { ...ig, wa, workflowId, igContact, igRunId: run!.id, menu, waWrites: contactOn(wa.id) };
  }

  it('the button goes out as a wa.me link with the code; the code’s message continues the run on whatsapp', async () => {
    const p = await instagramHandoff();
    const link = chatLinkOf(p.menu);
    expect(link.digits).toBe(p.wa.whatsapp!.phone.replace(/\D/g, ''));
    expect(link.url).toMatch(/^https:\/\/wa\.me\/\d+\?text=%23[0-9A-Z]{8}%20Oi%20Ana%2C%20quero%20falar$/);
    expect(link.text).toMatch(CODE);
    expect(link.text.replace(CODE, '')).toBe('Oi Ana, quero falar');
    expect((await runOf(p.me, p.workflowId, p.igRunId)).status).toBe('waiting');
    // Not a tracked link: no row, and no link.clicked ever.
    expect(await h.t.database.db.selectFrom('tracked_links').select('id').execute()).toEqual([]);

    // A whatsapp keyword automation that the same words would start.
    const keywordId = await publish(
      p.me,
      p.wa.id,
      { nodes: { root: { type: 'root', data: { next: ['k'] } }, k: say('palavra') } },
      keyword('contains', 'falar'),
      'Palavra',
    );
    const inbound = await p.waWrites(link.text);
    const waContact = inbound.contact;
    expect(waContact.channel.type).toBe('whatsapp');
    expect(await personOf(waContact.id)).toBe(await personOf(p.igContact.id));

    const runs = await runsOf(p.me, p.workflowId);
    expect(runs).toHaveLength(2);
    const waRun = runs.find((r) => r.contact_id === waContact.id)!;
    const waRead = await runOf(p.me, p.workflowId, waRun.id);
    expect(waRead.status).toBe('completed');
    expect(waRead.steps.map((s) => [s.node_id, s.status])).toEqual([['out0', 'completed']]);
    expect((await sentBy(p.me, p.wa.id)).map((m) => m.text)).toEqual(['Olá Ana no zap, você disse: quero o zap']);
    const igRead = await runOf(p.me, p.workflowId, p.igRunId);
    expect(igRead.status).toBe('completed');
    expect(igRead.steps.find((s) => s.node_id === 'menu')).toMatchObject({ status: 'completed', output: 0 });
    expect(await clicks(p.me)).toEqual([]);
    expect(await runsOf(p.me, keywordId)).toEqual([]);

    // The code is used once: the same message again is an ordinary one (the keyword starts), nothing goes on.
    await p.waWrites(link.text);
    expect(await runsOf(p.me, p.workflowId)).toHaveLength(2);
    expect(await runsOf(p.me, keywordId)).toHaveLength(1);
    expect((await sentBy(p.me, p.wa.id)).map((m) => m.text).sort()).toEqual(
      ['Olá Ana no zap, você disse: quero o zap', 'palavra'].sort(),
    );
  });

  it('the code is found anywhere in an edited message, in any letter case; a wrong code or none is an ordinary message', async () => {
    const p = await instagramHandoff();
    const code = chatLinkOf(p.menu).text.slice(0, 9);
    const keywordId = await publish(
      p.me,
      p.wa.id,
      { nodes: { root: { type: 'root', data: { next: ['k'] } }, k: say('palavra') } },
      keyword('contains', 'falar'),
      'Palavra',
    );

    await p.waWrites('quero falar sem código');
    await p.waWrites(`quero falar #ZZZZ2222`);
    expect(await runsOf(p.me, keywordId)).toHaveLength(2);
    expect(await runsOf(p.me, p.workflowId)).toHaveLength(1);
    expect((await runOf(p.me, p.workflowId, p.igRunId)).status).toBe('waiting');

    await p.waWrites(`Olá! meu código: ${code.trim().toLowerCase()}... e quero falar`);
    const runs = await runsOf(p.me, p.workflowId);
    expect(runs).toHaveLength(2);
    expect((await runOf(p.me, p.workflowId, p.igRunId)).status).toBe('completed');
    // The whatsapp runs of the keyword automation ended before (one run at a time): the code's message started none.
    expect(await runsOf(p.me, keywordId)).toHaveLength(2);
  });

  it('a code older than the 90 days a tap is waited for has expired: an ordinary message', async () => {
    const p = await instagramHandoff();
    const { text } = chatLinkOf(p.menu);
    // Sent 90 days and a minute ago (the row moved back: the clock's jump would expire the test's key too).
    const sentAt = new Date(h.t.clock.now().getTime() - 90 * DAY - 60_000);
    await h.t.database.db
      .updateTable('whatsapp_handoffs')
      .set({ created_at: sentAt })
      .where('run_id', '=', p.igRunId)
      .execute();
    await p.waWrites(text);
    expect(await runsOf(p.me, p.workflowId)).toHaveLength(1);
    expect(await sentBy(p.me, p.wa.id)).toEqual([]);
  });

  it('the code’s message does not answer the whatsapp contact’s question; it continues the handoff', async () => {
    const p = await instagramHandoff();
    const { text } = chatLinkOf(p.menu);
    const asks = {
      nodes: {
        root: { type: 'root', data: { next: ['q'] } },
        q: { type: 'question', data: { text: 'Seu nome?', answer_type: 'any', answer_field: '', next: ['thanks'] } },
        thanks: say('Obrigado, {$input}'),
      },
    };
    const askId = await publish(p.me, p.wa.id, asks, keyword('equals', 'cadastro'), 'Pergunta');
    await p.waWrites('cadastro');
    const [ask] = await runsOf(p.me, askId);
    expect(ask?.status).toBe('waiting');
    await p.waWrites(text);
    expect((await runOf(p.me, askId, ask!.id)).status).toBe('waiting');
    expect(await runsOf(p.me, p.workflowId)).toHaveLength(2);
  });

  it('a person that already has another contact on the number: the run goes on with the contact that wrote, persons kept apart', async () => {
    const p = await instagramHandoff();
    const { text } = chatLinkOf(p.menu);
    // The instagram contact's person already has a whatsapp contact on that number (another phone).
    const other = (await contactOn(p.wa.id)('oi, sou a Ana')).contact;
    await json(await admin('POST', `/sandbox/contacts/${other.id}/same-person`, { contact_id: p.igContact.id }), 200);
    const writer = (await p.waWrites(text)).contact;
    expect(await personOf(writer.id)).not.toBe(await personOf(p.igContact.id));
    const runs = await runsOf(p.me, p.workflowId);
    expect(runs.map((r) => r.contact_id).sort()).toEqual([p.igContact.id, writer.id].sort());
    expect((await runOf(p.me, p.workflowId, p.igRunId)).status).toBe('completed');
  });

  it('an automation deleted since the send continues nothing: the code’s message is an ordinary one', async () => {
    const p = await instagramHandoff();
    const { text } = chatLinkOf(p.menu);
    await json(await p.me.call('DELETE', `/v1/workflows/${p.workflowId}`));
    const writer = (await p.waWrites(text)).contact;
    const runs = await h.t.database.db
      .selectFrom('workflow_runs')
      .select('id')
      .where('contact_id', '=', writer.id)
      .execute();
    expect(runs).toEqual([]);
    expect(await sentBy(p.me, p.wa.id)).toEqual([]);
    expect(await personOf(writer.id)).not.toBe(await personOf(p.igContact.id));
  });

  it('buttons whose after-send branch is sleeping: the handoff takes the run off the sleep and it ends completed', async () => {
    const p = await instagramHandoff((wa) => ({
      nodes: {
        root: { type: 'root', data: { next: ['menu'] } },
        menu: {
          type: 'buttons',
          data: { subtitle: 'Fale com a gente', buttons: [handoffButton(wa)], next: ['out0', null, null, 'nap'] },
        },
        nap: { type: 'sleep', data: { seconds: 600, next: ['late'] } },
        late: say('Ainda aí?'),
        out0: say('No zap'),
      },
    }));
    expect((await runOf(p.me, p.workflowId, p.igRunId)).status).toBe('running');
    await p.waWrites(chatLinkOf(p.menu).text);
    const read = await runOf(p.me, p.workflowId, p.igRunId);
    expect(read.status).toBe('completed');
    expect(read.steps.find((s) => s.node_id === 'menu')).toMatchObject({ status: 'completed', output: 0 });
    expect((await sentBy(p.me, p.wa.id)).map((m) => m.text)).toEqual(['No zap']);
    // The sleep's end finds nothing to do.
    h.t.clock.advance(600_000);
    await drain();
    expect((await sentBy(p.me, p.connection.id)).map((m) => m.text)).not.toContain('Ainda aí?');
  });

  it('the message is cut to its 300 characters after the variables; without one the code goes alone; each button its own code', async () => {
    const p = await instagramHandoff((wa) => ({
      nodes: {
        root: { type: 'root', data: { next: ['menu'] } },
        menu: {
          type: 'buttons',
          data: {
            subtitle: 'Escolha',
            buttons: [
              // 300 characters that fill to 900 (the contact's id, 36 characters, 25 times).
              handoffButton(wa, '{contact.id}'.repeat(25)),
              { title: 'Só o código', whatsapp_connection_id: wa.id },
            ],
            next: [null, null, null, null],
          },
        },
      },
    }));
    const links = buttonsOf(p.menu).map((b) => new URL(b.url ?? '').searchParams.get('text') ?? '');
    expect(links).toHaveLength(2);
    expect(links[0]).toMatch(CODE);
    expect(links[0]!.replace(CODE, '')).toBe(p.igContact.id.repeat(25).slice(0, 300));
    expect(links[1]).toMatch(/^#[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{8}$/);
    expect(links[0]!.slice(0, 9)).not.toBe(links[1]);
  });

  it('cards: a card’s handoff button follows output card×3+button on whatsapp', async () => {
    const p = await instagramHandoff((wa) => ({
      nodes: {
        root: { type: 'root', data: { next: ['carousel'] } },
        carousel: {
          type: 'cards',
          data: {
            cards: [
              { title: 'Camisa', subtitle: 'Azul', buttons: [{ id: 'ver', title: 'Ver' }] },
              { title: 'Calça', subtitle: 'Jeans', buttons: [{ title: 'Ver' }, handoffButton(wa, 'Quero a calça')] },
            ],
            next: [...Array.from({ length: 30 }, (_, i) => (i === 4 ? 'calca' : null)), null],
          },
        },
        calca: say('A calça no zap'),
      },
    }));
    const link = chatLinkOf(p.menu);
    expect(link.text.replace(CODE, '')).toBe('Quero a calça');
    await p.waWrites(link.text);
    expect((await sentBy(p.me, p.wa.id)).map((m) => m.text)).toEqual(['A calça no zap']);
    const igRead = await runOf(p.me, p.workflowId, p.igRunId);
    expect(igRead.status).toBe('completed');
    expect(igRead.steps.find((s) => s.node_id === 'carousel')).toMatchObject({ status: 'completed', output: 4 });
    expect(await clicks(p.me)).toEqual([]);
  });

  it('a number disconnected after publishing: the block’s step fails with handoff_number_disconnected, nothing is sent', async () => {
    const ig = await setUp('instagram');
    const wa = await connect(ig.me);
    const workflowId = await publish(ig.me, ig.connection.id, menuGraph(wa), ANY, 'Handoff', 'instagram');
    await json(
      await admin('PATCH', `/connections/${wa.id}`, {
        status: 'disconnected',
        disconnect_reason: 'authorization_lost',
      }),
      200,
    );
    await ig.writes('quero o zap');
    const [run] = await runsOf(ig.me, workflowId);
    const read = await runOf(ig.me, workflowId, run!.id);
    expect(read.status).toBe('stopped');
    expect(read.steps.find((s) => s.node_id === 'menu')).toMatchObject({
      status: 'failed',
      error: expect.objectContaining({ code: 'handoff_number_disconnected' }) as unknown,
    });
    expect(await sentBy(ig.me, ig.connection.id)).toEqual([]);
  });

  it('in a whatsapp automation the button stays a reply button; a tap follows its output', async () => {
    const { me, connection, writes } = await setUp('whatsapp');
    const other = await connect(me);
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['menu'] } },
        menu: {
          type: 'buttons',
          data: {
            subtitle: 'Fale com a gente',
            buttons: [handoffButton(other)],
            next: ['tapped', null, null, null],
          },
        },
        tapped: say('Tocou'),
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY, 'Zap');
    await writes('oi');
    const [menu] = await sentBy(me, connection.id);
    expect(buttonsOf(menu)).toEqual([expect.objectContaining({ type: 'postback', id: 'zap', title: 'Falar no zap' })]);
    await json(await admin('POST', `/sandbox/messages/${menu!.id}/button-taps`, { button_id: 'zap' }), 201);
    await drain();
    const [run] = await runsOf(me, workflowId);
    expect((await runOf(me, workflowId, run!.id)).steps.find((s) => s.node_id === 'menu')?.output).toBe(0);
  });
});
