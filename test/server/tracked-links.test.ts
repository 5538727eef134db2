// Tracked links and `link.clicked` (issue 22; Part B buttons and cards `url`, Part C): a link button an
// automation sends carries `/links/{token}`; opening it redirects, emits `link.clicked` on every open and, on
// instagram, follows the button's output without opening the 24-hour window. On every engine of the run.
import { describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import { ANY, DAY, engineHarness, HOUR, TOKEN } from './engine-harness.js';
import { engines, type TestCaller } from './harness.js';
import { json } from './http-helpers.js';
import type { SchemaMessage } from '../../generated/api.js';

describe.each(engines)('tracked links on %s', (engine) => {
  const { h, admin, drain, setUp, publish, runsOf, runOf, messagesOf, sentTexts } = engineHarness(engine);

  const OFFER = 'https://loja.example.com/black-friday?c={contact.first_name}';
  const OFFER_SENT = 'https://loja.example.com/black-friday?c=Ana';

  /** root → `menu` (buttons: a link button `oferta`, a reply button) → output 0 `depois`. */
  const menuGraph = (next0: string | null = 'depois') => ({
    nodes: {
      root: { type: 'root', data: { next: ['menu'] } },
      menu: {
        type: 'buttons',
        data: {
          subtitle: 'Veja a oferta',
          buttons: [
            { id: 'oferta', title: 'Ver oferta', url: OFFER },
            { id: 'falar', title: 'Falar' },
          ],
          next: [next0, null, null, null],
        },
      },
      depois: { type: 'message', data: { text: 'Gostou da oferta?', next: [null] } },
    },
  });

  const sentByWorkflow = async (me: TestCaller) => (await messagesOf(me)).filter((m) => m.sender.type === 'workflow');
  const linkOf = (message: SchemaMessage | undefined) => {
    const buttons = (message?.attachments ?? []).flatMap((a) =>
      a.type === 'cards' ? a.cards.flatMap((c) => c.buttons ?? []) : [],
    );
    const link = buttons.find((b) => b.type === 'open_url');
    if (!link?.url) throw new Error(`no link button in ${JSON.stringify(message)}`);
    return link.url;
  };
  const clicks = (me: TestCaller) =>
    h.t.database.db
      .selectFrom('events')
      .select(['data', 'created_at'])
      .where('type', '=', 'link.clicked')
      .where('account_id', '=', me.accountId)
      .orderBy('sequence')
      .execute();
  /** A plain GET of the address, as a browser opens it (redirect not followed), then the jobs. */
  async function open(address: string) {
    const res = await fetch(address, { redirect: 'manual' });
    await drain();
    return res;
  }

  async function instagramMenu(next0: string | null = 'depois') {
    const { me, connection, writes } = await setUp('instagram');
    const workflowId = await publish(me, connection.id, menuGraph(next0), ANY, 'Oferta', 'instagram');
    const inbound = await writes('oi');
    const [run] = await runsOf(me, workflowId);
    const [menu] = await sentByWorkflow(me);
    return { me, workflowId, runId: run!.id, contactId: inbound.contact.id, address: linkOf(menu) };
  }

  it('the sent link button carries a tracking address; GET answers 302 to the address; link.clicked has every field; the run follows the output (window open)', async () => {
    const { me, workflowId, runId, contactId, address } = await instagramMenu();
    expect(address).not.toContain('loja.example.com');
    expect(address).toMatch(new RegExp(`^${h.t.baseUrl}/links/[A-Za-z0-9_-]{32}$`));

    const res = await open(address);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(OFFER_SENT);
    expect(res.headers.get('cache-control')).toBe('no-store');

    const [click] = await clicks(me);
    expect(click!.data).toEqual({
      workflow_id: workflowId,
      run_id: runId,
      contact_id: contactId,
      node_id: 'menu',
      button_id: 'oferta',
      url: OFFER_SENT,
      clicked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/) as unknown,
    });
    // The open followed output 0 like a tap: its message went out (the contact wrote just now).
    expect(await sentTexts(me)).toContain('Gostou da oferta?');
    const read = await runOf(me, workflowId, runId);
    expect(read.status).toBe('completed');
    expect(read.steps.find((s) => s.node_id === 'menu')).toMatchObject({ status: 'completed', output: 0 });

    // A reload is another open: another event, and nothing sent twice.
    const again = await open(address);
    expect(again.status).toBe(302);
    expect(await clicks(me)).toHaveLength(2);
    expect((await sentTexts(me)).filter((t) => t === 'Gostou da oferta?')).toHaveLength(1);
  });

  it('opens of one address at the same moment are each recorded: one link.clicked per open', async () => {
    const { me, address } = await instagramMenu();
    const answers = await Promise.all(Array.from({ length: 5 }, () => fetch(address, { redirect: 'manual' })));
    await drain();
    expect(answers.map((r) => r.status)).toEqual([302, 302, 302, 302, 302]);
    expect(await clicks(me)).toHaveLength(5);
  });

  it('with the 24-hour window closed the open follows the output but its message is not delivered: the run stops there', async () => {
    const { me, workflowId, runId, address } = await instagramMenu();
    h.t.clock.advance(25 * HOUR);
    expect((await open(address)).status).toBe(302);
    expect(await clicks(me)).toHaveLength(1);
    const read = await runOf(me, workflowId, runId);
    expect(read.status).toBe('stopped');
    expect(read.steps.find((s) => s.node_id === 'depois')).toMatchObject({
      status: 'failed',
      error: expect.objectContaining({ code: 'messaging_window_closed' }) as unknown,
    });
    expect(await sentTexts(me)).not.toContain('Gostou da oferta?');
  });

  it('the same button sent again to the contact keeps its address; the click names the run that sent it last', async () => {
    const { me, connection, writes } = await setUp('instagram');
    const workflowId = await publish(me, connection.id, menuGraph(null), ANY, 'Oferta', 'instagram');
    await writes('oi');
    const first = linkOf((await sentByWorkflow(me))[0]);
    // The contact taps the reply button (its output is empty: the first run completes), then writes again.
    const [menu] = await sentByWorkflow(me);
    await json(await admin('POST', `/sandbox/messages/${menu!.id}/button-taps`, { button_id: 'falar' }), 201);
    await drain();
    await writes('oi de novo');
    const runs = await runsOf(me, workflowId);
    expect(runs).toHaveLength(2);
    const latest = runs.find((r) => r.status === 'waiting');
    const menus = (await sentByWorkflow(me)).map(linkOf);
    expect(menus).toEqual([first, first]);
    await open(first);
    expect((await clicks(me))[0]!.data).toMatchObject({ run_id: latest!.id });
  });

  it('a run that ended stopped after its buttons went out follows the open like a tap (within the 90 days)', async () => {
    const { me, connection, writes } = await setUp('instagram');
    const graph = menuGraph();
    // The after-send branch fails (a media_url that is no address), which stops the run.
    graph.nodes.menu.data.next[3] = 'quebra';
    const nodes: Record<string, unknown> = {
      ...graph.nodes,
      quebra: { type: 'media', data: { media_url: 'nada', next: [null] } },
    };
    const workflowId = await publish(me, connection.id, { nodes }, ANY, 'Oferta', 'instagram');
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    expect((await runOf(me, workflowId, run!.id)).status).toBe('stopped');
    const address = linkOf((await sentByWorkflow(me))[0]);
    expect((await open(address)).status).toBe(302);
    expect(await sentTexts(me)).toContain('Gostou da oferta?');
    const read = await runOf(me, workflowId, run!.id);
    expect(read.status).toBe('completed');
    expect(read.steps.find((s) => s.node_id === 'menu')).toMatchObject({ status: 'completed', output: 0 });
  });

  it('a button without an id reports button_id null; cards link buttons are tracked and follow their own output', async () => {
    const { me, connection, writes } = await setUp('instagram');
    const next: Array<string | null> = Array.from({ length: 31 }, () => null);
    next[3] = 'depois';
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['cartoes'] } },
        cartoes: {
          type: 'cards',
          data: {
            cards: [
              { title: 'Um', subtitle: 'x', buttons: [{ id: 'um', title: 'Um' }] },
              { title: 'Dois', subtitle: 'y', buttons: [{ title: 'Ver', url: 'https://loja.example.com/dois' }] },
            ],
            next,
          },
        },
        depois: { type: 'message', data: { text: 'Segundo cartão', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY, 'Cartões', 'instagram');
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    const address = linkOf((await sentByWorkflow(me))[0]);
    expect(address.startsWith(`${h.t.baseUrl}/links/`)).toBe(true);
    const res = await open(address);
    expect(res.headers.get('location')).toBe('https://loja.example.com/dois');
    const [click] = await clicks(me);
    expect(click!.data).toMatchObject({ node_id: 'cartoes', button_id: null, run_id: run!.id });
    expect(await sentTexts(me)).toContain('Segundo cartão');
  });

  it('whatsapp: the link button is tracked and reported, but its output is not followed', async () => {
    const { me, connection, writes } = await setUp('whatsapp');
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['menu'] } },
        menu: {
          type: 'buttons',
          data: {
            subtitle: 'Veja a oferta',
            buttons: [{ id: 'oferta', title: 'Ver oferta', url: OFFER }],
            next: ['depois', null, null, null],
          },
        },
        depois: { type: 'message', data: { text: 'Gostou da oferta?', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY);
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    const address = linkOf((await sentByWorkflow(me))[0]);
    expect(address).not.toContain('loja.example.com');
    const res = await open(address);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(OFFER_SENT);
    expect((await clicks(me))[0]!.data).toMatchObject({ run_id: run!.id, node_id: 'menu', button_id: 'oferta' });
    expect(await sentTexts(me)).not.toContain('Gostou da oferta?');
    expect((await runOf(me, workflowId, run!.id)).status).toBe('waiting');
  });

  it('the sandbox opens a link as the contact: 200 {status: 302, location}, the same click; unknown addresses 404', async () => {
    const { me, workflowId, runId, address } = await instagramMenu();
    const opened = await json<{ status: number; location: string | null }>(
      await admin('POST', '/sandbox/links/open', { url: address }),
      200,
    );
    await drain();
    expect(opened).toEqual({ status: 302, location: OFFER_SENT });
    expect(await clicks(me)).toHaveLength(1);
    expect((await runOf(me, workflowId, runId)).status).toBe('completed');
    const unknown = await json(
      await admin('POST', '/sandbox/links/open', { url: `${h.t.baseUrl}/links/${'A'.repeat(32)}` }),
      200,
    );
    expect(unknown).toEqual({ status: 404, location: null });
    const other = await json(await admin('POST', '/sandbox/links/open', { url: 'not an address' }), 200);
    expect(other).toEqual({ status: 404, location: null });
    const bad = await admin('POST', '/sandbox/links/open', {});
    expect(bad.status).toBe(400);
    expect(await clicks(me)).toHaveLength(1);
  });

  it('an unknown token answers a 404 page and emits nothing; no key is needed', async () => {
    // `%ZZ` and `%C3%28` are not even valid percent-encoding: still the page, not the API's 400.
    for (const token of ['A'.repeat(32), 'nope', '%ZZ', '%C3%28']) {
      const res = await fetch(`${h.t.baseUrl}/links/${token}`, { redirect: 'manual' });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('does not exist');
    }
  });

  it('a contact the account no longer has: the open still redirects, contact_id null, nothing followed', async () => {
    const { me, contactId, address } = await instagramMenu();
    const deleted = await fetch(`${h.t.baseUrl}${ADMIN_PREFIX}/contacts/${contactId}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(deleted.status).toBeLessThan(300);
    expect((await open(address)).status).toBe(302);
    expect((await clicks(me))[0]!.data).toMatchObject({ contact_id: null });
    expect(await sentTexts(me)).not.toContain('Gostou da oferta?');
  });

  it('a link opened more than a year after its last send answers 410 and emits nothing', async () => {
    const { me, address } = await instagramMenu();
    h.t.clock.advance(366 * DAY);
    const res = await open(address);
    expect(res.status).toBe(410);
    expect(await res.text()).toContain('expired');
    expect(await clicks(me)).toEqual([]);
    expect(await json(await admin('POST', '/sandbox/links/open', { url: address }), 200)).toEqual({
      status: 410,
      location: null,
    });
  });
});
