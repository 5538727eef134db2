// An automation that reaches out, from end to end with the sandbox (issue 22): a sandbox contact on instagram
// writes the keyword and answers a question; an `invoke` block posts the answer to a CRM of this example's own
// on 127.0.0.1, which checks the JSON body and a secret header and answers JSON that the block copies into a
// custom field; a `sheets` block appends a row that the sandbox spreadsheet then shows; the contact opens the
// tracked link of a link button, whose `link.clicked` reaches the webhook receiver, and the run follows the
// link's output to its end.
//
//   npm start                                                  # in one terminal: prints the key and the admin token's file
//   API_KEY=epk_… ADMIN_TOKEN=$(cat data/admin-token) npm run automation-integrations    # BASE_URL to another server
//
// It starts its own webhook receiver (examples/webhook-receiver.ts) and its own CRM, both on 127.0.0.1. The
// server must allow local targets for both (WEBHOOK_DEV_TARGETS and INVOKE_DEV_TARGETS: on by default with
// `npm start`) and have the sandbox on; its in-process worker runs the automation. Each run removes the
// automation and the endpoint an earlier run left (they carry this file's name as description), and writes as
// a new instagram user.
//
// test/server/automation-integrations.test.ts runs `automationIntegrations` against a test server on both engines.
import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ApiClient, Block, GraphNodes, components } from '../client/index.js';
import type { components as adminComponents } from '../generated/admin-api.js';
import { check, deleteWorkflowsDescribed, publishValidated } from './check.js';
import { runWithReceiver } from './cli.js';
import type { AdminClient } from './sandbox-exchange.js';
import type { ReceivedRequest, ReceiverControls } from './webhook-receiver.js';

type Run = components['schemas']['WorkflowRun'];
type Workflow = components['schemas']['Workflow'];
type Contact = components['schemas']['Contact'];
type Spreadsheet = adminComponents['schemas']['SandboxSpreadsheet'];

/** The automation and the endpoint this example creates carry this description (earlier runs' are removed). */
export const INTEGRATIONS_DESCRIPTION = 'examples/automation-integrations.ts';
/** The custom field the CRM's answer goes to (created on the first run; its key is derived from the label). */
export const TIER_FIELD_LABEL = 'Nível CRM';
/** The demo account's text field that receives the answer to the question. */
export const CITY_FIELD = 'cidade';
/** The account secret the invoke block sends, only to the CRM's host. */
export const SECRET_NAME = 'crm_token';
/** The link button's own address: the contact gets a tracking address that redirects here. */
export const OFFER_URL = 'https://loja.example.com/cupom-frete';
/** The columns of the sandbox spreadsheet's tab (row 1). */
export const LEAD_COLUMNS = ['Contato', 'Cidade', 'Nível', 'Cliente VIP', 'Quando'];

/** A request the CRM received: what the example checks it got. */
export interface CrmRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  body: unknown;
}

/** The business's own system: answers `POST /leads` with the customer's tier, when the bearer token is right. */
export interface Crm {
  url: string;
  host: string;
  requests: CrmRequest[];
  close(): Promise<void>;
}

