// The resources the fuzz cases point at: seeded through the public API with the demo key and through the admin
// API (a tag, a contact tagged and with a custom-field value, folders, a reply list, a published workflow with
// a run, a webhook with deliveries, an inbound message and its conversation, a sent message with buttons, an
// uploaded media, a throwaway account with a key, a connection and a template). The ids are kept in pools per
// path-parameter name; what cannot be made is a random UUID (a failure is logged, never thrown).
//
// Operations that would destroy what the others need get their own resources (`prepare`): every DELETE takes a
// fresh resource (or restores the state it removes first), and the admin routes that suspend, revoke or
// disconnect act on the throwaway account.
import type { Prng } from './prng.js';
import type { Answer, Runner, SendSpec } from './runner.js';
import { parseJson } from './runner.js';
import { isObject, UUID_RE, type Json, type JsonObject, type Operation, type Spec } from './spec.js';

export interface Prepared {
  /** Lower-case ids for the path parameters. */
  params: Record<string, string>;
  /** True when the request acts on a resource (or a state) made for it alone: its answers can be compared. */
  fresh: boolean;
  /** Undoes what the request may have left (a DELETE that did not delete). */
  cleanup?: () => Promise<void>;
}

const SEED_PHONE = '+5511987654321';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** `replies_list_id` → `repliesListId`. */
export function poolNameOf(field: string): string {
  if (field === 'parent_id') return 'parentFolderId';
  const base = field.replace(/_ids?$/, '');
  return `${base.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())}Id`;
}

export class World {
  readonly pools = new Map<string, string[]>();
  /** Random stand-ins for pools that could not be filled, stable for the run. */
  private readonly standIns = new Map<string, string>();
  /** Seeding and fresh-resource requests that failed, by what and status: each logged once, then counted. */
  private readonly failures = new Map<string, { text: string; count: number }>();
  waConnection: string | undefined;
  igConnection: string | undefined;
  throwawayConnection: string | undefined;
  throwawayAccount: string | undefined;
  /** The option values of the demo account's dropdown fields. */
  private dropdownValues: string[] = [];

  constructor(
    private readonly runner: Runner,
    private readonly spec: Spec,
    private readonly prng: Prng,
    readonly receiverUrl: string,
    readonly demoAccountId: string | undefined,
  ) {}

  // --- pools --------------------------------------------------------------------------------------------

  add(pool: string, id: string | undefined): void {
    if (typeof id !== 'string' || !UUID_RE.test(id)) return;
    const list = this.pools.get(pool) ?? [];
    if (!list.includes(id)) list.push(id.toLowerCase());
    this.pools.set(pool, list);
  }

  /** The first id of a pool, or a random UUID standing in for it. */
  id(pool: string): string {
    const first = this.pools.get(pool)?.[0];
    if (first) return first;
    let standIn = this.standIns.get(pool);
    if (!standIn) {
      standIn = this.prng.fork(`stand-in/${pool}`).uuid();
      this.standIns.set(pool, standIn);
    }
    return standIn;
  }

  /** The id for a body or query field (`connection_id`, `tag_ids`…) of `op`, in `parent` when known. */
  fieldId(field: string, op: Operation | undefined, parent?: JsonObject): string {
    if (field === 'connection_id' || field === 'connectionId') {
      if (op?.path.startsWith('/admin/v1/accounts/')) return this.id('throwawayConnectionId');
      const channel = parent?.type ?? (isObject(parent?.channel) ? parent.channel.type : parent?.channel);
      if (channel === 'instagram') return this.igConnection ?? this.id('connectionId');
      return this.waConnection ?? this.id('connectionId');
    }
    return this.id(poolNameOf(field));
  }

  /** An independent generator for `label`, derived from the run's seed. */
  prngFor(label: string): Prng {
    return this.prng.fork(label);
  }

