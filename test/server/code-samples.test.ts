// The reference's code samples (`x-codeSamples` of generated/openapi.json, scripts/lib/code-samples.ts) are
// right: against a real server (sandbox and worker on, the demo account), every curl sample runs in bash with
// the objects it needs made first, and answers the status its first line documents (`# → 201`); every TypeScript
// sample type-checks against generated/api.ts in one compiler program, and a handful run with tsx.
//
// A sample is run as published: path ids, `$IDEMPOTENCY_KEY` and `$IF_MATCH` come from the environment, as a
// partner sets them. The ids inside a body are the example account's (its connections, fields, folder…): they
// are replaced by the ids of the matching objects made here, as a partner puts theirs; an id no object matches
// fails the test.
//
// On PGlite alone, also when DATABASE_URL is set: what is checked here is the published text (a sample runs and
// answers the status it documents), the HTTP contract, which no storage engine changes; every operation's rules
// run on both engines in their own test files. Run on both, the file paid its ~70 s (CI) twice for nothing more.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient, type GraphNodes } from '../../client/index.js';
import { createAdminClient, type AdminClient } from '../../examples/sandbox-exchange.js';
import { buildWorld } from '../../scripts/examples/world.js';
import { isObject, listOperations } from '../../scripts/lib/openapi.js';
import { ensureDemoAccount } from '../../server/console/demo.js';
import { bundledSpec, repoRoot } from '../helpers.js';
import { exampleServer } from './example-server.js';

const run = promisify(execFile);
const ADMIN_TOKEN = 'code-samples-admin-token-0123456789';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

interface Sample {
  operationId: string;
  key: string;
  curl: string;
  typescript: string;
}

/** The published samples, one curl and one TypeScript per operation of `paths`. */
function publishedSamples(): Sample[] {
  const doc = bundledSpec();
  return listOperations(doc)
    .filter((op) => op.section === 'paths')
    .map((op) => {
      const samples = Array.isArray(op.operation['x-codeSamples']) ? op.operation['x-codeSamples'] : [];
      const source = (lang: string) => {
        const found = samples.find((s) => isObject(s) && s.lang === lang);
        return isObject(found) && typeof found.source === 'string' ? found.source : '';
      };
      return {
        operationId: String(op.operation.operationId),
        key: `${op.method.toUpperCase()} ${op.key}`,
        curl: source('Shell'),
        typescript: source('TypeScript'),
      };
    });
}

const samples = publishedSamples();

/** The status the curl sample documents on its first line. */
function documentedStatus(curl: string): number {
  const status = /^# → (\d{3})\n/.exec(curl)?.[1];
  if (!status) throw new Error(`no "# → <status>" first line in:\n${curl}`);
  return Number(status);
}

