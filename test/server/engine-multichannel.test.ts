// The multichannel block (Part B, "Block catalog"; issue 22) on every engine, driven through the sandbox: an
// instagram automation goes on with the same person on whatsapp. A channel receives when its connection is
// connected, the person's contact there is not blocked and, when the branch sends, its 24-hour window is open;
// `first` follows the first such channel (a run of its own on another contact), `all` starts one run per channel,
// the last output when none can. docs/decisions.md, "multichannel (issue 22)".
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { SchemaConversationList, SchemaMessageList } from '../../generated/api.js';
import { ANY, DAY, engineHarness } from './engine-harness.js';
import { engines, type TestCaller } from './harness.js';
import { json } from './http-helpers.js';

describe.each(engines)('the multichannel block on %s', (engine) => {
  const { h, admin, connect, contactOn, setUp, publish, runsOf, runOf } = engineHarness(engine);

  /** An instagram contact and a whatsapp contact of one person; the whatsapp one wrote (its window opens). */
  async function onePerson() {
    const ig = await setUp('instagram');
    const wa = await connect(ig.me);
    const waWrites = contactOn(wa.id);
    const igContact = (await ig.writes('oi pelo insta')).contact;
    const waContact = (await waWrites('oi pelo zap')).contact;
    await json(await admin('POST', `/sandbox/contacts/${waContact.id}/same-person`, { contact_id: igContact.id }), 200);
    return { ...ig, wa, waWrites, igContact, waContact };
  }

  const say = (text: string) => ({ type: 'message', data: { text, next: [null] } });
  /** root → a multichannel block `mc` over `channels`, each output to block `out<i>`, the last to `none`. */
  function multichannel(mode: 'first' | 'all', channels: Array<[string, string]>, outputs: Record<string, unknown>) {
    const next = [...channels.map((_, i) => `out${i}`), 'none'];
    return {
      nodes: {
        root: { type: 'root', data: { next: ['mc'] } },
        mc: {
          type: 'multichannel',
          data: {
            mode,
            channels: channels.map(([provider, connection_id]) => ({ provider, connection_id })),
            next,
          },
        },
        none: say('Ninguém recebe'),
        ...outputs,
      },
    };
  }

  /** The texts the automations sent in the conversation of the connection. */
  async function sentOn(me: TestCaller, connectionId: string): Promise<Array<string | null>> {
    const conversations = await json<SchemaConversationList>(await me.call('GET', '/v1/conversations'));
    const texts: Array<string | null> = [];
    for (const c of conversations.data.filter((c) => c.channel.connection_id === connectionId)) {
      const messages = await json<SchemaMessageList>(await me.call('GET', `/v1/conversations/${c.id}/messages`));
      texts.push(...messages.data.filter((m) => m.sender.type === 'workflow').map((m) => m.text));
    }
    return texts;
  }

  const endedEvents = (runId: string) =>
    h.t.database.db
      .selectFrom('events')
      .select('type')
      .where('type', '=', 'workflow_run.ended')
      .where('resource_id', '=', runId)
      .execute();

  /** The runs of the automation: the one the instagram message started, and those it began on other contacts. */
  async function runsAfter(me: TestCaller, workflowId: string, igContactId: string) {
    const runs = await runsOf(me, workflowId);
    const started = runs.filter((r) => r.contact_id === igContactId);
    return { runs, started };
  }

  it('first: the person’s whatsapp contact with an open window gets the next block, in a run of its own', async () => {
    const p = await onePerson();
    const graph = multichannel('first', [['whatsapp', p.wa.id]], {
      out0: say('Olá {contact.first_name}, no zap: {message.trigger}'),
    });
    const workflowId = await publish(p.me, p.connection.id, graph, ANY, 'Multi', 'instagram');
    await p.writes('quero');

    const runs = await runsOf(p.me, workflowId);
    expect(runs).toHaveLength(2);
    const igRun = runs.find((r) => r.contact_id === p.igContact.id)!;
    const waRun = runs.find((r) => r.contact_id === p.waContact.id)!;
    const igRead = await runOf(p.me, workflowId, igRun.id);
    expect(igRead.status).toBe('completed');
    expect(igRead.steps.find((s) => s.node_id === 'mc')).toMatchObject({ status: 'completed', output: 0 });
    const waRead = await runOf(p.me, workflowId, waRun.id);
    expect(waRead.status).toBe('completed');
    expect(waRead.steps.map((s) => s.node_id)).toEqual(['out0']);
    // The begun run is the whatsapp contact's (its name) and keeps the starter's trigger text.
    expect(await sentOn(p.me, p.wa.id)).toEqual(['Olá Ana, no zap: quero']);
    expect(await sentOn(p.me, p.connection.id)).toEqual([]);
    expect(await endedEvents(igRun.id)).toHaveLength(1);
    expect(await endedEvents(waRun.id)).toHaveLength(1);
  });

  it('first: a closed window on whatsapp takes the last output; a branch that sends nothing needs no window', async () => {
    const p = await onePerson();
    h.t.clock.advance(DAY + 60_000);
    const graph = multichannel('first', [['whatsapp', p.wa.id]], { out0: say('no zap') });
    const workflowId = await publish(p.me, p.connection.id, graph, ANY, 'Janela', 'instagram');
    await p.writes('quero');
    const runs = await runsOf(p.me, workflowId);
    expect(runs.map((r) => r.contact_id)).toEqual([p.igContact.id]);
    const read = await runOf(p.me, workflowId, runs[0]!.id);
    expect(read.steps.find((s) => s.node_id === 'mc')?.output).toBe(1);
    expect(await sentOn(p.me, p.connection.id)).toEqual(['Ninguém recebe']);
    expect(await sentOn(p.me, p.wa.id)).toEqual([]);

    // The same closed window, a branch that only notes: the person goes on on whatsapp.
    const quiet = multichannel('first', [['whatsapp', p.wa.id]], {
      out0: { type: 'comment', data: { text: 'só anota', next: [null] } },
    });
    const quietId = await publish(p.me, p.connection.id, quiet, ANY, 'Quieto', 'instagram');
    await p.writes('de novo');
    const quietRuns = await runsOf(p.me, quietId);
    const waRun = quietRuns.find((r) => r.contact_id === p.waContact.id);
    expect(waRun).toBeDefined();
    const waRead = await runOf(p.me, quietId, waRun!.id);
    expect(waRead.status).toBe('completed');
    expect(waRead.steps.map((s) => s.node_id)).toEqual(['out0']);
  });

  it('first: a blocked contact is skipped; the run’s own channel goes on in the same run', async () => {
    const p = await onePerson();
    await json(await admin('PATCH', `/sandbox/contacts/${p.waContact.id}`, { blocked_from_automations: true }), 200);
    const graph = multichannel(
      'first',
      [
        ['whatsapp', p.wa.id],
        ['instagram', p.connection.id],
      ],
      { out0: say('no zap'), out1: say('no insta') },
    );
    const workflowId = await publish(p.me, p.connection.id, graph, ANY, 'Bloqueado', 'instagram');
    await p.writes('quero');
    const runs = await runsOf(p.me, workflowId);
    expect(runs.map((r) => r.contact_id)).toEqual([p.igContact.id]);
    const read = await runOf(p.me, workflowId, runs[0]!.id);
    expect(read.status).toBe('completed');
    expect(read.steps.map((s) => [s.node_id, s.output])).toEqual([
      ['root', 0],
      ['mc', 1],
      ['out1', 0],
    ]);
    expect(await sentOn(p.me, p.connection.id)).toEqual(['no insta']);
    expect(await sentOn(p.me, p.wa.id)).toEqual([]);
    expect(await endedEvents(runs[0]!.id)).toHaveLength(1);
  });

  it('all: one run per channel that can receive, each with its own workflow_run.ended', async () => {
    const p = await onePerson();
    const graph = multichannel(
      'all',
      [
        ['whatsapp', p.wa.id],
        ['instagram', p.connection.id],
      ],
      { out0: say('no zap'), out1: say('no insta') },
    );
    const workflowId = await publish(p.me, p.connection.id, graph, ANY, 'Todos', 'instagram');
    await p.writes('quero');
    const runs = await runsOf(p.me, workflowId);
    expect(runs).toHaveLength(3);
    const reads = await Promise.all(runs.map((r) => runOf(p.me, workflowId, r.id)));
    const starter = reads.find((r) => r.steps.some((s) => s.node_id === 'mc'))!;
    expect(starter.contact_id).toBe(p.igContact.id);
    expect(starter.status).toBe('completed');
    expect(starter.steps.map((s) => [s.node_id, s.output])).toEqual([
      ['root', 0],
      ['mc', null],
    ]);
    const started = reads.filter((r) => r.id !== starter.id);
    expect(started.map((r) => [r.contact_id, r.status, r.steps.map((s) => s.node_id)]).sort()).toEqual(
      [
        [p.waContact.id, 'completed', ['out0']],
        [p.igContact.id, 'completed', ['out1']],
      ].sort(),
    );
    for (const run of reads) expect(await endedEvents(run.id)).toHaveLength(1);
    expect(await sentOn(p.me, p.wa.id)).toEqual(['no zap']);
    expect(await sentOn(p.me, p.connection.id)).toEqual(['no insta']);
  });

  it('skips a channel whose connection was removed, is disconnected or is another account’s', async () => {
    const p = await onePerson();
    const stranger = await setUp();
    const disconnected = await connect(p.me);
    await json(
      await admin('PATCH', `/connections/${disconnected.id}`, {
        status: 'disconnected',
        disconnect_reason: 'authorization_lost',
      }),
      200,
    );
    const graph = multichannel(
      'first',
      [
        ['whatsapp', randomUUID()],
        ['whatsapp', disconnected.id],
        ['whatsapp', stranger.connection.id],
        ['whatsapp', p.wa.id],
      ],
      { out0: say('removida'), out1: say('desconectada'), out2: say('de outra conta'), out3: say('no zap') },
    );
    const workflowId = await publish(p.me, p.connection.id, graph, ANY, 'Removida', 'instagram');
    await p.writes('quero');
    const { runs, started } = await runsAfter(p.me, workflowId, p.igContact.id);
    expect(runs).toHaveLength(2);
    const read = await runOf(p.me, workflowId, started[0]!.id);
    expect(read.steps.find((s) => s.node_id === 'mc')?.output).toBe(3);
    expect(await sentOn(p.me, p.wa.id)).toEqual(['no zap']);
  });

  it('skips a contact whose automations are paused', async () => {
    const p = await onePerson();
    const pause = {
      nodes: {
        root: { type: 'root', data: { next: ['pause'] } },
        pause: { type: 'pause-automations', data: { minutes: 60, next: [null] } },
      },
    };
    await publish(p.me, p.wa.id, pause, ANY, 'Pausa');
    await p.waWrites('pausa');
    const graph = multichannel('first', [['whatsapp', p.wa.id]], { out0: say('no zap') });
    const workflowId = await publish(p.me, p.connection.id, graph, ANY, 'Pausado', 'instagram');
    await p.writes('quero');
    const runs = await runsOf(p.me, workflowId);
    expect(runs.map((r) => r.contact_id)).toEqual([p.igContact.id]);
    expect((await runOf(p.me, workflowId, runs[0]!.id)).steps.find((s) => s.node_id === 'mc')?.output).toBe(1);
    expect(await sentOn(p.me, p.wa.id)).toEqual([]);
  });

  it('the loop guard holds across the runs it begins: a branch looping back through it stops at the 7th run', async () => {
    const p = await onePerson();
    const graph = multichannel('all', [['whatsapp', p.wa.id]], {
      out0: { type: 'message', data: { text: 'no zap', next: ['mc'] } },
    });
    const workflowId = await publish(p.me, p.connection.id, graph, ANY, 'Laço', 'instagram');
    await p.writes('quero');
    const runs = await runsOf(p.me, workflowId);
    // The instagram run, then whatsapp runs each beginning the next, until `mc` would run a 7th time.
    expect(runs).toHaveLength(7);
    const reads = await Promise.all(runs.map((r) => runOf(p.me, workflowId, r.id)));
    const stopped = reads.filter((r) => r.status === 'stopped');
    expect(stopped).toHaveLength(1);
    expect(stopped[0]!.steps.at(-1)?.error?.code).toBe('loop_limit');
    expect(await sentOn(p.me, p.wa.id)).toHaveLength(6);
  });
});
