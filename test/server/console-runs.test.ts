// The console's Runs pane and the contact list's paging, in a real browser (Debian's Chromium through
// playwright-core, every request leaving the test server refused and recorded), on every engine of the run.
// Through the page alone: create the demo automation, write its keyword, and see the run in the Runs pane waiting
// at the question with its graph drawn, the path and the current block said in words; answer and tap, and see it
// waiting at the reminder's sleep, then (the clock an hour on) completed with the branch taken marked; draw it with dagre; start a run from the pane, and see a second start
// refused with `run_in_progress` beside the form. Then the contact list past its first page of 100 ("More
// contacts"); and in a 420 px window, a contact found by number whose 11 runs (made through the API) page with
// "More runs". The contacts and runs the page pages are made by the test directly (domain call, API).
//
// Skipped, saying so, only when /usr/bin/chromium is missing (`apt-get install -y chromium`; .ci/run does it).
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createOrUpdateWhatsappContact } from '../../server/domain/contacts/contacts.js';
import { CONSOLE } from '../../server/domain/contacts/history.js';
import { consoleBrowser, hasChromium, POLL, skippedWithoutChromium } from './console-browser.js';
import { call, engines } from './harness.js';

const DEMO_KEYWORD = 'frete';
const DEMO_TITLE = 'Demo: frete grátis';
const ADMIN_TOKEN = 'console-runs-admin-token-0123456789abcdef';
const WHATSAPP = 'Loja (whatsapp)';
skippedWithoutChromium('console runs test');