  /** A spec example of `op`'s body (chosen by `prng`) with the pools' ids in place of the example's. */
  validBody(op: Operation, prng: Prng): Json | undefined {
    const all = this.examples(op, prng);
    return all.length ? prng.pick(all) : undefined;
  }

  /** Every spec example of `op`'s body (a schema sample when it has none), with the pools' ids. */
  examples(op: Operation, prng: Prng = this.prng.fork(`examples/${op.key}`)): Json[] {
    if (!op.body) return [];
    const raw = op.body.examples.length
      ? op.body.examples
      : [this.spec.sample(op.body.schema, (name) => this.fieldId(name, op))];
    return raw.map((example) => this.adjust(op, this.substitute(structuredClone(example), op, '', undefined), prng));
  }

  private adjust(op: Operation, body: Json, prng: Prng): Json {
    if (isObject(body)) {
      if (op.path === '/admin/v1/sandbox/clock') body.advance_seconds = 60;
      if (op.path.startsWith('/v1/webhooks') && typeof body.url === 'string') body.url = this.receiverUrl;
      if (op.path === '/admin/v1/accounts' && typeof body.alias === 'string') body.alias = `fuzz-${prng.text(10)}`;
      if (op.path.endsWith('/templates') && typeof body.name === 'string') body.name = `fuzz_${prng.text(10)}`;
      if (op.path.endsWith('/button-taps')) body.button_id = 'blue';
      // The inbound route is fuzzed on the whatsapp connection: its contact writes.
      if (op.path.endsWith('/inbound') && isObject(body.from)) body.from = { phone: SEED_PHONE, name: 'Fuzz Ana' };
      if (op.path.endsWith('/same-person') && this.pools.has('igContactId')) body.contact_id = this.id('igContactId');
      if (op.path.endsWith('/connections') && typeof body.phone === 'string')
        body.phone = `+5511${prng.between(10_000_000, 99_999_999)}`;
    }
    return body;
  }

  private substitute(value: Json, op: Operation, key: string, parent: JsonObject | undefined): Json {
    if (key === 'field_id' && parent && 'value' in parent && !op.path.startsWith('/admin/')) {
      // The demo account's fields by the type of the example's value: a number, a dropdown option, a text.
      const v = parent.value;
      const type = typeof v === 'number' ? 'number' : this.dropdownValues.includes(String(v)) ? 'dropdown' : 'text';
      const id = this.pools.get(`fieldId:${type}`)?.[0];
      if (id) return id;
    }
    if (typeof value === 'string' && UUID_RE.test(value)) return this.fieldId(key, op, parent);
    if (Array.isArray(value)) return value.map((v) => this.substitute(v, op, key, parent));
    if (isObject(value)) {
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.substitute(v, op, k, value);
      return out;
    }
    return value;
  }

  // --- requests -----------------------------------------------------------------------------------------

  private async call(
    method: string,
    path: string,
    body?: Json,
    extra: Partial<SendSpec> = {},
  ): Promise<{ answer: Answer; json: JsonObject }> {
    const op = this.spec.matchRoute(method, path);
    const answer = await this.runner.support({
      op,
      method,
      path,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...extra,
      headers: {
        ...(method !== 'GET' && !path.startsWith('/admin/') ? { 'Idempotency-Key': this.key() } : {}),
        ...extra.headers,
      },
    });
    const json = parseJson(answer.text);
    return { answer, json: isObject(json) ? json : {} };
  }

  private key(): string {
    return `fuzz-${this.prng.uuid()}`;
  }

  /** A request of the seeding that must answer 2xx: its id, or undefined (and a logged failure). */
  private async make(
    what: string,
    method: string,
    path: string,
    body?: Json,
    extra?: Partial<SendSpec>,
  ): Promise<JsonObject | undefined> {
    const { answer, json } = await this.call(method, path, body, extra);
    if (answer.status >= 200 && answer.status < 300) return json;
    this.failed(what, answer.status || answer.error, `${method} ${path} ${answer.text.slice(0, 200)}`);
    return undefined;
  }