export async function startCrm(token: string, tier = 'ouro'): Promise<Crm> {
  const requests: CrmRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // kept as text: the check below refuses it
      }
      const header = (name: string) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      };
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: header('authorization'),
        contentType: header('content-type'),
        idempotencyKey: header('idempotency-key'),
        body,
      });
      const ok =
        req.method === 'POST' && req.url === '/leads' && header('authorization') === `Bearer ${token}` && isLead(body);
      res.writeHead(ok ? 200 : 400, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(ok ? { customer: { tier, since: '2024-03-01' } } : { error: 'bad request' }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: '127.0.0.1',
    requests,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

function isLead(body: unknown): body is { city: string; contact_id: string; source: string } {
  if (typeof body !== 'object' || body === null) return false;
  const lead = body as Record<string, unknown>;
  return typeof lead.city === 'string' && typeof lead.contact_id === 'string' && lead.source === 'instagram';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => ok(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
}

/**
 * The graph: ask the city (saved to `cidade`), post it to the CRM (its tier copied into the tier field), append
 * a lead row to the spreadsheet, then offer the coupon with a link button whose open sends a thank-you. The CRM
 * failing takes the invoke's second output: an apology.
 */
export function integrationsGraph(input: {
  crmUrl: string;
  tierField: string;
  spreadsheetAccountId: string;
  spreadsheetId: string;
  tag: string;
}): GraphNodes {
  const ask: Block<'question'> = {
    type: 'question',
    data: { text: 'Para qual cidade é a entrega?', answer_type: 'any', answer_field: CITY_FIELD, next: ['crm'] },
  };
  const crm: Block<'invoke'> = {
    type: 'invoke',
    data: {
      method: 'POST',
      endpoint: `${input.crmUrl}/leads`,
      headers: [{ name: 'Authorization', value: `Bearer {secret.${SECRET_NAME}}` }],
      // A JSON body: the variables enter escaped, without quotes (the quotes are written here).
      data: '{"city": "{cidade}", "contact_id": "{contact.id}", "source": "instagram"}',
      fields: [{ path: '$.customer.tier', name: input.tierField }],
      next: ['planilha', 'desculpa'], // 2xx, anything else
    },
  };
  const sheet: Block<'sheets'> = {
    type: 'sheets',
    data: {
      sheets_external_id: input.spreadsheetAccountId,
      spreadsheet_id: input.spreadsheetId,
      spreadsheet_name: 'Leads da loja',
      tab_title: 'Leads',
      operation: 'append',
      values: {
        Contato: '{contact.name}',
        Cidade: '{cidade}',
        Nível: `{${input.tierField}}`,
        'Cliente VIP': `{contact.tag.${input.tag}}`,
        Quando: '$timestamp',
      },
      next: ['cupom'],
    },
  };
  const offer: Block<'buttons'> = {
    type: 'buttons',
    data: {
      subtitle: 'Cliente {' + input.tierField + '} em {cidade}: seu cupom de frete está pronto.',
      buttons: [{ id: 'ver_cupom', title: 'Ver cupom', url: OFFER_URL }],
      // Output 0 follows an open of the link (instagram); nothing right after the send.
      next: ['obrigado', null, null, null],
    },
  };
  return {
    root: { type: 'root', data: { next: ['cidade'] } },
    cidade: ask,
    crm,
    planilha: sheet,
    cupom: offer,
    obrigado: { type: 'message', data: { text: 'Bom proveito, {contact.first_name}!', next: [null] } },
    desculpa: { type: 'message', data: { text: 'Não consegui falar com a loja agora.', next: [null] } },
  };
}

export interface IntegrationsOptions {
  /** The keyword that starts the automation; default `cupom`. */
  keyword?: string;
  /** Called before each look at the run or the receivers while waiting (a test runs its job worker here). */
  settle?: () => Promise<void>;
  /** How long one wait may take before the example gives up; default 20 s. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface AutomationIntegrations {
  workflow: Workflow;
  contactId: string;
  crm: { url: string; requests: CrmRequest[] };
  /** The secret's value the CRM checked (the example made it). */
  secretValue: string;
  tierField: string;
  spreadsheetBefore: Spreadsheet;
  spreadsheetAfter: Spreadsheet;
  /** The tracking address the contact got, and where it redirected. */
  link: { address: string; location: string | null; status: number };
  clicked: ReceivedRequest;
  completed: Run;
  contact: Contact;
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

export async function automationIntegrations(
  api: ApiClient,
  admin: AdminClient,
  receiverUrl: string,
  receiver: ReceiverControls,
  options: IntegrationsOptions = {},
): Promise<AutomationIntegrations> {
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 20_000;
  const keyword = options.keyword ?? 'cupom';

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, everyMs = 100) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await options.settle?.();
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(everyMs);
    }
  }

  // 0. The account, its instagram account, the fields and the tag the automation names.
  const me = check(await api.GET('/v1/me'), 'read the account');
  const accountId = me.account.id;
  const connections = check(await api.GET('/v1/connections'), 'list connections');
  const instagram = connections.data.find((c) => c.channel === 'instagram' && c.status === 'connected');
  if (!instagram) throw new Error('the account has no connected instagram account');
  const fields = check(await api.GET('/v1/custom-fields', { params: { query: { limit: 100 } } }), 'custom fields');
  if (!fields.data.some((f) => f.name === CITY_FIELD))
    throw new Error(`the account has no custom field ${CITY_FIELD} (the demo account has it)`);
  const tierField =
    fields.data.find((f) => f.label === TIER_FIELD_LABEL)?.name ??
    check(
      await admin.POST('/admin/v1/accounts/{accountId}/custom-fields', {
        params: { path: { accountId } },
        body: { label: TIER_FIELD_LABEL, type: 'text' },
      }),
      'create the tier field',
    ).name;
  const vipTag = 'Cliente VIP';
  const tagSlug = 'cliente-vip';

  // 1. The CRM, and the secret it checks: sent only to its host (the secret's domain).
  const secretValue = `crm_${randomBytes(12).toString('hex')}`;
  const crm = await startCrm(secretValue);
  try {
    const secrets = check(
      await admin.GET('/admin/v1/accounts/{accountId}/secrets', { params: { path: { accountId } } }),
      'list secrets',
    );
    for (const old of secrets.data.filter((s) => s.name === SECRET_NAME))
      check(
        await admin.DELETE('/admin/v1/secrets/{secretId}', { params: { path: { secretId: old.id } } }),
        'delete the earlier secret',
      );
    check(
      await admin.POST('/admin/v1/accounts/{accountId}/secrets', {
        params: { path: { accountId } },
        body: { name: SECRET_NAME, value: secretValue, domain: crm.host },
      }),
      'create the secret',
    );
    log(`1. CRM on ${crm.url}; secret ${SECRET_NAME} for ${crm.host}`);

    // 2. A spreadsheet account (connected) and a sandbox spreadsheet with a Leads tab.
    const sheetsAccount = check(
      await admin.POST('/admin/v1/accounts/{accountId}/spreadsheet-accounts', {
        params: { path: { accountId } },
        body: { name: 'Planilhas da loja' },
      }),
      'create the spreadsheet account',
    );
    const spreadsheetBefore = check(
      await admin.POST('/admin/v1/sandbox/spreadsheets', {
        body: {
          spreadsheet_account_id: sheetsAccount.id,
          name: 'Leads da loja',
          tabs: [{ title: 'Leads', rows: [LEAD_COLUMNS] }],
        },
      }),
      'create the sandbox spreadsheet',
    );
    log(`2. spreadsheet ${spreadsheetBefore.id} with tab Leads: ${LEAD_COLUMNS.join(' | ')}`);

    // 3. The webhook endpoint for link.clicked and workflow_run.ended.
    for (const old of check(await api.GET('/v1/webhooks'), 'list webhooks').data)
      if (old.description === INTEGRATIONS_DESCRIPTION)
        check(await api.DELETE('/v1/webhooks/{webhookId}', { params: { path: { webhookId: old.id } } }), 'delete');
    const { secret } = check(
      await api.POST('/v1/webhooks', {
        body: {
          url: receiverUrl,
          description: INTEGRATIONS_DESCRIPTION,
          event_types: ['link.clicked', 'workflow_run.ended'],
        },
      }),
      'register the endpoint',
    );
    receiver.setSecrets([secret]);

    // 4. The automation: create, validate, publish (an earlier run's automation goes first).
    await deleteWorkflowsDescribed(api, instagram.id, INTEGRATIONS_DESCRIPTION);
    const draft = check(
      await api.POST('/v1/workflows', {
        body: {
          title: 'Cupom de frete com CRM',
          description: INTEGRATIONS_DESCRIPTION,
          channel: { type: 'instagram', connection_id: instagram.id },
          trigger: { events: ['message'], match: 'contains', keywords: [keyword] },
          graph: {
            nodes: integrationsGraph({
              crmUrl: crm.url,
              tierField,
              spreadsheetAccountId: sheetsAccount.id,
              spreadsheetId: spreadsheetBefore.id,
              tag: tagSlug,
            }),
          },
        },
      }),
      'create automation',
    );
    const workflow = await publishValidated(api, draft.id);
    const workflowId = workflow.id;
    log(`4. published ${workflowId} on ${instagram.id}, keyword "${keyword}"`);

    // 5. A new instagram user writes the keyword, and is tagged VIP meanwhile (the sheet's `contact.tag`).
    const instagramId = String(randomInt(1_000_000_000, 10_000_000_000));
    const username = `cliente_${instagramId}`;
    const inbound = (text: string) =>
      admin.POST('/admin/v1/sandbox/connections/{connectionId}/inbound', {
        params: { path: { connectionId: instagram.id } },
        body: { from: { instagram_id: instagramId, username, name: 'Rita Campos' }, text },
      });
    const first = check(await inbound(`Quero o ${keyword} de frete!`), 'contact writes');
    const contactId = first.contact.id;
    const tag = await api.POST('/v1/tags', { body: { name: vipTag } });
    const tagId = tag.data?.id ?? (tag.error as { context?: { tag_id?: string } } | undefined)?.context?.tag_id;
    if (!tagId) throw new Error('the tag could not be created or found');
    check(
      await api.PUT('/v1/contacts/{contactId}/tags/{tagId}', { params: { path: { contactId, tagId } } }),
      'tag the contact',
    );
    const readRun = async (runId: string) =>
      check(
        await api.GET('/v1/workflows/{workflowId}/runs/{runId}', { params: { path: { workflowId, runId } } }),
        'read run',
      );
    const started = await waitFor('the run to start', async () => {
      const page = check(
        await api.GET('/v1/workflows/{workflowId}/runs', {
          params: { path: { workflowId }, query: { contact_id: contactId } },
        }),
        'list runs',
      );
      return page.data[0];
    });
    log(`5. @${username} wrote "${keyword}": run ${started.id} asks the city`);

    // 6. The answer goes to the CRM; the run then appends the row and sends the coupon's link button.
    await waitFor('the question', async () =>
      (await readRun(started.id)).steps.some((s) => s.node_id === 'cidade' && s.status === 'waiting')
        ? true
        : undefined,
    );
    check(await inbound('Campinas'), 'contact answers');
    const atOffer = await waitFor('the coupon', async () => {
      const run = await readRun(started.id);
      if (run.ended_at) throw new Error(`the run ended ${run.status}: ${JSON.stringify(run.steps.at(-1))}`);
      return run.steps.some((s) => s.node_id === 'cupom' && s.message_id) ? run : undefined;
    });
    log(`6. the CRM got ${crm.requests.length} request(s); the run sent the coupon`);

    const spreadsheetAfter = check(
      await admin.GET('/admin/v1/sandbox/spreadsheets/{spreadsheetId}', {
        params: { path: { spreadsheetId: spreadsheetBefore.id } },
      }),
      'read the spreadsheet',
    );
    log(`   the spreadsheet's Leads tab: ${JSON.stringify(spreadsheetAfter.tabs[0]?.rows.at(-1))}`);

    // 7. The contact opens the coupon's link: a 302 to the offer, link.clicked, and the run follows the output.
    const messageId = atOffer.steps.find((s) => s.node_id === 'cupom')?.message_id;
    if (!messageId) throw new Error('the coupon step sent no message');
    const message = check(
      await api.GET('/v1/messages/{messageId}', { params: { path: { messageId } } }),
      'read the coupon',
    );
    const address = message.attachments
      .flatMap((a) => (a.type === 'cards' ? a.cards.flatMap((c) => c.buttons ?? []) : []))
      .find((b) => b.type === 'open_url')?.url;
    if (!address) throw new Error('the coupon carries no link button');
    const opened = check(await admin.POST('/admin/v1/sandbox/links/open', { body: { url: address } }), 'open the link');
    log(`7. opened ${address} → ${opened.status} ${opened.location ?? ''}`);
    const clicked = await waitFor('link.clicked', () =>
      receiver.requests.find((r) => r.type === 'link.clicked' && r.outcome === 'accepted'),
    );
    const completed = await waitFor('the run to complete', async () => {
      const run = await readRun(started.id);
      if (run.status === 'completed') return run;
      if (run.ended_at) throw new Error(`the run ended ${run.status}`);
      return undefined;
    });
    log(`8. run ${completed.id} ${completed.status}: ${completed.steps.map((s) => s.node_id).join(' → ')}`);
    const contact = check(
      await api.GET('/v1/contacts/{contactId}', { params: { path: { contactId } } }),
      'read contact',
    );
    return {
      workflow,
      contactId,
      crm: { url: crm.url, requests: crm.requests },
      secretValue,
      tierField,
      spreadsheetBefore,
      spreadsheetAfter,
      link: { address, location: opened.location ?? null, status: opened.status },
      clicked,
      completed,
      contact,
    };
  } finally {
    await crm.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runWithReceiver(async (api, admin, receiver) => {
    const x = await automationIntegrations(api, admin, receiver.url, receiver, {
      log: (line) => console.log(line),
      timeoutMs: 30_000,
    });
    const tier = x.contact.custom_fields.find((f) => f.name === x.tierField);
    console.log(`   ${x.tierField}: ${JSON.stringify(tier?.value ?? null)}`);
  });
}