const newPhone = () => `+55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

describe.skipIf(!hasChromium).each(engines)('the console Runs pane on %s', (engine) => {
  const { server, demo: demoOf, outside, openConsole } = consoleBrowser(engine, ADMIN_TOKEN, 'console-runs');

  const whatsappConnection = async (accountId: string) =>
    (
      await server.t.database.db
        .selectFrom('connections')
        .select('id')
        .where('account_id', '=', accountId)
        .where('channel', '=', 'whatsapp')
        .executeTakeFirstOrThrow()
    ).id;

  /** A new whatsapp contact made through the setup pane, played at once. */
  async function newContact(page: Page, name: string): Promise<string> {
    await page.getByLabel('Connection').selectOption({ label: WHATSAPP });
    const phone = newPhone();
    await page.getByRole('textbox', { name: 'Phone' }).fill(phone);
    await page.getByRole('textbox', { name: 'Name' }).fill(name);
    await page.getByRole('button', { name: 'Create contact' }).click();
    await page.getByText(`as ${name} · whatsapp`).waitFor();
    return phone;
  }

  it('shows the run live with its graph and path, and starts a run from the pane (a refusal shows its code)', async () => {
    const page = await openConsole();
    await newContact(page, 'Bruno Lima');
    const runs = page.getByRole('region', { name: 'Runs of Bruno Lima' });
    await runs.getByText('No runs for this contact yet.').waitFor();

    await page.getByRole('button', { name: 'Create the demo automation' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `write “${DEMO_KEYWORD}” to start it` })
      .waitFor();

    // The keyword starts a run: it shows live, waiting at the question.
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.fill(DEMO_KEYWORD);
    await page.getByRole('button', { name: 'Send' }).click();
    const runList = runs.getByRole('list', { name: 'Runs' });
    const waiting = runList.getByRole('button', { name: new RegExp(`^${DEMO_TITLE}: waiting`) });
    await waiting.waitFor();
    await runList.getByText('cidade (question)').waitFor();
    await runList.getByText(/the contact answers, at most until/).waitFor();

    // The graph: every block drawn, the path so far and the block it waits at, said in words.
    const graph = runs.getByRole('group', { name: /Automation graph/ });
    await graph.waitFor();
    // The best fit for the pane's box by default; the automation's own positions on demand.
    await runs.getByLabel('Layout').selectOption({ label: 'The automation’s positions' });
    await expect.poll(() => graph.getAttribute('data-layout'), POLL).toBe('positions');
    const block = (id: string) => graph.getByRole('img', { name: new RegExp(`^Block ${id}, `) });
    expect(await graph.getByRole('img').count()).toBe(9);
    expect(await block('root').getAttribute('aria-label')).toContain("on the run's path, step 1");
    expect(await block('boas_vindas').getAttribute('aria-label')).toContain("on the run's path");
    expect(await block('cidade').getAttribute('aria-label')).toContain('current block (waiting)');
    expect(await block('cidade').innerHTML()).toContain('▶ here');
    expect(await block('oferta').getAttribute('aria-label')).toContain('not reached');
    await runs.getByText(/Path: root → boas_vindas → cidade · now at cidade \(waiting\)/).waitFor();

    // Answer and tap "Quero": the run completes live; the branch taken is marked, the other is not.
    await message.fill('Recife');
    await message.press('Enter');
    const conversation = page.getByRole('list', { name: 'Conversation' });
    const yes = conversation.getByRole('button', { name: 'Quero' });
    await expect.poll(() => yes.isEnabled(), POLL).toBe(true);
    await yes.click();
    // "Quero" tags the contact and sleeps an hour: the run waits at the sleep, until when said.
    await runList.getByText('lembrete (sleep)').waitFor();
    await runList.getByText(/\(a 1 h sleep\)/).waitFor();
    await expect.poll(() => block('lembrete').getAttribute('aria-label'), POLL).toContain('current block');
    // An hour later on the sandbox clock (moved through the admin API here; the Time pane has its own test), the
    // reminder goes out and the run completes live; the branch taken is marked, the other is not.
    const moved = await call(server.t.baseUrl, ADMIN_TOKEN, 'PATCH', '/admin/v1/sandbox/clock', {
      body: { advance_seconds: 3600 },
    });
    expect(moved.status).toBe(200);
    await conversation.getByText('Começou! Frete grátis para Recife até domingo.').waitFor();
    await runList.getByRole('button', { name: new RegExp(`^${DEMO_TITLE}: completed`) }).waitFor();
    await expect.poll(() => block('aviso').getAttribute('aria-label'), POLL).toContain("on the run's path");
    expect(await block('combinado').getAttribute('aria-label')).toContain("on the run's path");
    expect(await block('marcar').getAttribute('aria-label')).toContain("on the run's path");
    expect(await block('tchau').getAttribute('aria-label')).toContain('not reached');
    expect(await block('cidade').getAttribute('aria-label')).not.toContain('current block');
    expect(await graph.locator('.edge.taken[data-edge="oferta:0->marcar"]').count()).toBe(1);
    expect(await graph.locator('.edge.taken[data-edge="oferta:1->tchau"]').count()).toBe(0);
    expect(await graph.locator('.edge[data-edge="oferta:1->tchau"]').count()).toBe(1);

    // The steps, expanded.
    await runList
      .getByText(/^Steps/)
      .first()
      .click();
    const steps = runList.getByRole('list', { name: 'Steps' }).first();
    await steps.getByText('aviso').waitFor();
    expect(await steps.getByRole('listitem').count()).toBe(8);

    // Drawn by dagre on demand: the same boxes, edges routed by the layout.
    await runs.getByLabel('Layout').selectOption({ label: 'Left to right (dagre)' });
    await expect.poll(() => graph.getAttribute('data-layout'), POLL).toBe('dagre');
    expect(await graph.getByRole('img').count()).toBe(9);
    expect(await block('marcar').getAttribute('aria-label')).toContain("on the run's path");

    // Start a run from the pane: it appears, greets again and waits at the question.
    const start = runs.getByRole('form', { name: 'Start a run' });
    expect(await start.getByLabel('Automation').inputValue()).not.toBe('');
    await start.getByRole('button', { name: 'Start run' }).click();
    await start.getByRole('status').filter({ hasText: 'queued' }).waitFor();
    await expect
      .poll(() => runList.getByRole('button', { name: new RegExp(`^${DEMO_TITLE}: `) }).count(), POLL)
      .toBe(2);
    await runList.getByRole('button', { name: new RegExp(`^${DEMO_TITLE}: waiting`) }).waitFor();
    expect(await start.getByRole('alert').count()).toBe(0);

    // Another start while that run waits: the API refuses it, and the form says why with its code.
    await start.getByRole('button', { name: 'Start run' }).click();
    const alert = start.getByRole('alert');
    await alert.waitFor();
    expect(await alert.locator('code').innerText()).toBe('run_in_progress');

    expect(outside).toEqual([]);
    await page.context().close();
  });

  it('pages the contacts past the first 100 with the API cursor ("More contacts")', async () => {
    const { accountId } = demoOf();
    const connectionId = await whatsappConnection(accountId);
    for (let i = 0; i < 105; i++) {
      const phone = `+5521988${String(i).padStart(6, '0')}`;
      await createOrUpdateWhatsappContact(
        server.t.database.db,
        server.t.clock,
        accountId,
        { phone, name: `Paging ${String(i).padStart(3, '0')}`, connection_id: connectionId, consent: true },
        CONSOLE,
      );
    }

    const page = await openConsole();
    await page.getByLabel('Connection').selectOption({ label: WHATSAPP });
    const options = page.getByLabel('Contact', { exact: true }).locator('option');
    await expect.poll(() => options.count(), POLL).toBeGreaterThan(50);
    const before = await options.count();
    expect(before).toBeLessThanOrEqual(101); // "Choose a contact" and one page
    const more = page.getByRole('button', { name: 'More contacts' });
    while (await more.isVisible()) {
      const count = await options.count();
      await more.click();
      await expect.poll(() => options.count(), POLL).toBeGreaterThan(count);
    }
    expect(await options.count()).toBeGreaterThan(before);
    expect(await options.filter({ hasText: 'Paging 104' }).count()).toBe(1);
    expect(outside).toEqual([]);
    await page.context().close();
  });

  it('pages the runs with the API cursors ("More runs"), in a 420 px window, for a contact found by number', async () => {
    const { accountId, apiKey } = demoOf();
    const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const answer = await call(server.t.baseUrl, apiKey, method, path, { body, headers });
      return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
    };
    const connectionId = await whatsappConnection(accountId);
    const phone = newPhone();
    const { contact } = await createOrUpdateWhatsappContact(
      server.t.database.db,
      server.t.clock,
      accountId,
      { phone, name: 'Paula Runs', connection_id: connectionId, consent: true },
      CONSOLE,
    );
    // An automation that sends nothing (no 24-hour window needed) and ends at once: a tag.
    await api('POST', '/v1/tags', { name: 'console-runs-paging' });
    const created = await api('POST', '/v1/workflows', {
      title: 'Tag only',
      channel: { type: 'whatsapp', connection_id: connectionId },
      trigger: { events: ['message'], match: 'equals', keywords: ['console-runs-never'] },
      graph: {
        nodes: {
          root: { type: 'root', data: { next: ['tag'] } },
          tag: { type: 'tags', data: { operation: 'add', tags: ['console-runs-paging'], next: [null] } },
        },
      },
    });
    expect(created.status).toBe(201);
    const workflowId = String(created.json.id);
    const checked = await api('POST', `/v1/workflows/${workflowId}/validate`);
    expect(checked.json.valid).toBe(true);
    const published = await api('POST', `/v1/workflows/${workflowId}/publish`, undefined, {
      'If-Match': `"${String(checked.json.revision)}"`,
    });
    expect(published.status).toBe(200);
    // One more run than a page (10): each started once the one before ended (a run in progress refuses another).
    for (let i = 0; i < 11; i++) {
      const started = await api(
        'POST',
        `/v1/workflows/${workflowId}/runs`,
        { contact_id: contact.id },
        {
          'Idempotency-Key': crypto.randomUUID(),
        },
      );
      expect(started.status).toBe(202);
      await expect
        .poll(async () => {
          const run = await api('GET', `/v1/workflows/${workflowId}/runs/${String(started.json.id)}`);
          return run.json.status;
        }, POLL)
        .toBe('completed');
    }

    const narrow = await openConsole({ width: 420, height: 860 });
    await narrow.getByLabel('Connection').selectOption({ label: WHATSAPP });
    await narrow.getByRole('textbox', { name: 'Find by number' }).fill(phone);
    await narrow.getByRole('button', { name: 'Find contact' }).click();
    await narrow.getByText('as Paula Runs · whatsapp').waitFor();
    // One pane at a time on a narrow screen: the Runs tab.
    await narrow.getByRole('tab', { name: 'Runs' }).click();
    const runs = narrow.getByRole('region', { name: 'Runs of Paula Runs' });
    const items = runs.getByRole('list', { name: 'Runs' }).getByRole('button', { name: /^Tag only: completed/ });
    await expect.poll(() => items.count(), POLL).toBe(10);
    await runs.getByRole('button', { name: 'More runs' }).click();
    await expect.poll(() => items.count(), POLL).toBe(11);
    expect(await runs.getByRole('button', { name: 'More runs' }).count()).toBe(0);
    // The newest run's graph, its path said in words; the page does not overflow sideways (the drawing pans).
    const graph = runs.getByRole('group', { name: /Automation graph/ });
    expect(await graph.getByRole('img', { name: /^Block tag, tags/ }).getAttribute('aria-label')).toContain(
      "on the run's path, step 2",
    );
    expect(await narrow.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(420);
    expect(outside).toEqual([]);
    await narrow.context().close();
  });
});
