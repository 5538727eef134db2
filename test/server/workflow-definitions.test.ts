// Automation definitions through the routes, against the account's real resources, on every engine of the run:
// the catalog route, the two validate routes, the 422s of create and update (invalid_graph, invalid_channel,
// invalid_trigger, folder_not_found) that change nothing, publish refusals (workflow_invalid), warnings that
// need other automations (keyword_collision, start_workflow_*), folders and reply lists as automations use them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import catalog from '../../generated/block-catalog.schema.json' with { type: 'json' };
import { catalogVersion } from '../../generated/block-catalog.js';
import { changeConnection, createConnection } from '../../server/domain/console/connections.js';
import { createCustomField } from '../../server/domain/console/custom-fields.js';
import { createUpload } from '../../server/domain/console/uploads.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, json } from './http-helpers.js';
import type {
  SchemaFolder,
  SchemaInvalidGraphError,
  SchemaRepliesList,
  SchemaValidationIssue,
  SchemaValidationResult,
  SchemaWorkflow,
  SchemaWorkflowGraphSchema,
  SchemaWorkflowInvalidError,
  SchemaWorkflowList,
  SchemaWorkflowValidationResult,
} from '../../generated/api.js';

const ig = { type: 'instagram' };
const messageTrigger = { events: ['message'], match: 'contains', keywords: ['promo'] };
const graphOf = (nodes: Record<string, unknown>) => ({
  nodes: { root: { type: 'root', data: { next: ['b'] } }, ...nodes },
});
const one = (block: unknown) => graphOf({ b: block });
const codes = (issues: SchemaValidationIssue[]) => issues.map((i) => i.code);

