// An automation that runs, from end to end with the sandbox: register a receiver for `workflow_run.ended`,
// publish a keyword automation on the demo whatsapp number (a question whose answer goes to the custom field
// `cidade`, buttons, a tags block, a conditional and a sleep), then, as a contact, write the keyword, answer the
// question and tap a button; move the sandbox clock past the sleep; follow the run until it is `completed`, and
// wait for its `workflow_run.ended`, signed.
//
//   npm start                                                  # in one terminal: prints the key and the admin token's file
//   API_KEY=epk_… ADMIN_TOKEN=$(cat data/admin-token) npm run automation-exchange
//   (BASE_URL=http://… for a server elsewhere; default http://127.0.0.1:3000)
//
// It starts its own receiver (examples/webhook-receiver.ts) on 127.0.0.1 (RECEIVER_PORT, default a free one).
// The server must allow local receivers (WEBHOOK_DEV_TARGETS: on by default with `npm start`) and have the
// sandbox on; its in-process worker runs the automation. Each run unpublishes and deletes the automation and the
// endpoint an earlier run left (they carry this file's name as description), and writes from a new number.
//
// test/server/automation-exchange.test.ts runs `automationExchange` against a test server on both engines.
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { errorCode, type ApiClient, type Block, type GraphNodes, type components } from '../client/index.js';
import { check, deleteWorkflowsDescribed, publishValidated } from './check.js';
import { runWithReceiver } from './cli.js';
import type { AdminClient } from './sandbox-exchange.js';
import type { ReceivedRequest, ReceiverControls } from './webhook-receiver.js';

type Run = components['schemas']['WorkflowRun'];
type RunSummary = components['schemas']['WorkflowRunSummary'];
type Workflow = components['schemas']['Workflow'];
type Endpoint = components['schemas']['WebhookEndpoint'];
type Message = components['schemas']['Message'];

/** The automation and the endpoint this example creates carry this description (earlier runs' are removed). */
export const EXCHANGE_DESCRIPTION = 'examples/automation-exchange.ts';
/** The tag the automation puts on the contact who taps "Quero". */
export const EXCHANGE_TAG = 'Lembrete de frete';
/** The demo account's text field that receives the answer (key of the field labelled "Cidade"). */
export const ANSWER_FIELD = 'cidade';
/** How long the automation sleeps before the reminder: one hour. */
export const SLEEP_SECONDS = 3600;

/**
 * The graph: greet, ask the city (saved to `cidade`), offer a reminder with two buttons. "Quero" tags the contact,
 * then a conditional checks the tag and the saved city: true sleeps an hour and sends the reminder, false (never
 * here) and "Agora não" say goodbye.
 */
export function exchangeGraph(): GraphNodes {
  const ask: Block<'question'> = {
    type: 'question',
    data: { text: 'Para qual cidade é a entrega?', answer_type: 'any', answer_field: ANSWER_FIELD, next: ['oferta'] },
  };
  const offer: Block<'buttons'> = {
    type: 'buttons',
    data: {
      subtitle: 'Anotei {cidade}. Quer um lembrete quando o frete grátis começar?',
      buttons: [
        { id: 'quero', title: 'Quero' },
        { id: 'agora_nao', title: 'Agora não' },
      ],
      // One entry per button slot (3), then the one that follows right after the send (none here).
      next: ['marcar', 'tchau', null, null],
    },
  };
  const tag: Block<'tags'> = { type: 'tags', data: { operation: 'add', tags: [EXCHANGE_TAG], next: ['conferir'] } };
  const branch: Block<'conditional'> = {
    type: 'conditional',
    data: {
      combinator: 'and',
      conditions: [
        { field_type: 'tag', field_name: EXCHANGE_TAG, operator: 'has_tag' },
        { field_type: 'custom_field', field_name: ANSWER_FIELD, operator: 'has_field' },
      ],
      next: ['esperar', 'tchau'], // true, false
    },
  };
  const wait: Block<'sleep'> = { type: 'sleep', data: { seconds: SLEEP_SECONDS, next: ['lembrete'] } };
  return {
    root: { type: 'root', data: { next: ['boas_vindas'] } },
    boas_vindas: { type: 'message', data: { text: 'Oi, {contact.first_name}! Vamos ver o frete.', next: ['cidade'] } },
    cidade: ask,
    oferta: offer,
    marcar: tag,
    conferir: branch,
    esperar: wait,
    lembrete: {
      type: 'message',
      data: { text: 'Lembrete: o frete grátis para {cidade} já começou!', next: [null] },
    },
    tchau: { type: 'message', data: { text: 'Tudo bem! Até a próxima.', next: [null] } },
  };
}

