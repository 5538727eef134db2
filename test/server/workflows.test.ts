// The /v1/workflows routes (Part B, definition side) on every engine of the run: create with defaults, ETag and
// revisions (If-Match: 428, 412), partial updates, channel locked while published, publish (exactly the
// validated revision; workflow_changed; workflow_invalid; workflow_not_publishable), unpublish, versions,
// delete to the trash (workflows:publish when published), list filters, runs reads, account isolation,
// tag_in_use, and the audit log.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConnection } from '../../server/domain/console/connections.js';
import type * as Validation from '../../server/domain/workflows/validation.js';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import { listAuditEntries } from '../../server/store/audit.js';
import { cursorCodec } from '../../server/store/cursor.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, json } from './http-helpers.js';
import type {
  SchemaInvalidGraphError,
  SchemaTag,
  SchemaTagInUseError,
  SchemaValidationError,
  SchemaWorkflow,
  SchemaWorkflowList,
  SchemaWorkflowNotPublishableError,
  SchemaWorkflowValidationResult,
  SchemaWorkflowVersion,
  SchemaWorkflowVersionList,
} from '../../generated/api.js';

/** Set to run before the next validations of a publish: a concurrent change of the draft. */
const race = vi.hoisted(() => ({ beforeValidation: [] as Array<() => Promise<void>> }));
vi.mock('../../server/domain/workflows/validation.js', async (original) => {
  const validation = await original<typeof Validation>();
  return {
    ...validation,
    validateDefinition: async (...args: Parameters<typeof validation.validateDefinition>) => {
      const hook = race.beforeValidation.shift();
      if (hook) await hook();
      return validation.validateDefinition(...args);
    },
  };
});

const TOKEN = 'admin-token-for-tests-0123456789';
const keywordTrigger = { events: ['message'], match: 'contains', keywords: ['promo'] };
const definition = (extra: Record<string, unknown> = {}) => ({
  title: 'Promo',
  channel: { type: 'instagram' },
  trigger: keywordTrigger,
  ...extra,
});
const tagsGraph = (tag: string) => ({
  nodes: {
    root: { type: 'root', data: { next: ['tag_it'] } },
    tag_it: { type: 'tags', data: { operation: 'add', tags: [tag], next: [null] } },
  },
});