describe.each(engines)('automation definitions on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  const validate = async (me: TestCaller, body: Record<string, unknown>) =>
    json<SchemaValidationResult>(await me.call('POST', '/v1/workflows/validate', { body }));
  async function create(me: TestCaller, body: Record<string, unknown>): Promise<SchemaWorkflow> {
    const workflow = await json<SchemaWorkflow>(await me.call('POST', '/v1/workflows', { body }), 201);
    t.clock.advance(1000);
    return workflow;
  }
  const definition = (extra: Record<string, unknown> = {}) => ({
    title: 'Promo',
    channel: ig,
    trigger: messageTrigger,
    ...extra,
  });
  async function listIds(me: TestCaller, query = ''): Promise<string[]> {
    return (await json<SchemaWorkflowList>(await me.call('GET', `/v1/workflows${query}`))).data.map((w) => w.id);
  }

  it('serves the block catalog and its version (GET /v1/workflow-graph-schema)', async () => {
    const me = await t.account({ scopes: ['workflows:read'] });
    const body = await json<SchemaWorkflowGraphSchema>(await me.call('GET', '/v1/workflow-graph-schema'));
    expect(body).toEqual({ schema: catalog, catalog_version: catalogVersion });
  });

  it('the unsaved route refuses title, description and folder_id (400) and needs channel, trigger and graph', async () => {
    const me = await t.account();
    const base = {
      channel: ig,
      trigger: messageTrigger,
      graph: graphOf({ b: { type: 'comment', data: { next: [null] } } }),
    };
    expect((await validate(me, base)).valid).toBe(true);
    for (const extra of [{ title: 'x' }, { description: 'x' }, { folder_id: randomUUID() }]) {
      const res = await me.call('POST', '/v1/workflows/validate', { body: { ...base, ...extra } });
      expect(res.status, JSON.stringify(extra)).toBe(400);
    }
    for (const missing of ['channel', 'trigger', 'graph'] as const) {
      const { [missing]: _gone, ...rest } = base;
      expect((await me.call('POST', '/v1/workflows/validate', { body: rest })).status, missing).toBe(400);
    }
  });

  it('checks the account: tags in any letter case (Part B: another spelling passes), custom fields, uploads (errors with node_id and path)', async () => {
    const me = await t.account();
    await json(await me.call('POST', '/v1/tags', { body: { name: 'VIP' } }), 201);
    await createCustomField(t.database.db, t.clock, me.accountId, { label: 'email', type: 'text' });
    const upload = await createUpload(t.database.db, t.clock, me.accountId, {
      name: 'foto.jpg',
      content_type: 'image/jpeg',
      size: 1000,
    });
    const graph = graphOf({
      b: { type: 'tags', data: { operation: 'add', tags: ['VIP', 'vip', 'Lead'], next: ['c'] } },
      c: { type: 'data', data: { name: 'email', value: '$input', next: ['d'] } },
      d: { type: 'data', data: { name: 'telefone', next: ['e'] } },
      e: { type: 'media', data: { upload_id: upload.id, next: ['f'] } },
      f: { type: 'media', data: { upload_id: randomUUID(), next: [null] } },
    });
    const result = await validate(me, { channel: ig, trigger: messageTrigger, graph });
    expect(result.valid).toBe(false);
    expect(result.errors.map((i) => [i.code, i.node_id, i.path])).toEqual([
      ['tag_not_found', 'b', 'nodes.b.data.tags[2]'],
      ['custom_field_not_found', 'd', 'nodes.d.data.name'],
      ['upload_not_found', 'f', 'nodes.f.data.upload_id'],
    ]);
    // Create gives the same problems as 422 invalid_graph, and creates nothing.
    const refused = await json<SchemaInvalidGraphError>(
      await me.call('POST', '/v1/workflows', { body: definition({ graph }) }),
      422,
    );
    expect(refused.context.code).toBe('invalid_graph');
    expect(codes(refused.context.errors)).toEqual(['tag_not_found', 'custom_field_not_found', 'upload_not_found']);
    expect(await listIds(me)).toEqual([]);
  });

  it('a block the typed description refuses (misspelled type or field) gets the catalog codes, never a 400', async () => {
    // The description types sent blocks by the catalog (WorkflowNodeInput); the request validator checks only
    // their format, so the service answers as Part B says: schema_violation items, 422 invalid_graph on writes.
    const me = await t.account();
    const graph = graphOf({
      b: { type: 'mesage', data: { text: 'Hi', next: ['c'] } },
      c: { type: 'message', data: { txet: 'Hi', next: [null] } },
    });
    const result = await validate(me, { channel: ig, trigger: messageTrigger, graph });
    // b: one error at its type; c: the unknown field and the missing `text`.
    const found = result.errors.map((i) => `${i.code} ${i.node_id}`);
    expect(found).toEqual(['schema_violation b', 'schema_violation c', 'schema_violation c']);
    const refused = await json<SchemaInvalidGraphError>(
      await me.call('POST', '/v1/workflows', { body: definition({ graph }) }),
      422,
    );
    expect(refused.context.errors.map((i) => `${i.code} ${i.node_id}`)).toEqual(found);
    const workflow = await create(me, definition());
    const patched = await me.call('PATCH', `/v1/workflows/${workflow.id}`, {
      body: { graph },
      headers: { 'If-Match': '"0"' },
    });
    const patchedErrors = (await json<SchemaInvalidGraphError>(patched, 422)).context.errors;
    expect(patchedErrors.map((i) => `${i.code} ${i.node_id}`)).toEqual(found);
    // A block's format is still checked by the validator: `data` that is not an object is a 400.
    const malformed = await me.call('POST', '/v1/workflows', {
      body: definition({ graph: one({ type: 'x', data: 1 }) }),
    });
    expect(malformed.status).toBe(400);
  });

  it('refuses channels that cannot be bound: 422 invalid_channel with reason required, not_found, type_mismatch', async () => {
    const me = await t.account();
    const wa = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'WA',
      phone: '+5511930002001',
    });
    const insta = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'instagram',
      name: 'IG',
      username: 'loja_x',
    });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'whatsapp' }, 'required'],
      [{ type: 'whatsapp', connection_id: null }, 'required'],
      [{ type: 'whatsapp', connection_id: randomUUID() }, 'not_found'],
      [{ type: 'whatsapp', connection_id: insta.id }, 'type_mismatch'],
      [{ type: 'instagram', connection_id: wa.id }, 'type_mismatch'],
    ];
    for (const [channel, reason] of cases) {
      const res = await me.call('POST', '/v1/workflows', { body: definition({ channel }) });
      await expectError(res, 422, { code: 'invalid_channel', reason });
      const checked = await validate(me, {
        channel,
        trigger: messageTrigger,
        graph: graphOf({ b: { type: 'comment', data: { next: [null] } } }),
      });
      expect(codes(checked.errors), JSON.stringify(channel)).toEqual([`channel_${reason}`]);
    }
    // Another account's connection is not found.
    const other = await t.account();
    await expectError(
      await other.call('POST', '/v1/workflows', {
        body: definition({ channel: { type: 'whatsapp', connection_id: wa.id } }),
      }),
      422,
      { code: 'invalid_channel', reason: 'not_found' },
    );
    // A disconnected whatsapp number is accepted, and published.
    await changeConnection(t.database.db, t.clock, wa.id, {
      status: 'disconnected',
      disconnect_reason: 'disconnected_by_user',
    });
    const created = await create(me, definition({ channel: { type: 'whatsapp', connection_id: wa.id } }));
    expect((await json<SchemaWorkflow>(await me.call('POST', `/v1/workflows/${created.id}/publish`))).status).toBe(
      'published',
    );
    expect(await listIds(me)).toEqual([created.id]);
  });

  it('refuses incoherent triggers one at a time: 422 invalid_trigger with the validation code in reason', async () => {
    const me = await t.account();
    const wa = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'WA',
      phone: '+5511930002002',
    });
    const list = await json<SchemaRepliesList>(
      await me.call('POST', '/v1/replies-lists', { body: { name: 'Respostas', replies: ['Te chamei no direct!'] } }),
      201,
    );
    const feed = [{ type: 'feed', id: '1790001' }];
    const cases: Array<[Record<string, unknown>, Record<string, unknown>, string]> = [
      [ig, { events: ['message'], match: 'any', posts: feed }, 'posts_without_event'],
      [ig, { events: ['message'], match: 'any', next_post: true }, 'next_post_without_comment'],
      [ig, { events: ['comment'], match: 'any', posts: feed, next_post: true }, 'next_post_with_posts'],
      [
        { type: 'whatsapp', connection_id: wa.id },
        { events: ['message'], match: 'any', replies_list_id: list.id },
        'replies_list_not_supported',
      ],
      [ig, { events: ['comment'], match: 'any', replies_list_id: randomUUID() }, 'replies_list_not_found'],
    ];
    for (const [channel, trigger, reason] of cases)
      await expectError(await me.call('POST', '/v1/workflows', { body: definition({ channel, trigger }) }), 422, {
        code: 'invalid_trigger',
        reason,
      });
    expect(await listIds(me)).toEqual([]);
    // The account's own list is fine on instagram.
    await create(me, definition({ trigger: { events: ['comment'], match: 'any', replies_list_id: list.id } }));
  });

  it('an update that breaks a rule answers the 422 and changes nothing, revision included', async () => {
    const me = await t.account();
    const workflow = await create(me, definition());
    const res = await me.call('PATCH', `/v1/workflows/${workflow.id}`, {
      body: {
        title: 'Changed',
        graph: one({ type: 'tags', data: { operation: 'add', tags: ['Nope'], next: [null] } }),
      },
      headers: { 'If-Match': '"0"' },
    });
    expect(codes((await json<SchemaInvalidGraphError>(res, 422)).context.errors)).toEqual(['tag_not_found']);
    const after = await json<SchemaWorkflow>(await me.call('GET', `/v1/workflows/${workflow.id}`));
    expect(after).toMatchObject({ title: 'Promo', revision: 0 });
  });

  it('a graph over 256 KiB (positions counted) is graph_too_large; one under it is created', async () => {
    const me = await t.account();
    // ~1 KiB per block with its filled-in position: 240 blocks fit, 300 do not.
    const chain = (n: number) => {
      const nodes: Record<string, unknown> = { root: { type: 'root', data: { next: ['m0'] } } };
      for (let i = 0; i < n; i += 1)
        nodes[`m${i}`] = { type: 'comment', data: { text: 'x'.repeat(900), next: [i + 1 < n ? `m${i + 1}` : null] } };
      return { nodes };
    };
    const refused = await json<SchemaInvalidGraphError>(
      await me.call('POST', '/v1/workflows', { body: definition({ graph: chain(300) }) }),
      422,
    );
    expect(refused.context).toMatchObject({
      code: 'invalid_graph',
      errors: [expect.objectContaining({ code: 'graph_too_large', node_id: null })],
    });
    await create(me, definition({ graph: chain(240) }));
  });

  it('publish refuses what validation refuses (422 workflow_invalid with errors); compiler errors wait for the rest', async () => {
    const me = await t.account();
    // Create does not run the compiler checks: a media block with neither source is saved.
    const workflow = await create(me, definition({ graph: one({ type: 'media', data: { next: [null] } }) }));
    const result = await json<SchemaWorkflowValidationResult>(
      await me.call('POST', `/v1/workflows/${workflow.id}/validate`),
    );
    expect(result).toMatchObject({
      valid: false,
      revision: 0,
      errors: [{ code: 'media_source_invalid', node_id: 'b' }],
    });
    const refused = await json<SchemaWorkflowInvalidError>(
      await me.call('POST', `/v1/workflows/${workflow.id}/publish`),
      422,
    );
    expect(refused.context).toMatchObject({ code: 'workflow_invalid', errors: [{ code: 'media_source_invalid' }] });
    expect((await json<SchemaWorkflow>(await me.call('GET', `/v1/workflows/${workflow.id}`))).status).toBe('draft');
  });

  it('warns about start blocks by what the target is, and about keyword collisions with published automations', async () => {
    const me = await t.account();
    const wa = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'WA',
      phone: '+5511930002003',
    });
    const live = await create(me, definition({ title: 'Live' }));
    await json(await me.call('POST', `/v1/workflows/${live.id}/publish`));
    const draft = await create(me, definition({ title: 'Draft', trigger: { events: [], match: 'any' } }));
    const elsewhere = await create(
      me,
      definition({ title: 'WA', channel: { type: 'whatsapp', connection_id: wa.id } }),
    );
    await json(await me.call('POST', `/v1/workflows/${elsewhere.id}/publish`));
    const trashed = await create(me, definition({ title: 'Trashed', trigger: { events: [], match: 'any' } }));
    await json(await me.call('DELETE', `/v1/workflows/${trashed.id}`));
    const missing = randomUUID();
    const starts = (ids: string[]) => {
      const nodes: Record<string, unknown> = { root: { type: 'root', data: { next: ['s0'] } } };
      ids.forEach((id, i) => {
        nodes[`s${i}`] = {
          type: 'start',
          data: { workflow_id: id, parallel: true, next: [i + 1 < ids.length ? `s${i + 1}` : null] },
        };
      });
      return { nodes };
    };
    const result = await validate(me, {
      channel: ig,
      trigger: messageTrigger,
      graph: starts([live.id, draft.id, elsewhere.id, trashed.id, missing]),
    });
    expect(result.valid).toBe(true);
    const byCode = Object.fromEntries(result.warnings.map((w) => [w.code, w]));
    expect(byCode.start_workflow_unpublished).toMatchObject({
      node_id: 's1',
      workflow_ids: [draft.id],
      workflows: [{ id: draft.id, title: 'Draft' }],
    });
    expect(byCode.start_workflow_other_channel).toMatchObject({
      node_id: 's2',
      workflow_ids: [elsewhere.id],
      workflows: [{ id: elsewhere.id, title: 'WA' }],
    });
    expect(byCode.start_workflow_deleted).toMatchObject({
      node_id: 's3',
      workflow_ids: [trashed.id],
      workflows: [{ id: trashed.id, title: 'Trashed' }],
    });
    expect(byCode.start_workflow_not_found).toMatchObject({ node_id: 's4', workflow_ids: [missing] });
    // The same trigger on the same channel as the published "Live".
    expect(byCode.keyword_collision).toMatchObject({ workflow_ids: [live.id], keywords: ['promo'] });
    // Validating "Live" itself reports no collision with itself.
    const own = await json<SchemaWorkflowValidationResult>(await me.call('POST', `/v1/workflows/${live.id}/validate`));
    expect(codes(own.warnings)).not.toContain('keyword_collision');
  });

  it('hand-off buttons need a connected whatsapp number of the account (handoff_number_disconnected with connection_id)', async () => {
    const me = await t.account();
    const wa = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'WA',
      phone: '+5511930002004',
    });
    const graph = one({
      type: 'buttons',
      data: {
        subtitle: 'Fale no whatsapp',
        buttons: [{ title: 'WhatsApp', whatsapp_connection_id: wa.id, whatsapp_message: 'Oi' }],
        next: [null, null, null, null],
      },
    });
    expect((await validate(me, { channel: ig, trigger: messageTrigger, graph })).errors).toEqual([]);
    await changeConnection(t.database.db, t.clock, wa.id, {
      status: 'disconnected',
      disconnect_reason: 'disconnected_by_user',
    });
    const result = await validate(me, { channel: ig, trigger: messageTrigger, graph });
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'handoff_number_disconnected', node_id: 'b', connection_id: wa.id }),
    ]);
  });

  it('files automations in folders: folder_not_found with field, direct children only, moves change the revision', async () => {
    const me = await t.account();
    const top = await json<SchemaFolder>(await me.call('POST', '/v1/folders', { body: { name: 'Black Friday' } }), 201);
    const sub = await json<SchemaFolder>(
      await me.call('POST', '/v1/folders', { body: { name: 'Comentários', parent_id: top.id } }),
      201,
    );
    await expectError(await me.call('POST', '/v1/workflows', { body: definition({ folder_id: randomUUID() }) }), 422, {
      code: 'folder_not_found',
      field: 'folder_id',
    });
    const inTop = await create(me, definition({ folder_id: top.id }));
    const inSub = await create(me, definition({ folder_id: sub.id }));
    await create(me, definition());
    expect(await listIds(me, `?folder_id=${top.id}`)).toEqual([inTop.id]);
    expect(await listIds(me, `?folder_id=${sub.id}`)).toEqual([inSub.id]);
    await expectError(await me.call('GET', `/v1/workflows?folder_id=${randomUUID()}`), 422, {
      code: 'folder_not_found',
      field: 'folder_id',
    });
    // Another account's folder is unknown here.
    const other = await t.account();
    await expectError(await other.call('POST', '/v1/workflows', { body: definition({ folder_id: top.id }) }), 422, {
      code: 'folder_not_found',
      field: 'folder_id',
    });
    const moved = await json<SchemaWorkflow>(
      await me.call('PATCH', `/v1/workflows/${inTop.id}`, {
        body: { folder_id: null },
        headers: { 'If-Match': '"0"' },
      }),
    );
    expect(moved).toMatchObject({ folder_id: null, revision: 1 });
    // Deleting a folder takes its automations out of folders (revision + 1) and leaves what runs alone.
    await json(await me.call('POST', `/v1/workflows/${inSub.id}/publish`));
    await json(await me.call('DELETE', `/v1/folders/${top.id}`));
    const after = await json<SchemaWorkflow>(await me.call('GET', `/v1/workflows/${inSub.id}`));
    expect(after).toMatchObject({ folder_id: null, revision: 1, status: 'published' });
  });

  it('a reply list used by a draft or a live version cannot be deleted (409 replies_list_in_use)', async () => {
    const me = await t.account();
    const list = await json<SchemaRepliesList>(
      await me.call('POST', '/v1/replies-lists', { body: { name: 'Respostas', replies: ['Te chamei no direct!'] } }),
      201,
    );
    const workflow = await create(
      me,
      definition({ trigger: { events: ['comment'], match: 'any', replies_list_id: list.id } }),
    );
    await expectError(await me.call('DELETE', `/v1/replies-lists/${list.id}`), 409, {
      code: 'replies_list_in_use',
      workflow_ids: [workflow.id],
      workflow_count: 1,
    });
    await json(await me.call('POST', `/v1/workflows/${workflow.id}/publish`));
    await json(
      await me.call('PATCH', `/v1/workflows/${workflow.id}`, {
        body: { trigger: { events: ['comment'], match: 'any' } },
        headers: { 'If-Match': '"0"' },
      }),
    );
    // The live version still posts from the list.
    expect((await me.call('DELETE', `/v1/replies-lists/${list.id}`)).status).toBe(409);
    await json(await me.call('POST', `/v1/workflows/${workflow.id}/publish`));
    expect((await me.call('DELETE', `/v1/replies-lists/${list.id}`)).status).toBe(200);
  });

  it('validation needs only workflows:read and counts as a read', async () => {
    const me = await t.account({ scopes: ['workflows:read'] });
    const res = await me.call('POST', '/v1/workflows/validate', {
      body: {
        channel: ig,
        trigger: messageTrigger,
        graph: graphOf({ b: { type: 'comment', data: { next: [null] } } }),
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe((await me.call('GET', '/v1/me')).headers.get('ratelimit-limit'));
    await expectError(await me.call('POST', '/v1/workflows', { body: definition() }), 403, {
      code: 'insufficient_scope',
      required_scope: 'workflows:write',
    });
  });
});