/** Unwraps an openapi-fetch answer or fails with what the server said. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined)
    throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error ?? null)}`);
  return result.data;
}

const unique = () => randomBytes(4).toString('hex');

describe('the published code samples', () => {
  it('are on every operation: curl with a documented status, TypeScript with openapi-fetch', () => {
    expect(samples.length).toBeGreaterThan(50);
    for (const s of samples) {
      expect(documentedStatus(s.curl), s.key).toBeGreaterThanOrEqual(200);
      expect(s.curl, s.key).toMatch(/\bcurl -sS\b.*"\$BASE_URL\//);
      expect(s.typescript, s.key).toContain('createClient<paths>(');
    }
  });

  it('type-check against generated/api.ts in one program; a wrong one does not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'code-samples-ts-'));
    try {
      symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
      copyFileSync(join(repoRoot, 'generated/api.ts'), join(dir, 'api.ts'));
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
      const files = samples.map((s) => {
        const file = join(dir, `${s.operationId}.ts`);
        writeFileSync(file, s.typescript);
        return file;
      });
      // The proof that the check bites: the tag sample with a misspelled body field.
      const createTag = samples.find((s) => s.operationId === 'createTag')!;
      const broken = join(dir, 'broken.ts');
      writeFileSync(broken, createTag.typescript.replace('name:', 'nmae:'));
      const program = ts.createProgram([...files, broken], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: ['node'],
        skipLibCheck: true,
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => {
        const where = d.file ? `${d.file.fileName.slice(dir.length + 1)}: ` : '';
        return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
      expect(problems.filter((p) => !p.startsWith('broken.ts'))).toEqual([]);
      expect(problems.some((p) => p.startsWith('broken.ts') && p.includes("'nmae'"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the code samples against the server on PGlite', () => {
  const x = exampleServer('pglite', ADMIN_TOKEN, 'samples');
  let api: ApiClient;
  let admin: AdminClient;
  let apiKey: string;
  let whatsappId: string;
  let instagramId: string;
  /** Example account id → the id of the matching object of the demo account. */
  const bodyIds = new Map<string, string>();
  const tsDir = mkdtempSync(join(tmpdir(), 'code-samples-run-'));
  const sink = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  let sinkUrl = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/webhooks`;
    const demo = await ensureDemoAccount(x.t.database.db, x.t.clock, x.dataDir);
    apiKey = demo.apiKey;
    api = createClient({ baseUrl: x.t.baseUrl, apiKey });
    admin = createAdminClient(x.t.baseUrl, ADMIN_TOKEN);
    const connections = ok(await api.GET('/v1/connections'), 'connections').data;
    whatsappId = connections.find((c) => c.channel === 'whatsapp')!.id;
    instagramId = connections.find((c) => c.channel === 'instagram')!.id;
    const fields = ok(await api.GET('/v1/custom-fields'), 'fields').data;
    const field = (name: string) => fields.find((f) => f.name === name)!.id;

    const world = buildWorld();
    const folder = ok(await api.POST('/v1/folders', { body: { name: `Samples ${unique()}` } }), 'folder');
    const list = ok(
      await api.POST('/v1/replies-lists', { body: { name: `Samples ${unique()}`, replies: ['Te mandei no direct!'] } }),
      'replies list',
    );
    const runContact = await whatsappContact();
    const entries: [string, string][] = [
      [world.connections.whatsapp.id, whatsappId],
      [world.connections.instagram.id, instagramId],
      [world.fields.plan.id, field('plano')],
      [world.fields.city.id, field('cidade')],
      [world.fields.orders.id, field('pedidos')],
      [world.contacts.anaWhatsapp.id, runContact.contactId],
      ...world.ids.folders.map((id): [string, string] => [id, folder.id]),
      ...world.ids.repliesLists.map((id): [string, string] => [id, list.id]),
    ];
    for (const [from, to] of entries) bodyIds.set(from, to);
    // What the automation examples name: the example account's tags and an `email` field.
    for (const tag of world.tags) ok(await api.POST('/v1/tags', { body: { name: tag.name } }), 'tag');
    ok(
      await admin.POST('/admin/v1/accounts/{accountId}/custom-fields', {
        params: { path: { accountId: demo.accountId } },
        body: { label: 'email', type: 'text' },
      }),
      'email field',
    );
    symlinkSync(join(repoRoot, 'node_modules'), join(tsDir, 'node_modules'));
    copyFileSync(join(repoRoot, 'generated/api.ts'), join(tsDir, 'api.ts'));
    writeFileSync(join(tsDir, 'package.json'), '{"type":"module"}');
  }, 60_000);
  afterAll(async () => {
    rmSync(tsDir, { recursive: true, force: true });
    await new Promise((resolve) => sink.close(resolve));
  });

  /** A contact writes to the demo whatsapp number: a contact, a conversation with an open window, a message. */
  async function whatsappContact() {
    const phone = `+55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const inbound = ok(
      await admin.POST('/admin/v1/sandbox/connections/{connectionId}/inbound', {
        params: { path: { connectionId: whatsappId } },
        body: { from: { phone, name: 'Bia Lima' }, text: 'Oi! Tem o Runner no 38?' },
      }),
      'whatsapp inbound',
    );
    return { contactId: inbound.contact.id, conversationId: inbound.conversation.id, messageId: inbound.message.id };
  }

  /** Someone writes to the demo instagram account. */
  async function instagramContact() {
    const inbound = ok(
      await admin.POST('/admin/v1/sandbox/connections/{connectionId}/inbound', {
        params: { path: { connectionId: instagramId } },
        body: {
          from: {
            instagram_id: String(10n ** 16n + BigInt(Math.floor(Math.random() * 1e15))),
            username: `ana.${unique()}`,
            name: 'Ana',
          },
          text: 'Oi! Vi o Runner no feed.',
        },
      }),
      'instagram inbound',
    );
    return { contactId: inbound.contact.id, conversationId: inbound.conversation.id, messageId: inbound.message.id };
  }

  const newTag = async () => ok(await api.POST('/v1/tags', { body: { name: `Samples ${unique()}` } }), 'tag').id;

  /** A whatsapp automation answering a keyword of its own; published when asked. */
  async function newWorkflow(publish = false, graphNodes?: GraphNodes) {
    const workflow = ok(
      await api.POST('/v1/workflows', {
        body: {
          title: `Samples ${unique()}`,
          channel: { type: 'whatsapp', connection_id: whatsappId },
          trigger: { events: ['message'], match: 'contains', keywords: [`kw${unique()}`] },
          graph: {
            nodes: graphNodes ?? {
              root: { type: 'root', data: { next: ['oi'] } },
              oi: { type: 'message', data: { text: 'Oi!', next: [null] } },
            },
          },
        },
      }),
      'workflow',
    );
    if (!publish) return { workflowId: workflow.id, revision: workflow.revision };
    const published = ok(
      await api.POST('/v1/workflows/{workflowId}/publish', {
        params: { path: { workflowId: workflow.id }, header: { 'If-Match': `"${workflow.revision}"` } },
      }),
      'publish',
    );
    return { workflowId: workflow.id, revision: published.revision };
  }

  async function startRun(workflowId: string, contactId: string) {
    return ok(
      await api.POST('/v1/workflows/{workflowId}/runs', {
        params: { path: { workflowId }, header: { 'Idempotency-Key': randomUUID() } },
        body: { contact_id: contactId },
      }),
      'run',
    ).id;
  }

  /** An endpoint on `sink`, which takes every delivery (what is checked here is the samples, not signatures). */
  const newWebhook = async () =>
    ok(await api.POST('/v1/webhooks', { body: { url: sinkUrl, event_types: ['contact.tagged'] } }), 'webhook').id;

  async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < 200; i++) {
      if (i % 50 === 49) nextWindow();
      const found = await probe();
      if (found !== undefined) return found;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  /** A webhook with one delivery (a contact tagged), attempted by the worker. */
  async function webhookWithDelivery() {
    const webhookId = await newWebhook();
    const { contactId } = await whatsappContact();
    const tagId = await newTag();
    ok(await api.PUT('/v1/contacts/{contactId}/tags/{tagId}', { params: { path: { contactId, tagId } } }), 'tag it');
    const deliveryId = await until('a delivery', async () => {
      const page = ok(
        await api.GET('/v1/webhooks/{webhookId}/deliveries', { params: { path: { webhookId } } }),
        'deliveries',
      );
      return page.data.find((d) => d.status !== 'pending')?.id;
    });
    return { webhookId, deliveryId };
  }

  /** A tracked link: a run sends a button with a url to a contact whose window is open. */
  async function trackedLinkToken() {
    const { workflowId } = await newWorkflow(true, {
      root: { type: 'root', data: { next: ['menu'] } },
      menu: {
        type: 'buttons',
        data: {
          subtitle: 'Veja a oferta',
          buttons: [{ id: 'oferta', title: 'Ver oferta', url: 'https://loja.example.com/oferta' }],
          next: [null, null, null, null],
        },
      },
    });
    const { contactId, conversationId } = await whatsappContact();
    await startRun(workflowId, contactId);
    return until('the link button', async () => {
      const page = ok(
        await api.GET('/v1/conversations/{conversationId}/messages', { params: { path: { conversationId } } }),
        'messages',
      );
      const text = JSON.stringify(page.data.filter((m) => m.sender.type === 'workflow'));
      return /\/links\/([A-Za-z0-9_-]{32})/.exec(text)?.[1];
    });
  }

  async function ifMatch(workflowId: string) {
    const read = await api.GET('/v1/workflows/{workflowId}', { params: { path: { workflowId } } });
    return read.response.headers.get('ETag')!;
  }

  /** What each sample needs in its environment, made fresh for it. */
  async function environment(operationId: string): Promise<Record<string, string>> {
    switch (operationId) {
      case 'getContact':
      case 'updateContactCustomFields':
        return { CONTACT_ID: (await whatsappContact()).contactId };
      case 'addContactTag':
        return { CONTACT_ID: (await whatsappContact()).contactId, TAG_ID: await newTag() };
      case 'removeContactTag': {
        const [{ contactId }, tagId] = [await whatsappContact(), await newTag()];
        ok(await api.PUT('/v1/contacts/{contactId}/tags/{tagId}', { params: { path: { contactId, tagId } } }), 'tag');
        return { CONTACT_ID: contactId, TAG_ID: tagId };
      }
      case 'clearContactCustomField': {
        const { contactId } = await whatsappContact();
        const fieldId = bodyIds.get(buildWorld().fields.city.id)!;
        ok(
          await api.PATCH('/v1/contacts/{contactId}/custom-fields', {
            params: { path: { contactId } },
            body: { custom_fields: [{ field_id: fieldId, value: 'Campinas' }] },
          }),
          'set a value',
        );
        return { CONTACT_ID: contactId, FIELD_ID: fieldId };
      }
      case 'getTag':
      case 'updateTag':
      case 'deleteTag':
      case 'listTagContacts':
        return { TAG_ID: await newTag() };
      case 'getConversation':
      case 'listConversationMessages':
      case 'sendMessage': {
        // The first named example of a send is instagram text: an instagram conversation with an open window.
        const { conversationId } = await instagramContact();
        return { CONVERSATION_ID: conversationId };
      }
      case 'getMessage':
        return { MESSAGE_ID: (await whatsappContact()).messageId };
      case 'getMediaContent': {
        const media = ok(await api.POST('/v1/media', { body: { content_type: 'image/png' } }), 'media');
        const upload = await fetch(media.upload_url, {
          method: 'PUT',
          headers: { 'Content-Type': 'image/png' },
          body: Buffer.from(
            'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
            'base64',
          ),
        });
        expect(upload.status).toBeLessThan(300);
        return { MEDIA_ID: media.id };
      }
      case 'getWorkflow':
      case 'validateWorkflow':
      case 'publishWorkflow':
      case 'deleteWorkflow':
        return { WORKFLOW_ID: (await newWorkflow()).workflowId };
      case 'updateWorkflow': {
        const { workflowId } = await newWorkflow();
        return { WORKFLOW_ID: workflowId, IF_MATCH: await ifMatch(workflowId) };
      }
      case 'unpublishWorkflow':
      case 'listWorkflowVersions':
      case 'startWorkflowRun':
        return { WORKFLOW_ID: (await newWorkflow(true)).workflowId };
      case 'getWorkflowVersion': {
        const { workflowId } = await newWorkflow(true);
        const versions = ok(
          await api.GET('/v1/workflows/{workflowId}/versions', { params: { path: { workflowId } } }),
          'versions',
        );
        return { WORKFLOW_ID: workflowId, VERSION_ID: versions.data[0]!.id };
      }
      case 'listWorkflowRuns':
      case 'getWorkflowRun': {
        const { workflowId } = await newWorkflow(true);
        const runId = await startRun(workflowId, (await whatsappContact()).contactId);
        return { WORKFLOW_ID: workflowId, RUN_ID: runId };
      }
      case 'getTrackedLink':
        return { TOKEN: await trackedLinkToken() };
      case 'updateFolder':
      case 'deleteFolder':
        return { FOLDER_ID: ok(await api.POST('/v1/folders', { body: { name: `Samples ${unique()}` } }), 'folder').id };
      case 'getRepliesList':
      case 'updateRepliesList':
      case 'deleteRepliesList': {
        const list = ok(
          await api.POST('/v1/replies-lists', { body: { name: `Samples ${unique()}`, replies: ['Veja seu direct!'] } }),
          'replies list',
        );
        return { REPLIES_LIST_ID: list.id };
      }
      case 'getWebhook':
      case 'updateWebhook':
      case 'deleteWebhook':
      case 'rotateWebhookSecret':
      case 'testWebhook':
        return { WEBHOOK_ID: await newWebhook() };
      case 'listWebhookDeliveries':
      case 'retryWebhookDelivery': {
        const { webhookId, deliveryId } = await webhookWithDelivery();
        return { WEBHOOK_ID: webhookId, DELIVERY_ID: deliveryId };
      }
      default:
        return {};
    }
  }

  /**
   * The sample with the example account's ids (and its CRM's webhook address) in its code replaced by the demo
   * account's; comments (`# …` lines, ` // …` ends) stay as published.
   */
  function withOurIds(source: string): string {
    const ours = (code: string) =>
      code.replace(/https:\/\/crm\.[a-z0-9.-]+\/webhooks\/engagement[^"']*/g, sinkUrl).replace(UUID, (id) => {
        const mine = bodyIds.get(id);
        if (!mine) throw new Error(`no object of the demo account stands for the example's id ${id}:\n${code}`);
        return mine;
      });
    return source
      .split('\n')
      .map((line) => {
        if (line.trimStart().startsWith('#')) return line;
        const comment = line.indexOf(' // ');
        return comment < 0 ? ours(line) : ours(line.slice(0, comment)) + line.slice(comment);
      })
      .join('\n');
  }

  /** Runs a curl sample in bash; curl itself writes the status on a last line of its own. */
  async function runCurl(source: string, env: Record<string, string>) {
    const script = `curl() { command curl -w '\\n%{http_code}' "$@"; }\n${source}`;
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      env: { PATH: process.env.PATH, BASE_URL: x.t.baseUrl, API_KEY: apiKey, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    const lines = stdout.trimEnd().split('\n');
    return { status: Number(lines.pop()), body: lines.join('\n') };
  }

  /** A new rate-limit window for each sample (the account's limits count every call made here). */
  const nextWindow = () => x.t.clock.advance(61_000);

  it.each(samples.map((s) => [s.key, s] as const))(
    'curl: %s',
    async (_key, sample) => {
      nextWindow();
      const env = { ...(await environment(sample.operationId)), IDEMPOTENCY_KEY: randomUUID() };
      const { status, body } = await runCurl(withOurIds(sample.curl), env);
      expect({ status, body: status === documentedStatus(sample.curl) ? '' : body }).toEqual({
        status: documentedStatus(sample.curl),
        body: '',
      });
    },
    30_000,
  );

  it('a wrong curl sample fails: without the key it answers 401, not its documented 200', async () => {
    const getMe = samples.find((s) => s.operationId === 'getMe')!;
    const { status } = await runCurl(getMe.curl.replace(/ \\\n {2}-H "Authorization: Bearer \$API_KEY"/, ''), {});
    expect(documentedStatus(getMe.curl)).toBe(200);
    expect(status).toBe(401);
  });

  it.each(['getMe', 'createMedia', 'getContact', 'sendMessage', 'updateWorkflow'])(
    'TypeScript runs: %s',
    async (operationId) => {
      nextWindow();
      const sample = samples.find((s) => s.operationId === operationId)!;
      const file = join(tsDir, `${operationId}.ts`);
      writeFileSync(file, withOurIds(sample.typescript));
      const env = await environment(operationId);
      const { stdout } = await run(join(repoRoot, 'node_modules/.bin/tsx'), [file], {
        cwd: tsDir,
        env: { PATH: process.env.PATH, BASE_URL: x.t.baseUrl, API_KEY: apiKey, ...env },
      });
      expect(Number(stdout.split(' ')[0])).toBe(documentedStatus(sample.curl));
    },
    30_000,
  );
});
