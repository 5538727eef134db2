// The engine tests' harness: one app with its job worker, and what a partner does through the API and the
// sandbox (publish, a contact writes and taps, read runs and messages back).
import { randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import { createJobRegistry } from '../../server/jobs/handlers.js';
import { JobWorker } from '../../server/jobs/index.js';
import { call, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { json } from './http-helpers.js';
import type {
  SchemaChannelType,
  SchemaConnection,
  SchemaContact,
  SchemaConversationList,
  SchemaMessage,
  SchemaMessageList,
  SchemaWorkflow,
  SchemaWorkflowRun,
  SchemaWorkflowRunList,
} from '../../generated/api.js';
import type { SchemaSandboxInboundResult } from '../../generated/admin-api.js';

export const TOKEN = 'admin-token-for-tests-0123456789';
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** One app with its worker and the helpers every test uses. */
export function engineHarness(engine: Parameters<typeof startTestApp>[0], env: Record<string, string> = {}) {
  const h = {} as { t: TestApp; worker: JobWorker };
  beforeAll(async () => {
    h.t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true', ...env } });
    h.worker = new JobWorker({
      db: h.t.database.db,
      clock: h.t.clock,
      registry: createJobRegistry({ config: h.t.config, baseUrl: h.t.baseUrl, ...h.t.services }),
      pollIntervalMs: 5,
    });
  });
  afterAll(async () => h.t?.close());

  const admin = (method: string, path: string, body?: unknown) =>
    call(h.t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, body === undefined ? {} : { body });
  /** Runs every job due now, and those they enqueue, until none is left. */
  async function drain(): Promise<void> {
    for (let i = 0; i < 50; i += 1) if ((await h.worker.runOnce(50)) === 0) return;
    throw new Error('jobs kept coming');
  }
  async function connect(me: TestCaller, channel: SchemaChannelType = 'whatsapp') {
    return json<SchemaConnection>(
      await admin(
        'POST',
        `/accounts/${me.accountId}/connections`,
        channel === 'whatsapp'
          ? { channel, name: 'Loja', phone: `+55113${randomInt(1_000_000, 9_999_999)}` }
          : { channel, name: 'Loja IG', username: `loja_${randomBytes(3).toString('hex')}` },
      ),
      201,
    );
  }
  /** A contact of the connection: what it writes is delivered and the jobs run. */
  function contactOn(connectionId: string, channel: SchemaChannelType = 'whatsapp') {
    const from =
      channel === 'whatsapp'
        ? { phone: `+55119${randomInt(10_000_000, 99_999_999)}`, name: 'Ana Souza' }
        : {
            instagram_id: `${randomInt(1e9, 9e9)}`,
            username: `ana_${randomBytes(3).toString('hex')}`,
            name: 'Ana Souza',
          };
    return async (text: string | null, extra: Record<string, unknown> = {}) => {
      const res = await json<SchemaSandboxInboundResult>(
        await admin('POST', `/sandbox/connections/${connectionId}/inbound`, {
          from,
          ...(text === null ? {} : { text }),
          ...extra,
        }),
        201,
      );
      await drain();
      return res;
    };
  }
  async function setUp(channel: SchemaChannelType = 'whatsapp') {
    const me = await h.t.account();
    const connection = await connect(me, channel);
    return { me, connection, writes: contactOn(connection.id, channel) };
  }
  async function create(
    me: TestCaller,
    /** null: an instagram automation on whichever instagram account is connected. */
    connectionId: string | null,
    graph: unknown,
    trigger: unknown,
    title = 'Promo',
    channel: SchemaChannelType = 'whatsapp',
  ) {
    const created = await json<SchemaWorkflow>(
      await me.call('POST', '/v1/workflows', {
        body: { title, channel: { type: channel, connection_id: connectionId }, trigger, graph },
      }),
      201,
    );
    return created.id;
  }
  async function publishById(me: TestCaller, workflowId: string) {
    const published = await me.call('POST', `/v1/workflows/${workflowId}/publish`);
    expect(published.status, await published.clone().text()).toBe(200);
  }
  async function publish(
    me: TestCaller,
    connectionId: string | null,
    graph: unknown,
    trigger: unknown,
    title?: string,
    channel: SchemaChannelType = 'whatsapp',
  ) {
    const id = await create(me, connectionId, graph, trigger, title, channel);
    await publishById(me, id);
    return id;
  }
  const runsOf = async (me: TestCaller, workflowId: string) =>
    (await json<SchemaWorkflowRunList>(await me.call('GET', `/v1/workflows/${workflowId}/runs`))).data;
  const runOf = async (me: TestCaller, workflowId: string, runId: string) =>
    json<SchemaWorkflowRun>(await me.call('GET', `/v1/workflows/${workflowId}/runs/${runId}`));
  async function messagesOf(me: TestCaller): Promise<SchemaMessage[]> {
    const conversations = await json<SchemaConversationList>(await me.call('GET', '/v1/conversations'));
    const all: SchemaMessage[] = [];
    for (const c of conversations.data)
      all.push(...(await json<SchemaMessageList>(await me.call('GET', `/v1/conversations/${c.id}/messages`))).data);
    return all;
  }
  const sentTexts = async (me: TestCaller) =>
    (await messagesOf(me)).filter((m) => m.sender.type === 'workflow').map((m) => m.text);
  const contactOf = async (me: TestCaller, contactId: string) =>
    json<SchemaContact>(await me.call('GET', `/v1/contacts/${contactId}`));
  const fieldOf = (contact: SchemaContact, key: string) =>
    contact.custom_fields.find((f) => f.name === key)?.value ?? null;
  async function field(me: TestCaller, label: string) {
    await json(await admin('POST', `/accounts/${me.accountId}/custom-fields`, { label, type: 'text' }), 201);
  }
  const startByApi = (me: TestCaller, workflowId: string, contactId: string) =>
    me.call('POST', `/v1/workflows/${workflowId}/runs`, {
      body: { contact_id: contactId },
      headers: { 'Idempotency-Key': randomBytes(8).toString('hex') },
    });
  /** A graph: root, then `blocks` in order (each one output), then the end. */
  function chain(blocks: Array<[string, string, Record<string, unknown>]>) {
    const nodes: Record<string, unknown> = {};
    const ids = ['root', ...blocks.map(([id]) => id)];
    nodes.root = { type: 'root', data: { next: [ids[1] ?? null] } };
    blocks.forEach(([id, type, data], i) => {
      nodes[id] = { type, data: { ...data, next: [ids[i + 2] ?? null] } };
    });
    return { nodes };
  }
  const say = (id: string, text: string): [string, string, Record<string, unknown>] => [id, 'message', { text }];

  return {
    h,
    admin,
    drain,
    connect,
    contactOn,
    setUp,
    create,
    publishById,
    publish,
    runsOf,
    runOf,
    messagesOf,
    sentTexts,
    contactOf,
    fieldOf,
    field,
    startByApi,
    chain,
    say,
  };
}

export const ANY = { events: ['message'], match: 'any' };
export const keyword = (match: string, ...keywords: string[]) => ({ events: ['message'], match, keywords });
