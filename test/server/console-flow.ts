// The whole demo exchange played through the console page alone, shared by its browser test
// (console-flow.test.ts, which asserts what it saw) and `npm run screenshots` (which captures it): choose the
// whatsapp number, create a contact, start the built-in receiver, create the demo automation, write its keyword,
// answer the question, tap "Quero", see the run asleep at `lembrete` (Runs and Time panes), move the clock an
// hour (Time pane), see the reminder and the run completed with its path marked, and `workflow_run.ended`
// arrive verified at the receiver. No vitest here: each step waits with Playwright and throws when it times out.
import type { Locator, Page } from 'playwright-core';

export const WHATSAPP = 'Loja (whatsapp)';
/** The demo automation (console/demo.ts). */
export const DEMO_KEYWORD = 'frete';
export const DEMO_TITLE = 'Demo: frete grátis';
export const REMINDER = (city: string) => `Começou! Frete grátis para ${city} até domingo.`;

/** The moments a screenshot can be taken at. */
export type Moment = 'clock' | 'chat' | 'runs' | 'webhooks';

export interface FlowOptions {
  phone: string;
  name: string;
  city: string;
  /** Called at each moment, the page showing it. */
  capture?: (moment: Moment, page: Page) => Promise<void>;
}

/** What the page showed, for the test to assert. */
export interface FlowSeen {
  /** The bubbles of the conversation at the end, in order (texts and the text above buttons). */
  conversation: string[];
  /** The run's entry in the Runs pane while it slept, and then once completed. */
  runAsleep: string;
  runCompleted: string;
  /** The sleep's entry in the Time pane ("Run wakes from a sleep" with when). */
  clockWait: string;
  /** How many waits on the clock were left once it moved an hour. */
  waitsAfter: number;
  /** Each block's accessible name in the graph once completed (block id → label). */
  blocks: Record<string, string>;
  /** The edges drawn as taken (data-edge). */
  takenEdges: string[];
  /** The path said in words under the graph. */
  path: string;
  /** The receiver's badge on `workflow_run.ended`, and the status of the receiver. */
  endedBadge: string;
  receiver: string;
  /** Alerts (API refusals) shown anywhere on the page at the end. */
  alerts: string[];
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Polls `read` until `ok` holds (20 s), and returns what it read last. */
async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after 20 s`);
    await sleep(100);
  }
}

export const region = (page: Page, name: string | RegExp): Locator => page.getByRole('region', { name });

/** Opens "Where to play" again when it folded into a bar (it does once a contact is chosen). */
export async function openWhereToPlay(page: Page): Promise<void> {
  const details = page.locator('.setup details');
  if (!(await details.evaluate((d) => d.hasAttribute('open')))) await details.locator('summary').click();
}

export async function playDemoFlow(page: Page, options: FlowOptions): Promise<FlowSeen> {
  const { phone, name, city } = options;
  const capture = options.capture ?? (async () => {});

  // Where to play: the whatsapp number and a new contact by phone and name.
  await page.getByLabel('Connection').selectOption({ label: WHATSAPP });
  await page.getByRole('textbox', { name: 'Phone' }).fill(phone);
  await page.getByRole('textbox', { name: 'Name' }).fill(name);
  await page.getByRole('button', { name: 'Create contact' }).click();
  await page.getByText(`as ${name} · whatsapp`).waitFor();

  // The built-in receiver, one click: an endpoint of the console for every event type.
  const hooks = region(page, 'Webhooks');
  await hooks.getByRole('button', { name: 'Start the built-in receiver' }).click();
  const receiver = hooks.getByRole('status', { name: 'Receiver' });
  await until(
    'the receiver',
    () => receiver.innerText(),
    (text) => text.includes('Listening'),
  );

  // The demo automation, from the page; its keyword starts it.
  await page.getByRole('button', { name: 'Create the demo automation' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `write “${DEMO_KEYWORD}” to start it` })
    .waitFor();
  const conversation = page.getByRole('list', { name: 'Conversation' });
  const message = page.getByRole('textbox', { name: 'Message', exact: true });
  await message.fill(DEMO_KEYWORD);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await conversation.getByText('Para qual cidade é a entrega?').waitFor();

  // The answer, then a tap on "Quero": the contact is tagged and the run sleeps an hour.
  await message.fill(city);
  await message.press('Enter');
  const yes = conversation.getByRole('button', { name: 'Quero' });
  await until(
    'the "Quero" button',
    () => yes.isEnabled(),
    (enabled) => enabled,
  );
  await yes.click();
  await conversation.getByText(`Combinado! Aviso quando o frete grátis para ${city} começar.`).waitFor();

  const runs = region(page, `Runs of ${name}`);
  const runList = runs.getByRole('list', { name: 'Runs' });
  await runList.getByText('lembrete (sleep)').waitFor();
  const asleep = runList.getByRole('button', { name: new RegExp(`^${DEMO_TITLE}: running`) });
  const runAsleep = (await asleep.first().getAttribute('aria-label')) ?? '';
  const graph = runs.getByRole('group', { name: /Automation graph/ });
  const block = (id: string) => graph.getByRole('img', { name: new RegExp(`^Block ${id}, `) });
  await until(
    'the sleep as the current block',
    async () => (await block('lembrete').getAttribute('aria-label')) ?? '',
    (label) => label.includes('current block'),
  );

  // The Time pane lists the sleep with when it falls due.
  const clock = region(page, 'Time and failures');
  const waits = clock.getByRole('list', { name: 'Waiting on the clock' }).getByRole('listitem');
  const sleeping = waits.filter({ hasText: 'Run wakes from a sleep' });
  await sleeping.first().waitFor();
  const clockWait = await sleeping.first().innerText();
  await capture('clock', page);

  // An hour on, from the pane: the reminder goes out and the run completes, live.
  await clock.getByRole('button', { name: '+1 hour' }).click();
  await conversation.getByText(REMINDER(city)).waitFor();
  const completed = runList.getByRole('button', { name: new RegExp(`^${DEMO_TITLE}: completed`) });
  await completed.first().waitFor();
  await until(
    'the reminder on the path',
    async () => (await block('aviso').getAttribute('aria-label')) ?? '',
    (label) => label.includes("on the run's path"),
  );
  const waitsAfter = await until(
    'the sleep gone from the waits',
    () => sleeping.count(),
    (n) => n === 0,
  );
  await capture('chat', page);
  await capture('runs', page);

  // The run's end, at the receiver, verified with the endpoint's secret.
  const ended = hooks
    .getByRole('list', { name: 'Received requests' })
    .getByRole('listitem')
    .filter({ hasText: 'workflow_run.ended' })
    .first();
  await ended.waitFor();
  await capture('webhooks', page);

  const blocks: Record<string, string> = {};
  for (const img of await graph.getByRole('img').all()) {
    const label = (await img.getAttribute('aria-label')) ?? '';
    const id = /^Block (\S+),/.exec(label)?.[1];
    if (id) blocks[id] = label;
  }
  const takenEdges: string[] = [];
  for (const edge of await graph.locator('.edge.taken').all())
    takenEdges.push((await edge.getAttribute('data-edge')) ?? '');
  return {
    conversation: await conversation.locator('.bubble .text, .bubble .card-title').allInnerTexts(),
    runAsleep,
    runCompleted: (await completed.first().getAttribute('aria-label')) ?? '',
    clockWait,
    waitsAfter,
    blocks,
    takenEdges,
    path: await runs.getByText(/^Path: /).innerText(),
    endedBadge: await ended.locator('.badge').innerText(),
    receiver: await receiver.innerText(),
    alerts: await page.getByRole('alert').allInnerTexts(),
  };
}