  private failed(what: string, status: number | string | undefined, detail: string): void {
    const key = `${what} ${String(status)}`;
    const known = this.failures.get(key);
    if (known) return void (known.count += 1);
    const text = `setup: ${what} answered ${String(status)}: ${detail}`;
    this.failures.set(key, { text, count: 1 });
    this.runner.log(text);
  }

  /** What the seeding and the fresh resources could not make (not violations: those cases used stand-ins). */
  get seedFailures(): string[] {
    return [...this.failures.values()].map((f) => (f.count > 1 ? `${f.text} (${f.count}×)` : f.text));
  }

  private str(obj: JsonObject | undefined, ...path: string[]): string | undefined {
    let node: Json | undefined = obj;
    for (const key of path) node = isObject(node) ? node[key] : undefined;
    return typeof node === 'string' ? node : undefined;
  }

  async seed(): Promise<void> {
    const tag = this.prng.text(8);
    const connections = await this.make('connections', 'GET', '/v1/connections');
    for (const c of Array.isArray(connections?.data) ? connections.data : []) {
      if (!isObject(c) || typeof c.id !== 'string') continue;
      if (c.channel === 'whatsapp') this.waConnection ??= c.id;
      if (c.channel === 'instagram') this.igConnection ??= c.id;
    }
    this.add('connectionId', this.waConnection);
    this.add('connectionId', this.igConnection);
    const fields = await this.make('custom fields', 'GET', '/v1/custom-fields');
    const fieldList = (Array.isArray(fields?.data) ? fields.data : []).filter(isObject);
    const textField = fieldList.find((f) => f.type === 'text') ?? fieldList[0];
    this.add('fieldId', this.str(textField, 'id'));
    for (const f of fieldList) {
      this.add('fieldId', this.str(f, 'id'));
      this.add(`fieldId:${String(f.type)}`, this.str(f, 'id'));
      for (const o of Array.isArray(f.options) ? f.options : [])
        if (isObject(o)) this.dropdownValues.push(String(o.value));
    }

    const created = await this.make('tag', 'POST', '/v1/tags', { name: `Fuzz ${tag}` });
    this.add('tagId', this.str(created, 'id'));
    const contact = await this.make('contact', 'POST', '/v1/contacts', {
      phone: SEED_PHONE,
      name: 'Fuzz Ana',
      connection_id: this.waConnection ?? this.id('connectionId'),
      consent: true,
    });
    this.add('contactId', this.str(contact, 'id'));
    const contactId = this.id('contactId');
    await this.make('tag the contact', 'PUT', `/v1/contacts/${contactId}/tags/${this.id('tagId')}`);
    await this.setFieldValue(contactId);

    const folder = await this.make('folder', 'POST', '/v1/folders', { name: `Fuzz ${tag}` });
    this.add('folderId', this.str(folder, 'id'));
    const parent = await this.make('parent folder', 'POST', '/v1/folders', { name: `Fuzz parent ${tag}` });
    this.add('parentFolderId', this.str(parent, 'id'));
    const list = await this.make('replies list', 'POST', '/v1/replies-lists', {
      name: `Fuzz ${tag}`,
      replies: ['Obrigado! Te mandei no direct.'],
    });
    this.add('repliesListId', this.str(list, 'id'));

    const webhook = await this.make('webhook', 'POST', '/v1/webhooks', {
      url: this.receiverUrl,
      event_types: ['message.received', 'message.sent', 'contact.tagged'],
    });
    this.add('webhookId', this.str(webhook, 'id'));

    const workflow = await this.make('workflow', 'POST', '/v1/workflows', this.workflowBody(`Fuzz ${tag}`, true));
    const workflowId = this.str(workflow, 'id');
    this.add('workflowId', workflowId);
    if (workflowId) {
      const published = await this.make('publish', 'POST', `/v1/workflows/${workflowId}/publish`, undefined, {
        headers: { 'If-Match': '"0"' },
      });
      this.add('versionId', this.str(published, 'published_version_id'));
    }

    // The contact writes: its conversation and a message, a 24-hour window, a message.received delivery.
    const inbound = await this.make(
      'inbound message',
      'POST',
      `/admin/v1/sandbox/connections/${this.waConnection ?? this.id('connectionId')}/inbound`,
      { from: { phone: SEED_PHONE, name: 'Fuzz Ana' }, text: 'Oi! Tem o Runner no 38?' },
    );
    this.add('conversationId', this.str(inbound, 'conversation', 'id'));
    this.add('messageId', this.str(inbound, 'message', 'id'));
    this.add('contactId', this.str(inbound, 'contact', 'id'));

    // An instagram contact writes too: reactions, edits and unsends are instagram only.
    const igInbound = await this.make(
      'instagram inbound message',
      'POST',
      `/admin/v1/sandbox/connections/${this.igConnection ?? this.id('connectionId')}/inbound`,
      this.igFrom('Oi! Vi o Runner no feed.'),
    );
    this.add('igMessageId', this.str(igInbound, 'message', 'id'));
    this.add('igContactId', this.str(igInbound, 'contact', 'id'));

    if (workflowId) {
      const run = await this.make('run', 'POST', `/v1/workflows/${workflowId}/runs`, { contact_id: contactId });
      this.add('runId', this.str(run, 'id'));
    }
    const sent = await this.make('sent message', 'POST', `/v1/conversations/${this.id('conversationId')}/messages`, {
      text: 'Qual cor?',
      buttons: [{ type: 'reply', id: 'blue', title: 'Azul' }],
    });
    this.add('sentMessageId', this.str(sent, 'id'));

    const media = await this.make('media', 'POST', '/v1/media', { content_type: 'image/png', filename: 'fuzz.png' });
    this.add('mediaId', this.str(media, 'id'));
    const uploadUrl = this.str(media, 'upload_url');
    if (uploadUrl) {
      const put = await this.runner.support({
        method: 'PUT',
        path: uploadUrl,
        body: PNG,
        contentType: 'image/png',
        auth: 'none',
      });
      if (put.status >= 300) this.failed('media upload', put.status, put.text.slice(0, 200));
    }

    // A delivery of the webhook (the jobs worker records it shortly after the inbound message).
    const webhookId = this.pools.get('webhookId')?.[0];
    for (let i = 0; webhookId && i < 24 && !this.pools.has('deliveryId'); i++) {
      const { json } = await this.call('GET', `/v1/webhooks/${webhookId}/deliveries`);
      const first = (Array.isArray(json.data) ? json.data : []).find(isObject);
      this.add('deliveryId', this.str(first, 'id'));
      this.add('eventId', this.str(first, 'event', 'id'));
      if (!first) await new Promise((ok) => setTimeout(ok, 250));
    }
    if (!this.pools.has('deliveryId')) this.failed('webhook delivery', 'nothing', 'no delivery appeared in 6 s');

    // The throwaway account of the admin routes that suspend, revoke, disconnect or delete.
    const account = await this.make('account', 'POST', '/admin/v1/accounts', {
      name: `Fuzz ${tag}`,
      alias: `fuzz-${tag}`,
    });
    this.throwawayAccount = this.str(account, 'id');
    this.add('accountId', this.throwawayAccount);
    const accountId = this.id('accountId');
    const key = await this.make('key', 'POST', `/admin/v1/accounts/${accountId}/keys`, {
      name: 'Fuzz key',
      scopes: ['contacts:read'],
      validity_days: 30,
    });
    this.add('keyId', this.str(key, 'api_key', 'id'));
    const connection = await this.make('connection', 'POST', `/admin/v1/accounts/${accountId}/connections`, {
      channel: 'whatsapp',
      name: 'Fuzz whatsapp',
      phone: `+5511${this.prng.between(10_000_000, 99_999_999)}`,
    });
    this.throwawayConnection = this.str(connection, 'id');
    this.add('throwawayConnectionId', this.throwawayConnection);
    const template = await this.make('template', 'POST', `/admin/v1/accounts/${accountId}/templates`, {
      connection_id: this.id('throwawayConnectionId'),
      name: `fuzz_${tag}`,
      language: 'pt_BR',
      body: 'Olá {{1}}!',
      status: 'approved',
    });
    this.add('templateId', this.str(template, 'id'));
    const field = await this.make('admin custom field', 'POST', `/admin/v1/accounts/${accountId}/custom-fields`, {
      label: `Fuzz ${tag}`,
      type: 'text',
    });
    this.add('throwawayFieldId', this.str(field, 'id'));
  }