describe.each(engines)('workflows on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN } });
  });
  afterAll(async () => t?.close());
  const admin = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, { body });

  async function created(me: TestCaller, body: Record<string, unknown> = definition()): Promise<SchemaWorkflow> {
    const res = await me.call('POST', '/v1/workflows', { body });
    const workflow = await json<SchemaWorkflow>(res, 201);
    t.clock.advance(1000);
    return workflow;
  }
  const patch = (me: TestCaller, id: string, body: unknown, ifMatch?: string) =>
    me.call('PATCH', `/v1/workflows/${id}`, { body, headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });
  const publish = (me: TestCaller, id: string, ifMatch?: string) =>
    me.call('POST', `/v1/workflows/${id}/publish`, { headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch } });

  it('creates a draft with revision 0 in the ETag, the defaults filled in and only the root block', async () => {
    const me = await t.account();
    const res = await me.call('POST', '/v1/workflows', { body: definition({ description: '' }) });
    expect(res.headers.get('etag')).toBe('"0"');
    const workflow = await json<SchemaWorkflow>(res, 201);
    expect(workflow).toMatchObject({
      title: 'Promo',
      description: null,
      status: 'draft',
      channel: { type: 'instagram', connection_id: null },
      trigger: {
        events: ['message'],
        match: 'contains',
        keywords: ['promo'],
        posts: null,
        next_post: false,
        replies_list_id: null,
      },
      folder_id: null,
      revision: 0,
      published_version_id: null,
      published_at: null,
      has_unpublished_changes: false,
    });
    expect(Object.keys(workflow.graph.nodes)).toEqual(['root']);
    expect(workflow.graph.nodes.root).toMatchObject({ type: 'root', data: { next: [null] } });
    expect(workflow.graph.nodes.root?.position).toEqual({ x: expect.any(Number), y: expect.any(Number) });
    const got = await me.call('GET', `/v1/workflows/${workflow.id}`);
    expect(got.headers.get('etag')).toBe('"0"');
    expect(await json(got)).toEqual(workflow);
  });

  it('keeps sent positions and unknown block fields as received', async () => {
    const me = await t.account();
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['note'] }, position: { x: 7.5, y: -3 } },
        note: { type: 'comment', data: { text: 'hi', next: [null] }, group_id: 'g1', media_kind: null },
      },
    };
    const workflow = await created(me, definition({ graph }));
    expect(workflow.graph.nodes.root?.position).toEqual({ x: 7.5, y: -3 });
    expect(workflow.graph.nodes.note).toMatchObject({ type: 'comment', group_id: 'g1', media_kind: null });
  });

  it('needs If-Match to update: 428 without, 412 with a stale revision (with current_revision), 200 with the current one', async () => {
    const me = await t.account();
    const workflow = await created(me);
    await expectError(await patch(me, workflow.id, { title: 'New' }), 428, { code: 'precondition_required' });
    await expectError(await patch(me, workflow.id, { title: 'New' }, '"7"'), 412, {
      code: 'version_conflict',
      current_revision: 0,
    });
    // A weak or list-shaped If-Match is not a revision: 400 in the format check's envelope, nothing changed.
    for (const shape of ['W/"0"', '"0", "1"', '*']) {
      const bad = await json<SchemaValidationError>(await patch(me, workflow.id, { title: 'New' }, shape), 400);
      expect(bad.context.details[0]?.location, shape).toBe('header');
    }
    const res = await patch(me, workflow.id, { title: 'New' }, '"0"');
    expect(res.headers.get('etag')).toBe('"1"');
    const updated = await json<SchemaWorkflow>(res);
    expect(updated).toMatchObject({ title: 'New', revision: 1, trigger: workflow.trigger, graph: workflow.graph });
    // The bare number is accepted too; the old revision is now stale.
    expect((await patch(me, workflow.id, { title: 'Again' }, '1')).status).toBe(200);
    await expectError(await patch(me, workflow.id, { title: 'Stale' }, '"1"'), 412, {
      code: 'version_conflict',
      current_revision: 2,
    });
    expect((await json<SchemaWorkflow>(await me.call('GET', `/v1/workflows/${workflow.id}`))).title).toBe('Again');
  });

  it('replaces the trigger whole: a field left out takes its default', async () => {
    const me = await t.account();
    const workflow = await created(
      me,
      definition({ trigger: { events: ['comment'], match: 'equals', keywords: ['a'], next_post: true } }),
    );
    const updated = await json<SchemaWorkflow>(
      await patch(me, workflow.id, { trigger: { events: ['message'], match: 'any' } }, '"0"'),
    );
    expect(updated.trigger).toEqual({
      events: ['message'],
      match: 'any',
      keywords: [],
      posts: null,
      next_post: false,
      replies_list_id: null,
    });
  });

  it('an API change based on the revision before a console editor save is refused, not overwriting it', async () => {
    const me = await t.account();
    const workflow = await created(me);
    const res = await admin('PUT', `/workflows/${workflow.id}/draft`, { title: 'Editor' });
    expect(res.headers.get('etag')).toBe('"1"');
    expect(await json<SchemaWorkflow>(res)).toMatchObject({ title: 'Editor', revision: 1 });
    await expectError(await patch(me, workflow.id, { title: 'API' }, '"0"'), 412, {
      code: 'version_conflict',
      current_revision: 1,
    });
    expect((await json<SchemaWorkflow>(await me.call('GET', `/v1/workflows/${workflow.id}`))).title).toBe('Editor');
    // The editor saves over anything, without a revision; an automation in the trash is 404 there too.
    expect((await admin('PUT', `/workflows/${workflow.id}/draft`, { title: 'Again' })).status).toBe(200);
    await json(await me.call('DELETE', `/v1/workflows/${workflow.id}`));
    expect((await admin('PUT', `/workflows/${workflow.id}/draft`, { title: 'Gone' })).status).toBe(404);
  });

  it('fills missing next entries of an editor-saved draft with null on read, and keeps its unknown fields', async () => {
    const me = await t.account();
    const workflow = await created(me);
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['ask'] } },
        ask: { type: 'buttons', data: { subtitle: 'Oi', buttons: [{ title: 'Sim' }], next: ['root'] }, group_id: 'g7' },
      },
    };
    await json(await admin('PUT', `/workflows/${workflow.id}/draft`, { graph }));
    const read = await json<SchemaWorkflow>(await me.call('GET', `/v1/workflows/${workflow.id}`));
    expect(read.graph.nodes.ask).toMatchObject({ data: { next: ['root', null, null, null] }, group_id: 'g7' });
  });

  it('the editor keeps extra next entries: read back as saved, a warning in validation, refused by publish and by a PATCH sending them', async () => {
    const me = await t.account();
    const workflow = await created(me);
    const extra = { nodes: { root: { type: 'root', data: { next: [null, null] } } } };
    const saved = await json<SchemaWorkflow>(await admin('PUT', `/workflows/${workflow.id}/draft`, { graph: extra }));
    expect(saved.graph.nodes.root?.data.next).toEqual([null, null]);
    const entries = await json<SchemaWorkflowValidationResult>(
      await me.call('POST', `/v1/workflows/${workflow.id}/validate`),
    );
    expect(entries).toMatchObject({ valid: true, errors: [], revision: 1 });
    expect(entries.warnings.map((w) => w.code)).toContain('next_arity_invalid');
    const refused = await json<SchemaWorkflowNotPublishableError>(await publish(me, workflow.id), 422);
    expect(refused.context.code).toBe('workflow_not_publishable');
    expect(refused.context.details).toContain('root');
    // A rename through the API keeps the editor's graph, and its extras stay a warning.
    await json(await patch(me, workflow.id, { title: 'Renamed' }, '"1"'));
    const again = await json<SchemaWorkflowValidationResult>(
      await me.call('POST', `/v1/workflows/${workflow.id}/validate`),
    );
    expect(again.valid).toBe(true);
    expect(again.warnings.map((w) => w.code)).toContain('next_arity_invalid');
    const patched = await json<SchemaInvalidGraphError>(await patch(me, workflow.id, { graph: extra }, '"2"'), 422);
    expect(patched.context.code).toBe('invalid_graph');
    expect(patched.context.errors).toContainEqual(
      expect.objectContaining({ code: 'next_arity_invalid', path: 'nodes.root.data.next' }),
    );
  });

  it('publishes: a version with the graph, status published, has_unpublished_changes after an edit, running copy unchanged', async () => {
    const me = await t.account();
    const workflow = await created(me);
    const res = await publish(me, workflow.id);
    expect(res.headers.get('etag')).toBe('"0"');
    const published = await json<SchemaWorkflow>(res);
    expect(published).toMatchObject({ status: 'published', revision: 0, has_unpublished_changes: false });
    expect(published.published_version_id).toEqual(expect.any(String));
    expect(published.published_at).toBe(t.clock.now().toISOString().replace('Z', '000Z'));
    t.clock.advance(1000);

    const edited = await json<SchemaWorkflow>(await patch(me, workflow.id, { title: 'Promo 2' }, '"0"'));
    expect(edited).toMatchObject({ status: 'published', has_unpublished_changes: true, revision: 1 });
    expect(edited.published_version_id).toBe(published.published_version_id);
    const live = await json<SchemaWorkflowVersion>(
      await me.call('GET', `/v1/workflows/${workflow.id}/versions/${published.published_version_id}`),
    );
    expect(live).toMatchObject({ number: 1, revision: 0, title: 'Promo' });
    expect(live.graph).toEqual(workflow.graph);

    const second = await json<SchemaWorkflow>(await publish(me, workflow.id, '"1"'));
    expect(second).toMatchObject({ has_unpublished_changes: false, revision: 1 });
    const versions = await json<SchemaWorkflowVersionList>(
      await me.call('GET', `/v1/workflows/${workflow.id}/versions`),
    );
    expect(versions.data.map((v) => [v.number, v.title])).toEqual([
      [2, 'Promo 2'],
      [1, 'Promo'],
    ]);
    expect(versions.data[0]).not.toHaveProperty('graph');
  });

  it('a folder-free title change back to the live definition clears has_unpublished_changes', async () => {
    const me = await t.account();
    const workflow = await created(me);
    await json(await publish(me, workflow.id));
    await json(await patch(me, workflow.id, { title: 'Other' }, '"0"'));
    const back = await json<SchemaWorkflow>(await patch(me, workflow.id, { title: 'Promo' }, '"1"'));
    expect(back.has_unpublished_changes).toBe(false);
  });

  it('publishes with a stale If-Match: 412; without If-Match while the draft keeps changing: 409 workflow_changed', async () => {
    const me = await t.account();
    const workflow = await created(me);
    await json(await patch(me, workflow.id, { title: 'B' }, '"0"'));
    await expectError(await publish(me, workflow.id, '"0"'), 412, { code: 'version_conflict', current_revision: 1 });

    let n = 0;
    const change = async () => {
      n += 1;
      const current = await json<SchemaWorkflow>(await me.call('GET', `/v1/workflows/${workflow.id}`));
      await json(await patch(me, workflow.id, { title: `Changed ${n}` }, `"${current.revision}"`));
    };
    race.beforeValidation.push(change, change, change);
    await expectError(await publish(me, workflow.id), 409, { code: 'workflow_changed' });
    expect((await json<SchemaWorkflow>(await me.call('GET', `/v1/workflows/${workflow.id}`))).status).toBe('draft');

    // One change during the publication: the next try publishes the newer draft, which it validated.
    race.beforeValidation.push(change);
    const published = await json<SchemaWorkflow>(await publish(me, workflow.id));
    expect(published).toMatchObject({ status: 'published', title: 'Changed 4', has_unpublished_changes: false });
  });

  it('refuses a channel change while published (409 workflow_published) but accepts the same channel', async () => {
    const me = await t.account();
    const workflow = await created(me);
    await json(await publish(me, workflow.id));
    const wa = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'Loja',
      phone: '+5511930001234',
    });
    await expectError(
      await patch(me, workflow.id, { channel: { type: 'whatsapp', connection_id: wa.id } }, '"0"'),
      409,
      { code: 'workflow_published' },
    );
    expect((await patch(me, workflow.id, { channel: { type: 'instagram' } }, '"0"')).status).toBe(200);
  });

  it('unpublishes: back to draft, versions kept, a stale If-Match is 412, a second unpublish changes nothing', async () => {
    const me = await t.account();
    const workflow = await created(me);
    await json(await publish(me, workflow.id));
    await expectError(
      await me.call('POST', `/v1/workflows/${workflow.id}/unpublish`, { headers: { 'If-Match': '"5"' } }),
      412,
      {
        code: 'version_conflict',
        current_revision: 0,
      },
    );
    const res = await me.call('POST', `/v1/workflows/${workflow.id}/unpublish`);
    expect(res.headers.get('etag')).toBe('"0"');
    expect(await json<SchemaWorkflow>(res)).toMatchObject({
      status: 'draft',
      published_version_id: null,
      published_at: null,
    });
    expect((await json<SchemaWorkflow>(await me.call('POST', `/v1/workflows/${workflow.id}/unpublish`))).status).toBe(
      'draft',
    );
    const versions = await json<SchemaWorkflowVersionList>(
      await me.call('GET', `/v1/workflows/${workflow.id}/versions`),
    );
    expect(versions.data).toHaveLength(1);
  });

  it('deletes to the trash: 404 after, versions and runs too; a published one needs workflows:publish', async () => {
    const me = await t.account();
    const workflow = await created(me);
    await json(await publish(me, workflow.id));
    const writer = await t.account({ scopes: ['workflows:read', 'workflows:write'] });
    // The writer's key belongs to another account: it sees 404, like any missing automation.
    expect((await writer.call('DELETE', `/v1/workflows/${workflow.id}`)).status).toBe(404);
    expect((await me.call('DELETE', `/v1/workflows/${workflow.id}`, { headers: { 'If-Match': '"3"' } })).status).toBe(
      412,
    );
    expect(await json(await me.call('DELETE', `/v1/workflows/${workflow.id}`))).toEqual({
      id: workflow.id,
      deleted: true,
    });
    for (const path of ['', '/versions', '/runs', `/versions/${workflow.published_version_id ?? ''}`])
      expect((await me.call('GET', `/v1/workflows/${workflow.id}${path}`)).status, path).toBe(404);
    expect((await me.call('DELETE', `/v1/workflows/${workflow.id}`)).status).toBe(404);
  });

  it('refuses to delete a published automation without workflows:publish (403), a draft needs only workflows:write', async () => {
    const owner = await t.account();
    const published = await created(owner);
    await json(await publish(owner, published.id));
    // The same account through a key without workflows:publish.
    const { createApiKey } = await import('../../server/domain/accounts/keys.js');
    const { secret } = await createApiKey(t.database.db, t.clock, {
      accountId: owner.accountId,
      name: 'writer',
      scopes: ['workflows:read', 'workflows:write'],
      validityDays: 90,
    });
    const writer: TestCaller = {
      ...owner,
      apiKey: secret,
      call: (method, path, init = {}) =>
        fetch(`${t.baseUrl}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${secret}`,
            ...(init.body ? { 'Content-Type': 'application/json' } : {}),
            ...init.headers,
          },
          ...(init.body ? { body: JSON.stringify(init.body) } : {}),
        }),
    };
    await expectError(await writer.call('DELETE', `/v1/workflows/${published.id}`), 403, {
      code: 'insufficient_scope',
      required_scope: 'workflows:publish',
    });
    expect((await json<SchemaWorkflow>(await owner.call('GET', `/v1/workflows/${published.id}`))).status).toBe(
      'published',
    );
    const draft = await created(owner);
    expect((await writer.call('DELETE', `/v1/workflows/${draft.id}`)).status).toBe(200);
  });

  it("answers 404 for another account's automation on every route", async () => {
    const a = await t.account();
    const b = await t.account();
    const workflow = await created(a);
    expect((await b.call('GET', `/v1/workflows/${workflow.id}`)).status).toBe(404);
    expect((await patch(b, workflow.id, { title: 'x' }, '"0"')).status).toBe(404);
    expect((await publish(b, workflow.id)).status).toBe(404);
    expect((await b.call('POST', `/v1/workflows/${workflow.id}/unpublish`)).status).toBe(404);
    expect((await b.call('POST', `/v1/workflows/${workflow.id}/validate`)).status).toBe(404);
    expect((await b.call('GET', `/v1/workflows/${workflow.id}/versions`)).status).toBe(404);
    expect((await b.call('GET', `/v1/workflows/${workflow.id}/runs`)).status).toBe(404);
    // A version is read under its own automation only.
    const live = await json<SchemaWorkflow>(await publish(a, workflow.id));
    const other = await created(a);
    expect((await a.call('GET', `/v1/workflows/${other.id}/versions/${live.published_version_id ?? ''}`)).status).toBe(
      404,
    );
    expect(
      (await b.call('GET', `/v1/workflows/${workflow.id}/versions/${live.published_version_id ?? ''}`)).status,
    ).toBe(404);
    const list = await json<SchemaWorkflowList>(await b.call('GET', '/v1/workflows'));
    expect(list.data).toEqual([]);
  });

  it('lists oldest first without graphs, filtered by status, channel, connection and trigger event', async () => {
    const me = await t.account();
    const ig = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'instagram',
      name: 'IG',
      username: 'loja',
    });
    const wa = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'WA',
      phone: '+5511930001235',
    });
    const first = await created(me, definition({ title: 'ig any', trigger: { events: ['comment'], match: 'any' } }));
    const second = await created(me, definition({ title: 'wa', channel: { type: 'whatsapp', connection_id: wa.id } }));
    const third = await created(
      me,
      definition({ title: 'ig pinned', channel: { type: 'instagram', connection_id: ig.id } }),
    );
    await json(await publish(me, second.id));
    const titles = async (query: string) =>
      (await json<SchemaWorkflowList>(await me.call('GET', `/v1/workflows${query}`))).data.map((w) => w.title);
    const all = await json<SchemaWorkflowList>(await me.call('GET', '/v1/workflows'));
    expect(all.data.map((w) => w.id)).toEqual([first.id, second.id, third.id]);
    expect(all.data[0]).not.toHaveProperty('graph');
    expect(await titles('?status=published')).toEqual(['wa']);
    expect(await titles('?status=draft')).toEqual(['ig any', 'ig pinned']);
    expect(await titles('?channel=whatsapp')).toEqual(['wa']);
    expect(await titles(`?connection_id=${wa.id}`)).toEqual(['wa']);
    // An unpinned instagram automation runs on the connected instagram account: that connection lists it.
    expect(await titles(`?connection_id=${ig.id}`)).toEqual(['ig any', 'ig pinned']);
    expect(await titles('?trigger_event=comment')).toEqual(['ig any']);
    expect(await titles('?trigger_event=message&channel=instagram')).toEqual(['ig pinned']);
    const page = await json<SchemaWorkflowList>(await me.call('GET', '/v1/workflows?limit=2'));
    expect(page.data).toHaveLength(2);
    const rest = await json<SchemaWorkflowList>(
      await me.call('GET', `/v1/workflows?limit=2&cursor=${page.next_cursor ?? ''}`),
    );
    expect(rest.data.map((w) => w.id)).toEqual([third.id]);
  });

  it('lists no runs until the engine runs one; an unknown run is 404', async () => {
    const me = await t.account();
    const workflow = await created(me);
    expect(await json(await me.call('GET', `/v1/workflows/${workflow.id}/runs`))).toEqual({
      data: [],
      next_cursor: null,
    });
    const unknown = '7d9f3c52-1b8e-4f6a-9c0d-2e5b7a1f4c83';
    expect((await me.call('GET', `/v1/workflows/${workflow.id}/runs/${unknown}`)).status).toBe(404);
  });

  it('refuses to rename or delete a tag that a draft or the live version names (409 tag_in_use), until neither does', async () => {
    const me = await t.account();
    const tag = await json<SchemaTag>(await me.call('POST', '/v1/tags', { body: { name: 'VIP' } }), 201);
    const workflow = await created(me, definition({ graph: tagsGraph('VIP') }));
    const inUse = { code: 'tag_in_use', workflow_ids: [workflow.id], workflow_count: 1 };
    await expectError(await me.call('PATCH', `/v1/tags/${tag.id}`, { body: { name: 'vip' } }), 409, inUse);
    await expectError(await me.call('DELETE', `/v1/tags/${tag.id}`), 409, inUse);
    // Published, then the draft stops naming it: the live version still does.
    await json(await publish(me, workflow.id));
    await json(
      await patch(me, workflow.id, { graph: { nodes: { root: { type: 'root', data: { next: [null] } } } } }, '"0"'),
    );
    await expectError(await me.call('DELETE', `/v1/tags/${tag.id}`), 409, inUse);
    await json(await me.call('POST', `/v1/workflows/${workflow.id}/unpublish`));
    expect((await me.call('PATCH', `/v1/tags/${tag.id}`, { body: { name: 'vip' } })).status).toBe(200);
  });

  it('counts every automation naming the tag and lists at most 50 ids; the trash does not count', async () => {
    const me = await t.account();
    const tag = await json<SchemaTag>(await me.call('POST', '/v1/tags', { body: { name: 'Lead' } }), 201);
    const ids: string[] = [];
    for (let i = 0; i < 52; i += 1) ids.push((await created(me, definition({ graph: tagsGraph('Lead') }))).id);
    const res = await me.call('DELETE', `/v1/tags/${tag.id}`);
    const body = await json<SchemaTagInUseError>(res, 409);
    expect(body.context).toEqual({ code: 'tag_in_use', workflow_ids: ids.slice(0, 50), workflow_count: 52 });
    t.clock.advance(60_000); // a new minute of writes (60 per minute)
    for (const id of ids) await json(await me.call('DELETE', `/v1/workflows/${id}`));
    expect((await me.call('DELETE', `/v1/tags/${tag.id}`)).status).toBe(204);
  });

  it('records create, update, publish, unpublish and delete in the audit log with the key', async () => {
    const me = await t.account();
    const workflow = await created(me);
    await json(await patch(me, workflow.id, { title: 'x' }, '"0"'));
    await json(await publish(me, workflow.id));
    await json(await me.call('POST', `/v1/workflows/${workflow.id}/unpublish`));
    await json(await me.call('DELETE', `/v1/workflows/${workflow.id}`));
    // Folders and reply lists are not recorded.
    await json(await me.call('POST', '/v1/folders', { body: { name: 'Pasta' } }), 201);
    await json(await me.call('POST', '/v1/replies-lists', { body: { name: 'Lista', replies: ['Oi'] } }), 201);
    const page = await listAuditEntries(t.database.db, await cursorCodec(t.database.db, t.clock), me.accountId, {});
    expect(page.data.map((e) => [e.action, e.actor_type, e.actor_id, e.target_type, e.target_id]).reverse()).toEqual(
      ['workflow.created', 'workflow.updated', 'workflow.published', 'workflow.unpublished', 'workflow.deleted'].map(
        (action) => [action, 'api_key', me.keyId, 'workflow', workflow.id],
      ),
    );
  });

  it('replays a create with the same Idempotency-Key instead of creating twice', async () => {
    const me = await t.account();
    const headers = { 'Idempotency-Key': 'create-promo-1' };
    const first = await json<SchemaWorkflow>(
      await me.call('POST', '/v1/workflows', { body: definition(), headers }),
      201,
    );
    const again = await me.call('POST', '/v1/workflows', { body: definition(), headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await json<SchemaWorkflow>(again, 201)).id).toBe(first.id);
    expect((await json<SchemaWorkflowList>(await me.call('GET', '/v1/workflows'))).data).toHaveLength(1);
  });
});

describe('If-Match with request validation off (benchmarks only)', () => {
  it('answers the same 400 from the route, never a 500', async () => {
    const t = await startTestApp('pglite', { env: { REQUEST_VALIDATION: 'false' } });
    try {
      const me = await t.account();
      const created = await json<SchemaWorkflow>(await me.call('POST', '/v1/workflows', { body: definition() }), 201);
      const res = await me.call('PATCH', `/v1/workflows/${created.id}`, {
        body: { title: 'x' },
        headers: { 'If-Match': 'W/"0"' },
      });
      const body = await json<SchemaValidationError>(res, 400);
      expect(body.context.details[0]?.location).toBe('header');
    } finally {
      await t.close();
    }
  });
});