export interface ExchangeOptions {
  /** The keyword that starts the automation; default `frete`. */
  keyword?: string;
  /** The contact's number; default a new Brazilian mobile number. */
  phone?: string;
  /**
   * Called before each look at the run or the receiver while waiting: a test may run its job worker here.
   * Against a server (whose worker polls about every second) leave it out.
   */
  settle?: () => Promise<void>;
  /** How long one wait may take before the example gives up; default 20 s. */
  timeoutMs?: number;
  /** Progress lines; default none. */
  log?: (line: string) => void;
}

export interface AutomationExchange {
  endpoint: Endpoint;
  secret: string;
  workflow: Workflow;
  contactId: string;
  /** The run as read at each stage: after the keyword, the answer, the tap, and at the end. */
  runs: { afterKeyword: Run; afterAnswer: Run; afterTap: Run; completed: Run };
  /** The run list of the automation for the contact, at the end. */
  listed: RunSummary[];
  /** The sandbox clock after the move past the sleep, and how far it moved. */
  clock: { now: string; advancedSeconds: number };
  /** The receiver's request carrying `workflow_run.ended` for the run, accepted with a valid signature. */
  ended: ReceivedRequest;
  /** What the automation sent, in the order of the run's steps. */
  sent: Message[];
  /** The contact's `cidade` and tags at the end. */
  contact: components['schemas']['Contact'];
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
const newPhone = () => `+55119${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;

export async function automationExchange(
  api: ApiClient,
  admin: AdminClient,
  receiverUrl: string,
  receiver: ReceiverControls,
  options: ExchangeOptions = {},
): Promise<AutomationExchange> {
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 20_000;
  const keyword = options.keyword ?? 'frete';
  const phone = options.phone ?? newPhone();

  /** Polls `probe` (after `settle`) until it gives a value; reads count against the key's rate limit. */
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

  // 0. What the automation names must exist: the whatsapp number, the custom field, the tag.
  const connections = check(await api.GET('/v1/connections'), 'list connections');
  const whatsapp = connections.data.find((c) => c.channel === 'whatsapp' && c.status === 'connected');
  if (!whatsapp) throw new Error('the account has no connected whatsapp number');
  const fields = check(await api.GET('/v1/custom-fields', { params: { query: { limit: 100 } } }), 'custom fields');
  if (!fields.data.some((f) => f.name === ANSWER_FIELD))
    throw new Error(`the account has no custom field ${ANSWER_FIELD} (the demo account has it)`);
  const tag = await api.POST('/v1/tags', { body: { name: EXCHANGE_TAG } });
  if (tag.error && errorCode(tag.error) !== 'tag_already_exists') check(tag, 'create tag');

  // 1. Register the receiver for workflow_run.ended (scope workflows:read). The secret is shown here only.
  for (const old of check(await api.GET('/v1/webhooks'), 'list webhooks').data)
    if (old.description === EXCHANGE_DESCRIPTION)
      check(await api.DELETE('/v1/webhooks/{webhookId}', { params: { path: { webhookId: old.id } } }), 'delete');
  const { secret, ...endpoint } = check(
    await api.POST('/v1/webhooks', {
      body: { url: receiverUrl, description: EXCHANGE_DESCRIPTION, event_types: ['workflow_run.ended'] },
    }),
    'register the endpoint',
  );
  receiver.setSecrets([secret]);
  log(`1. registered ${endpoint.id} → ${endpoint.url} for workflow_run.ended`);

  // 2. Create and publish the keyword automation. An earlier run's automation answers the same keyword, so it
  //    goes first (deleting it stops its runs in progress).
  await deleteWorkflowsDescribed(api, whatsapp.id, EXCHANGE_DESCRIPTION);
  const draft = check(
    await api.POST('/v1/workflows', {
      body: {
        title: 'Lembrete de frete grátis',
        description: EXCHANGE_DESCRIPTION,
        channel: { type: 'whatsapp', connection_id: whatsapp.id },
        trigger: { events: ['message'], match: 'contains', keywords: [keyword] },
        graph: { nodes: exchangeGraph() },
      },
    }),
    'create automation',
  );
  const workflow = await publishValidated(api, draft.id);
  const workflowId = workflow.id;
  log(`2. published ${workflowId} on ${whatsapp.id}, keyword "${keyword}"`);

  const readRun = async (runId: string) =>
    check(
      await api.GET('/v1/workflows/{workflowId}/runs/{runId}', { params: { path: { workflowId, runId } } }),
      'read run',
    );
  /** The run once the step of `nodeId` has the status wanted (the worker may not have got there yet). */
  const runAt = (runId: string, nodeId: string, status: string, what: string) =>
    waitFor(what, async () => {
      const run = await readRun(runId);
      return run.steps.some((s) => s.node_id === nodeId && s.status === status) ? run : undefined;
    });
  const inbound = (text: string) =>
    admin.POST('/admin/v1/sandbox/connections/{connectionId}/inbound', {
      params: { path: { connectionId: whatsapp.id } },
      body: { from: { phone, name: 'Rita Campos' }, text },
    });

  // 3. The contact writes the keyword: a run starts (it appears in the list some moments later) and waits for
  //    the answer to the question.
  const first = check(await inbound(`Oi! Como funciona o frete para o interior?`), 'contact writes');
  const contactId = first.contact.id;
  const started = await waitFor('the run to start', async () => {
    const page = check(
      await api.GET('/v1/workflows/{workflowId}/runs', {
        params: { path: { workflowId }, query: { contact_id: contactId } },
      }),
      'list runs',
    );
    return page.data[0];
  });
  const afterKeyword = await runAt(started.id, 'cidade', 'waiting', 'the question');
  log(`3. the keyword started run ${started.id} (${afterKeyword.source}); it waits for the answer`);

  // 4. The contact answers: the answer goes to `cidade`, the buttons go out and the run waits for a tap.
  check(await inbound('Campinas'), 'contact answers');
  const afterAnswer = await runAt(started.id, 'oferta', 'waiting', 'the buttons');
  const buttonsMessageId = afterAnswer.steps.find((s) => s.node_id === 'oferta')?.message_id;
  if (!buttonsMessageId) throw new Error('the buttons step sent no message');
  log(`4. answered "Campinas"; buttons ${buttonsMessageId} wait for a tap`);

  // 5. The contact taps "Quero": the tag goes on, the conditional is true, the sleep begins.
  check(
    await admin.POST('/admin/v1/sandbox/messages/{messageId}/button-taps', {
      params: { path: { messageId: buttonsMessageId } },
      body: { button_id: 'quero' },
    }),
    'contact taps a button',
  );
  const afterTap = await waitFor('the sleep', async () => {
    const run = await readRun(started.id);
    return run.steps.some((s) => s.node_id === 'esperar') ? run : undefined;
  });
  log(`5. tapped "Quero"; the run sleeps ${SLEEP_SECONDS} s (status ${afterTap.status})`);

  // 6. Move the sandbox clock past the sleep: the worker finds the wait's end due. The receiver checks signature
  //    times against the service's clock, now ahead of this machine's.
  const advancedSeconds = SLEEP_SECONDS + 1;
  const clock = check(
    await admin.PATCH('/admin/v1/sandbox/clock', { body: { advance_seconds: advancedSeconds } }),
    'advance the sandbox clock',
  );
  receiver.setClockOffset(Date.parse(clock.now) - Date.now());
  log(`6. the sandbox clock moved ${advancedSeconds} s to ${clock.now}`);

  // 7. The run completes: read it until it says so, and find it in the list.
  const completed = await waitFor('the run to complete', async () => {
    const run = await readRun(started.id);
    if (run.status === 'completed') return run;
    if (run.ended_at) throw new Error(`the run ended ${run.status}`);
    return undefined;
  });
  const listed = check(
    await api.GET('/v1/workflows/{workflowId}/runs', {
      params: { path: { workflowId }, query: { contact_id: contactId } },
    }),
    'list runs',
  ).data;
  log(`7. run ${completed.id} ${completed.status}: ${completed.steps.map((s) => s.node_id).join(' → ')}`);

  // 8. Its workflow_run.ended reached the receiver, with a signature the receiver verified.
  const ended = await waitFor('workflow_run.ended', () =>
    receiver.requests.find(
      (r) =>
        r.type === 'workflow_run.ended' &&
        r.outcome === 'accepted' &&
        (JSON.parse(r.body) as { data: { id: string } }).data.id === completed.id,
    ),
  );
  log(`8. workflow_run.ended ${ended.eventId} arrived, attempt ${ended.attempt}, signature verified`);

  // What the automation sent, in the run's order: each step that sent a message names it.
  const sent: Message[] = [];
  for (const step of completed.steps)
    if (step.message_id)
      sent.push(
        check(
          await api.GET('/v1/messages/{messageId}', { params: { path: { messageId: step.message_id } } }),
          'read message',
        ),
      );
  const contact = check(await api.GET('/v1/contacts/{contactId}', { params: { path: { contactId } } }), 'read contact');
  return {
    endpoint,
    secret,
    workflow,
    contactId,
    runs: { afterKeyword, afterAnswer, afterTap, completed },
    listed,
    clock: { now: clock.now, advancedSeconds },
    ended,
    sent,
    contact,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runWithReceiver(async (api, admin, receiver) => {
    const x = await automationExchange(api, admin, receiver.url, receiver, {
      log: (line) => console.log(line),
      timeoutMs: 30_000,
    });
    // Text with buttons reads back as one card titled with the text.
    const title = (m: Message) => (m.attachments[0] as { cards?: { title: string }[] } | undefined)?.cards?.[0]?.title;
    for (const m of x.sent) console.log(`   sent: ${m.text ?? title(m) ?? `[${m.type}]`}`);
  });
}