  private igFrom(text: string): JsonObject {
    return { from: { instagram_id: '17841400000000001', username: 'fuzz.bia', name: 'Fuzz Bia' }, text };
  }

  private workflowBody(title: string, withFolder: boolean): JsonObject {
    return {
      title,
      channel: { type: 'whatsapp', connection_id: this.waConnection ?? this.id('connectionId') },
      trigger: { events: ['message'], match: 'contains', keywords: ['fuzzkeyword'] },
      graph: {
        nodes: {
          root: { type: 'root', data: { next: ['hello'] } },
          hello: { type: 'message', data: { text: 'Oi!', next: [null] } },
        },
      },
      ...(withFolder && this.pools.has('folderId') ? { folder_id: this.id('folderId') } : {}),
    };
  }

  private async setFieldValue(contactId: string): Promise<void> {
    await this.make('custom-field value', 'PATCH', `/v1/contacts/${contactId}/custom-fields`, {
      custom_fields: [{ field_id: this.id('fieldId'), value: 'Campinas' }],
    });
  }

  private async freshContact(): Promise<string | undefined> {
    const made = await this.make('fresh contact', 'POST', '/v1/contacts', {
      phone: `+55119${this.prng.between(10_000_000, 99_999_999)}`,
      name: 'Fuzz fresh',
      connection_id: this.waConnection ?? this.id('connectionId'),
      consent: true,
    });
    return this.str(made, 'id');
  }

