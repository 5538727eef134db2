// The engine's media and cards blocks, and a stopped run the contact resumes (Part B), on every engine of the
// run: publish through the API, a sandbox contact writes and taps, messages and runs read back through the API.
import { describe, expect, it } from 'vitest';
import { ANY, DAY, engineHarness, MINUTE } from './engine-harness.js';
import { engines, type TestCaller } from './harness.js';
import { firstCards, firstMedia, json } from './http-helpers.js';
import type { SchemaAdminUpload } from '../../generated/admin-api.js';

describe.each(engines)('media, cards and resumed runs on %s', (engine) => {
  const { h, admin, drain, connect, contactOn, setUp, publish, runsOf, runOf, messagesOf } = engineHarness(engine);

  async function upload(me: TestCaller, name: string, content_type: string, size = 200_000) {
    return json<SchemaAdminUpload>(
      await admin('POST', `/accounts/${me.accountId}/uploads`, { name, content_type, size }),
      201,
    );
  }
  const sentByWorkflow = async (me: TestCaller) => (await messagesOf(me)).filter((m) => m.sender.type === 'workflow');
  const tap = async (messageId: string, buttonId: string) => {
    await json(await admin('POST', `/sandbox/messages/${messageId}/button-taps`, { button_id: buttonId }), 201);
    await drain();
  };
  const endedEvents = (runId: string) =>
    h.t.database.db
      .selectFrom('events')
      .select('type')
      .where('type', '=', 'workflow_run.ended')
      .where('resource_id', '=', runId)
      .execute();
  const oneNode = (node: Record<string, unknown>) => ({
    nodes: { root: { type: 'root', data: { next: ['send'] } }, send: node },
  });

  /** Two cards `um` and `dois` with one reply button each (id = title); outputs null but 3 (`dois`) → `second`. */
  async function twoCards(me: TestCaller) {
    const shoe = await upload(me, 'tenis.jpg', 'image/jpeg');
    const card = (title: string) => ({ title, subtitle: 'x', upload_id: shoe.id, buttons: [{ id: title, title }] });
    const next: Array<string | null> = Array.from({ length: 31 }, () => null);
    next[3] = 'second';
    return { card, next };
  }

  it('media sends a console upload: the attachment reads back with the upload as media, the run completes', async () => {
    const { me, connection, writes } = await setUp();
    const file = await upload(me, 'catalogo.pdf', 'application/pdf', 300_000);
    const workflowId = await publish(
      me,
      connection.id,
      oneNode({ type: 'media', data: { upload_id: file.id, next: [null] } }),
      ANY,
    );
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    const read = await runOf(me, workflowId, run!.id);
    expect(read.status).toBe('completed');
    const [sent] = await sentByWorkflow(me);
    expect(sent!.attachments).toEqual([
      expect.objectContaining({
        type: 'file',
        media_id: file.id,
        content_type: 'application/pdf',
        size: 300_000,
        filename: 'catalogo.pdf',
      }),
    ]);
    expect(read.steps.find((s) => s.node_id === 'send')).toMatchObject({ status: 'completed', output: 0 });
    // The console keeps the file: the service answers 404, never 500.
    const content = await me.call('GET', `/v1/media/${file.id}/content`);
    expect(content.status).toBe(404);
  });

  it('media refused by the channel (a GIF on whatsapp): the step fails with media_not_supported, the run stops, nothing is sent', async () => {
    const { me, connection, writes } = await setUp();
    const gif = await upload(me, 'promo.gif', 'image/gif');
    const workflowId = await publish(
      me,
      connection.id,
      {
        nodes: {
          ...oneNode({ type: 'media', data: { upload_id: gif.id, next: ['after'] } }).nodes,
          after: { type: 'message', data: { text: 'depois', next: [null] } },
        },
      },
      ANY,
    );
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    const read = await runOf(me, workflowId, run!.id);
    expect(read.status).toBe('stopped');
    expect(read.steps.find((s) => s.node_id === 'send')).toMatchObject({
      status: 'failed',
      error: expect.objectContaining({ code: 'media_not_supported' }) as unknown,
    });
    expect(await sentByWorkflow(me)).toEqual([]);
  });

  it('media_url on instagram sends the address (variables filled): type from its extension, content redirects there', async () => {
    const { me, connection, writes } = await setUp('instagram');
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['photo'] } },
        photo: {
          type: 'media',
          data: { media_url: 'https://cdn.example.com/fotos/{contact.first_name}.png', next: ['clip'] },
        },
        clip: { type: 'media', data: { media_url: 'https://cdn.example.com/v/abc', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY, 'Fotos', 'instagram');
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    expect((await runOf(me, workflowId, run!.id)).status).toBe('completed');
    const sent = await sentByWorkflow(me);
    const attachments = sent.map(firstMedia);
    expect(attachments).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'image', content_type: 'image/png', size: null, filename: 'Ana.png' }),
        // No extension it knows: an image, type unknown.
        expect.objectContaining({ type: 'image', content_type: null, size: null, filename: 'abc' }),
      ]),
    );
    const photo = attachments.find((a) => a.filename === 'Ana.png')!;
    const content = await me.call('GET', `/v1/media/${photo.media_id}/content`, { redirect: 'manual' });
    expect(content.status).toBe(302);
    expect(content.headers.get('location')).toBe('https://cdn.example.com/fotos/Ana.png');
  });

  it('media_url on whatsapp, or an address that is not one, fails the step and stops the run', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(
      me,
      connection.id,
      oneNode({ type: 'media', data: { media_url: 'https://cdn.example.com/a.png', next: [null] } }),
      ANY,
    );
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    const read = await runOf(me, workflowId, run!.id);
    expect(read.status).toBe('stopped');
    expect(read.steps.at(-1)?.error?.code).toBe('content_not_supported');

    const ig = await setUp('instagram');
    const igWorkflow = await publish(
      ig.me,
      ig.connection.id,
      oneNode({ type: 'media', data: { media_url: '{contact.email}', next: [null] } }),
      ANY,
      'Sem endereço',
      'instagram',
    );
    await ig.writes('oi');
    const [igRun] = await runsOf(ig.me, igWorkflow);
    const igRead = await runOf(ig.me, igWorkflow, igRun!.id);
    expect(igRead.status).toBe('stopped');
    expect(igRead.steps.at(-1)?.error?.code).toBe('invalid_media_url');
    expect(await sentByWorkflow(ig.me)).toEqual([]);
  });

  it('cards on whatsapp: caption above, images from uploads, a tap on button b of card c follows output c×3+b', async () => {
    const { me, connection, writes } = await setUp();
    const shoe = await upload(me, 'tenis.jpg', 'image/jpeg');
    const bag = await upload(me, 'bolsa.png', 'image/png');
    const next: Array<string | null> = Array.from({ length: 31 }, () => null);
    next[0] = 'chose_shoe';
    next[4] = 'chose_bag_size'; // card 1, button 1
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['carousel'] } },
        carousel: {
          type: 'cards',
          data: {
            caption: 'Ofertas para {contact.first_name}',
            cards: [
              {
                title: 'Tênis',
                subtitle: 'R$ 199',
                upload_id: shoe.id,
                buttons: [{ id: 'comprar', title: 'Comprar' }, { title: 'Tamanhos' }],
              },
              {
                title: 'Bolsa',
                subtitle: '',
                upload_id: bag.id,
                buttons: [{ id: 'comprar', title: 'Comprar' }, { title: 'Tamanhos' }],
              },
            ],
            next,
          },
        },
        chose_shoe: { type: 'message', data: { text: 'Tênis!', next: [null] } },
        chose_bag_size: { type: 'message', data: { text: 'Bolsa: tamanhos', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY);
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    expect(run!.status).toBe('waiting');
    const [carousel] = await sentByWorkflow(me);
    expect(carousel!.text).toBe('Ofertas para Ana');
    const cards = firstCards(carousel!).cards;
    expect(cards.map((c) => [c.title, c.subtitle, c.image?.media_id])).toEqual([
      ['Tênis', 'R$ 199', shoe.id],
      ['Bolsa', null, bag.id],
    ]);
    // The repeated id `comprar` cannot go twice in one message: positional ids instead.
    const ids = cards.flatMap((c) => c.buttons.map((b) => b.id));
    expect(ids).toEqual(['card_0_button_0', 'card_0_button_1', 'card_1_button_0', 'card_1_button_1']);
    await tap(carousel!.id, 'card_1_button_1');
    const done = await runOf(me, workflowId, run!.id);
    expect(done.status).toBe('completed');
    expect(done.steps.map((s) => [s.node_id, s.output])).toEqual([
      ['root', 0],
      ['carousel', 4],
      ['chose_bag_size', 0],
    ]);
  });

  it('cards: the 31st output runs right after the send while the tap wait stays open; a whatsapp carousel of one card is refused', async () => {
    const { me, connection, writes } = await setUp();
    const { card, next } = await twoCards(me);
    next[30] = 'right_after';
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['carousel'] } },
        carousel: { type: 'cards', data: { caption: 'Veja', cards: [card('um'), card('dois')], next } },
        right_after: { type: 'message', data: { text: 'Escolha um card', next: [null] } },
        second: { type: 'message', data: { text: 'O segundo', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY);
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    expect(run!.status).toBe('waiting');
    const sent = await sentByWorkflow(me);
    expect(sent.map((m) => m.text)).toEqual(expect.arrayContaining(['Veja', 'Escolha um card']));
    await tap(sent.find((m) => m.text === 'Veja')!.id, 'dois');
    const done = await runOf(me, workflowId, run!.id);
    expect(done.status).toBe('completed');
    expect(done.steps.map((s) => [s.node_id, s.output])).toEqual([
      ['root', 0],
      ['carousel', 3],
      ['right_after', 0],
      ['second', 0],
    ]);

    const lone = await setUp();
    const loneShoe = await upload(lone.me, 'tenis.jpg', 'image/jpeg');
    const loneWorkflow = await publish(
      lone.me,
      lone.connection.id,
      oneNode({
        type: 'cards',
        data: {
          caption: 'Só um',
          cards: [{ title: 'um', subtitle: 'x', upload_id: loneShoe.id, buttons: [{ title: 'ok' }] }],
          next: Array.from({ length: 31 }, () => null),
        },
      }),
      ANY,
    );
    await lone.writes('oi');
    const [loneRun] = await runsOf(lone.me, loneWorkflow);
    const loneRead = await runOf(lone.me, loneWorkflow, loneRun!.id);
    expect(loneRead.status).toBe('stopped');
    expect(loneRead.steps.at(-1)?.error?.code).toBe('content_not_supported');
    expect(await sentByWorkflow(lone.me)).toEqual([]);
  });

  it('instagram delivers the first 1000 characters of a text and of the text above buttons; whatsapp cuts at 4096', async () => {
    const long = 'a'.repeat(1200);
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['say'] } },
        say: { type: 'message', data: { text: `${long}{contact.first_name}`, next: ['menu'] } },
        menu: { type: 'buttons', data: { subtitle: long, buttons: [{ title: 'Ok' }], next: [null, null, null, null] } },
      },
    };
    const ig = await setUp('instagram');
    const igWorkflow = await publish(ig.me, ig.connection.id, graph, ANY, 'Longo', 'instagram');
    await ig.writes('oi');
    expect((await runsOf(ig.me, igWorkflow))[0]!.status).toBe('waiting');
    const sent = await sentByWorkflow(ig.me);
    const text = sent.find((m) => m.text !== null);
    const menu = sent.find((m) => m.attachments.length > 0);
    expect(text!.text).toBe('a'.repeat(1000));
    expect(firstCards(menu!).cards[0]!.title).toBe('a'.repeat(1000));

    const wa = await setUp();
    const waWorkflow = await publish(
      wa.me,
      wa.connection.id,
      oneNode({ type: 'message', data: { text: '{message.trigger}{message.trigger}', next: [null] } }),
      ANY,
    );
    await wa.writes('b'.repeat(3000));
    expect((await runsOf(wa.me, waWorkflow))[0]!.status).toBe('completed');
    expect((await sentByWorkflow(wa.me))[0]!.text).toBe('b'.repeat(4096));
  });

  it('with the platform signature the text is trimmed to fit it; an empty text goes as the signature alone', async () => {
    const signature = 'Enviado com Engagement Platform';
    const { me, connection, writes } = await setUp('instagram');
    await h.t.database.db
      .updateTable('accounts')
      .set({ platform_signature: signature })
      .where('id', '=', me.accountId)
      .execute();
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['say'] } },
        say: { type: 'message', data: { text: 'c'.repeat(1000), next: ['blank'] } },
        blank: { type: 'message', data: { text: '{contact.email}', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY, 'Assinado', 'instagram');
    await writes('oi');
    expect((await runsOf(me, workflowId))[0]!.status).toBe('completed');
    const texts = (await sentByWorkflow(me)).map((m) => m.text);
    const room = 1000 - `\n\n${signature}`.length;
    expect(texts).toEqual(expect.arrayContaining([`${'c'.repeat(room)}\n\n${signature}`, signature]));
  });

  it('a stopped run the contact resumes by a tap ends again and emits workflow_run.ended again', async () => {
    const { me, connection, writes } = await setUp();
    const gif = await upload(me, 'promo.gif', 'image/gif');
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['menu'] } },
        menu: {
          type: 'buttons',
          data: { subtitle: 'Quer ver?', buttons: [{ id: 'sim', title: 'Sim' }], next: ['thanks', null, null, 'gif'] },
        },
        // Right after the send: whatsapp refuses a GIF, so the run stops while the buttons are on screen.
        gif: { type: 'media', data: { upload_id: gif.id, next: [null] } },
        thanks: { type: 'message', data: { text: 'Obrigado!', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY);
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    expect((await runOf(me, workflowId, run!.id)).status).toBe('stopped');
    expect(await endedEvents(run!.id)).toHaveLength(1);

    const [menu] = await sentByWorkflow(me);
    await tap(menu!.id, 'sim');
    const resumed = await runOf(me, workflowId, run!.id);
    expect(resumed.status).toBe('completed');
    expect(resumed.steps.map((s) => [s.node_id, s.status, s.output])).toEqual([
      ['root', 'completed', 0],
      ['menu', 'completed', 0],
      ['gif', 'failed', null],
      ['thanks', 'completed', 0],
    ]);
    expect(await endedEvents(run!.id)).toHaveLength(2);
    expect((await sentByWorkflow(me)).map((m) => m.text)).toContain('Obrigado!');
    // Tapped again: the run is not stopped any more, so nothing runs twice.
    await tap(menu!.id, 'sim');
    expect((await sentByWorkflow(me)).filter((m) => m.text === 'Obrigado!')).toHaveLength(1);
  });

  it('a tap while the after-send branch sleeps takes the run to the tapped output; the sleep ends there', async () => {
    const { me, connection, writes } = await setUp();
    const { card, next } = await twoCards(me);
    next[30] = 'nap';
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['carousel'] } },
        carousel: { type: 'cards', data: { caption: 'Veja', cards: [card('um'), card('dois')], next } },
        nap: { type: 'sleep', data: { seconds: 3600, next: ['remind'] } },
        remind: { type: 'message', data: { text: 'Ainda quer?', next: [null] } },
        second: { type: 'message', data: { text: 'O segundo', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY);
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    expect(run!.status).toBe('running'); // asleep, the carousel still waiting for a tap
    const [carousel] = await sentByWorkflow(me);
    await tap(carousel!.id, 'dois');
    const done = await runOf(me, workflowId, run!.id);
    expect(done.status).toBe('completed');
    expect(done.steps.map((s) => [s.node_id, s.status, s.output])).toEqual([
      ['root', 'completed', 0],
      ['carousel', 'completed', 3],
      ['nap', 'completed', null],
      ['second', 'completed', 0],
    ]);
    h.t.clock.advance(3600_000);
    await drain();
    expect((await sentByWorkflow(me)).map((m) => m.text)).not.toContain('Ainda quer?');
    expect((await runOf(me, workflowId, run!.id)).steps).toHaveLength(4);
  });

  it('buttons’ 90 days end while their after-send branch waits on a question, which goes on waiting', async () => {
    const me = await h.t.account({ validityDays: 365 });
    const connection = await connect(me);
    const writes = contactOn(connection.id);
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['menu'] } },
        menu: {
          type: 'buttons',
          data: { subtitle: 'Escolha', buttons: [{ id: 'a', title: 'A' }], next: ['chose', null, null, 'nap'] },
        },
        nap: { type: 'sleep', data: { seconds: 60, next: ['ask'] } },
        ask: { type: 'question', data: { text: 'Ou diga', answer_type: 'any', answer_field: '', next: [null] } },
        chose: { type: 'message', data: { text: 'A!', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY);
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    h.t.clock.advance(60_000);
    await drain();
    h.t.clock.advance(90 * DAY - 60_000);
    await drain();
    const read = await runOf(me, workflowId, run!.id);
    expect(read.status).toBe('waiting');
    expect(read.steps.map((s) => [s.node_id, s.status, s.error?.code ?? null])).toEqual([
      ['root', 'completed', null],
      ['menu', 'failed', 'wait_expired'],
      ['nap', 'completed', null],
      ['ask', 'waiting', null],
    ]);
    await writes('resposta');
    expect((await runOf(me, workflowId, run!.id)).status).toBe('completed');
  });

  it('buttons whose 4th output ran on still end their tap wait after 90 days (the wait is the buttons step)', async () => {
    const me = await h.t.account({ validityDays: 365 });
    const connection = await connect(me);
    const writes = contactOn(connection.id);
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['menu'] } },
        menu: {
          type: 'buttons',
          data: { subtitle: 'Escolha', buttons: [{ id: 'a', title: 'A' }], next: [null, null, null, 'hint'] },
        },
        hint: { type: 'message', data: { text: 'Toque no botão', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY);
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    expect(run!.status).toBe('waiting');
    h.t.clock.advance(90 * DAY - MINUTE);
    await drain();
    expect((await runOf(me, workflowId, run!.id)).status).toBe('waiting');
    h.t.clock.advance(MINUTE);
    await drain();
    const done = await runOf(me, workflowId, run!.id);
    expect(done.status).toBe('completed');
    expect(done.steps.map((s) => [s.node_id, s.status, s.error?.code ?? null])).toEqual([
      ['root', 'completed', null],
      ['menu', 'failed', 'wait_expired'],
      ['hint', 'completed', null],
    ]);
  });
});