  /** A fresh resource made by `method path body` whose id is `idPath` of the answer, deleted afterwards. */
  private async fresh(
    param: string,
    method: string,
    path: string,
    body: Json | undefined,
    remove: (id: string) => SendSpec,
    idPath: string[] = ['id'],
  ): Promise<Prepared> {
    const made = await this.make(`fresh ${param}`, method, path, body);
    const id = this.str(made, ...idPath);
    if (!id) return { params: this.poolParams(), fresh: false };
    return {
      params: { ...this.poolParams(), [param]: id },
      fresh: true,
      cleanup: async () => void (await this.runner.support(remove(id))),
    };
  }

  private poolParams(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of [
      'contactId',
      'tagId',
      'fieldId',
      'conversationId',
      'messageId',
      'workflowId',
      'versionId',
      'runId',
      'folderId',
      'repliesListId',
      'webhookId',
      'deliveryId',
      'mediaId',
      'accountId',
      'keyId',
      'templateId',
    ])
      out[name] = this.id(name);
    out.connectionId = this.waConnection ?? this.id('connectionId');
    // An account variable's name (a path parameter that is no id): one the fuzz's account may or may not have.
    out.name = 'fuzz.var';
    out.secretId = this.id('secretId');
    out.spreadsheetAccountId = this.id('spreadsheetAccountId');
    return out;
  }

  /** The path-parameter values `op` is fuzzed with (fresh resources where it destroys them). */
  async prepare(op: Operation): Promise<Prepared> {
    const params = this.poolParams();
    const contactId = params.contactId!;
    const tagId = params.tagId!;
    const accountId = params.accountId!;
    const workflowId = params.workflowId!;
    if (op.path === '/admin/v1/connections/{connectionId}')
      return { params: { ...params, connectionId: this.id('throwawayConnectionId') }, fresh: false };
    if (op.path === '/admin/v1/sandbox/messages/{messageId}/button-taps' || op.path.endsWith('/failure'))
      return { params: { ...params, messageId: this.id('sentMessageId') }, fresh: false };
    if (
      op.path === '/admin/v1/sandbox/messages/{messageId}/reaction' ||
      op.path === '/admin/v1/sandbox/messages/{messageId}'
    ) {
      params.messageId = this.id('igMessageId');
      params.connectionId = this.igConnection ?? params.connectionId!;
    }
    if (op.path === '/admin/v1/sandbox/contacts/{contactId}/same-person') {
      const fresh = await this.freshContact();
      return { params: { ...params, contactId: fresh ?? contactId }, fresh: false };
    }
    if (op.path === '/v1/workflows/{workflowId}/runs' && op.method === 'POST') await this.ensurePublished(workflowId);
    if (op.method !== 'DELETE') return { params, fresh: false };

    switch (op.path) {
      case '/v1/contacts/{contactId}/tags/{tagId}':
        await this.make('tag again', 'PUT', `/v1/contacts/${contactId}/tags/${tagId}`);
        return { params, fresh: true };
      case '/v1/contacts/{contactId}/custom-fields/{fieldId}':
        await this.setFieldValue(contactId);
        return { params, fresh: true };
      case '/v1/tags/{tagId}':
        return this.fresh('tagId', 'POST', '/v1/tags', { name: `Fuzz ${this.prng.text(10)}` }, (id) => ({
          method: 'DELETE',
          path: `/v1/tags/${id}`,
        }));
      case '/v1/workflows/{workflowId}':
        return this.fresh(
          'workflowId',
          'POST',
          '/v1/workflows',
          this.workflowBody(`Fuzz ${this.prng.text(8)}`, false),
          (id) => ({
            method: 'DELETE',
            path: `/v1/workflows/${id}`,
          }),
        );
      case '/v1/folders/{folderId}':
        return this.fresh('folderId', 'POST', '/v1/folders', { name: `Fuzz ${this.prng.text(10)}` }, (id) => ({
          method: 'DELETE',
          path: `/v1/folders/${id}`,
        }));
      case '/v1/replies-lists/{repliesListId}':
        return this.fresh(
          'repliesListId',
          'POST',
          '/v1/replies-lists',
          { name: `Fuzz ${this.prng.text(10)}`, replies: ['Oi!'] },
          (id) => ({ method: 'DELETE', path: `/v1/replies-lists/${id}` }),
        );
      case '/v1/webhooks/{webhookId}':
        return this.fresh(
          'webhookId',
          'POST',
          '/v1/webhooks',
          { url: this.receiverUrl, event_types: ['contact.created'] },
          (id) => ({ method: 'DELETE', path: `/v1/webhooks/${id}` }),
        );
      case '/admin/v1/keys/{keyId}':
        return this.fresh(
          'keyId',
          'POST',
          `/admin/v1/accounts/${accountId}/keys`,
          { name: 'Fuzz fresh key', scopes: ['contacts:read'], validity_days: 30 },
          (id) => ({ method: 'DELETE', path: `/admin/v1/keys/${id}` }),
          ['api_key', 'id'],
        );
      case '/admin/v1/custom-fields/{fieldId}':
        return this.fresh(
          'fieldId',
          'POST',
          `/admin/v1/accounts/${accountId}/custom-fields`,
          { label: `Fuzz ${this.prng.text(10)}`, type: 'text' },
          (id) => ({ method: 'DELETE', path: `/admin/v1/custom-fields/${id}` }),
        );
      case '/admin/v1/accounts/{accountId}/variables/{name}':
        await this.make('account variable', 'PUT', `/admin/v1/accounts/${accountId}/variables/fuzz.var`, {
          value: 'x',
        });
        return { params, fresh: true };
      case '/admin/v1/secrets/{secretId}':
        return this.fresh(
          'secretId',
          'POST',
          `/admin/v1/accounts/${accountId}/secrets`,
          { name: `fuzz_${this.prng.between(1, 1e9)}`, value: 'fuzz-secret', domain: 'api.example.com' },
          (id) => ({ method: 'DELETE', path: `/admin/v1/secrets/${id}` }),
        );
      case '/admin/v1/contacts/{contactId}': {
        const fresh = await this.freshContact();
        if (!fresh) return { params, fresh: false };
        return {
          params: { ...params, contactId: fresh },
          fresh: true,
          cleanup: async () =>
            void (await this.runner.support({ method: 'DELETE', path: `/admin/v1/contacts/${fresh}` })),
        };
      }
      case '/admin/v1/sandbox/messages/{messageId}/reaction':
        await this.make('reaction', 'PUT', `/admin/v1/sandbox/messages/${params.messageId}/reaction`, { emoji: '👍' });
        return { params, fresh: true };
      case '/admin/v1/sandbox/messages/{messageId}': {
        const made = await this.make(
          'fresh inbound message',
          'POST',
          `/admin/v1/sandbox/connections/${params.connectionId}/inbound`,
          this.igFrom(`Fuzz ${this.prng.text(6)}`),
        );
        const id = this.str(made, 'message', 'id');
        return id ? { params: { ...params, messageId: id }, fresh: true } : { params, fresh: false };
      }
      case '/admin/v1/sandbox/connections/{connectionId}/send-outcomes':
        return { params, fresh: true };
      default:
        return { params, fresh: false };
    }
  }

  /** A body id of `op` other than its pool's: same-person's other contact is on another connection. */
  bodyIdOf(op: Operation, field: string): string | undefined {
    if (op.path === '/admin/v1/sandbox/contacts/{contactId}/same-person' && field === 'contact_id')
      return this.pools.get('igContactId')?.[0];
    return undefined;
  }

  /** The workflow's current ETag (`"3"`), for If-Match. */
  async etag(workflowId: string): Promise<string> {
    const { answer } = await this.call('GET', `/v1/workflows/${workflowId}`);
    return answer.headers.etag ?? '"0"';
  }

  private async ensurePublished(workflowId: string): Promise<void> {
    const { answer, json } = await this.call('GET', `/v1/workflows/${workflowId}`);
    if (answer.status !== 200 || (json.status === 'published' && json.has_unpublished_changes !== true)) return;
    await this.call('POST', `/v1/workflows/${workflowId}/publish`, undefined, {
      headers: { 'If-Match': answer.headers.etag ?? '"0"' },
    });
  }

  /** The header parameters of `op`: a new Idempotency-Key, the current If-Match of its workflow. */
  async headers(op: Operation, params: Record<string, string>): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const p of op.params) {
      if (p.in !== 'header') continue;
      if (p.name.toLowerCase() === 'idempotency-key') out[p.name] = this.key();
      else if (p.name.toLowerCase() === 'if-match' && params.workflowId)
        out[p.name] = await this.etag(params.workflowId);
    }
    return out;
  }

  /** What a request to `op` may leave that others must not meet: arranged send outcomes are cleared. */
  async after(op: Operation): Promise<void> {
    if (op.path !== '/admin/v1/sandbox/connections/{connectionId}/send-outcomes' || op.method !== 'POST') return;
    for (const connection of [this.waConnection, this.igConnection])
      if (connection)
        await this.runner.support({
          method: 'DELETE',
          path: `/admin/v1/sandbox/connections/${connection}/send-outcomes`,
        });
  }
}
