// The console's Webhooks and Time panes in a real browser (Debian's Chromium through playwright-core, every request
// that leaves the test server refused), on every engine of the run, through the page: start the built-in
// receiver, create a contact, see `contact.created` arrive verified with its headers and its delivery succeed
// (pushed by the account's stream), send a test event; then a run asleep for an hour is listed as waiting on the
// clock, and "+1 hour" in the pane makes it go.
//
// Skipped, saying so, only when /usr/bin/chromium is missing (`apt-get install -y chromium`; .ci/run does it).
import { describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { publishValidated } from '../../examples/check.js';
import { consoleBrowser, hasChromium, POLL, skippedWithoutChromium } from './console-browser.js';
import { engines } from './harness.js';

const ADMIN_TOKEN = 'console-webhooks-admin-token-0123456789abcdef';
skippedWithoutChromium('console webhooks test');

const SLEEP_KEYWORD = 'lembrete';

describe.skipIf(!hasChromium).each(engines)('the console webhooks and clock panes on %s', (engine) => {
  const { server, demo: demoOf, outside, openConsole } = consoleBrowser(engine, ADMIN_TOKEN, 'console-webhooks');
  const newPhone = () => `+55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

  it('receives verified events in the built-in receiver, shows deliveries live, and moves the clock past a sleep', async () => {
    const page = await openConsole();
    const hooks = page.getByRole('region', { name: 'Webhooks' });

    // One click: an endpoint of the console itself, for every event type, and its receiver listening.
    await hooks.getByRole('button', { name: 'Start the built-in receiver' }).click();
    await expect.poll(() => hooks.getByRole('status', { name: 'Receiver' }).innerText(), POLL).toContain('Listening');
    expect(await hooks.getByRole('alert').allInnerTexts()).toEqual([]);

    // An event: a new contact, made through the page.
    await page.getByLabel('Connection').selectOption({ label: 'Loja (whatsapp)' });
    await page.getByRole('textbox', { name: 'Phone' }).fill(newPhone());
    await page.getByRole('textbox', { name: 'Name' }).fill('Rita Lopes');
    await page.getByRole('button', { name: 'Create contact' }).click();

    // It arrives at the receiver, verified with the endpoint's secret, with its headers and payload.
    const received = hooks.getByRole('list', { name: 'Received requests' }).getByRole('listitem');
    const created = received.filter({ hasText: 'contact.created' }).first();
    await created.waitFor();
    expect(await created.locator('.badge').innerText()).toBe('verified');
    await created.getByText('Headers and payload').click();
    const headers = created.getByRole('definition');
    expect(await created.getByRole('term').allInnerTexts()).toEqual(
      expect.arrayContaining([
        'service-signature',
        'service-event-id',
        'service-event-type',
        'service-delivery-attempt',
      ]),
    );
    expect((await headers.allInnerTexts()).some((v) => /^t=\d+,v1=[0-9a-f]{64}$/.test(v))).toBe(true);
    expect(await created.locator('.payload').innerText()).toContain('"Rita Lopes"');

    // Its delivery, in the endpoint's list, turns succeeded without a reload (the stream pushes the change).
    const deliveries = hooks.getByRole('list', { name: 'Deliveries' });
    const delivery = deliveries.getByRole('listitem').filter({ hasText: 'contact.created' }).first();
    await expect.poll(() => delivery.locator('.status').innerText(), POLL).toBe('succeeded');
    expect(await delivery.innerText()).toContain('1 attempt');

    // A test event goes to the receiver too, verified.
    await hooks.getByRole('button', { name: 'Test the endpoint' }).click();
    await expect
      .poll(() => hooks.getByRole('status', { name: 'Test event' }).innerText(), POLL)
      .toContain('Test event delivered (HTTP 200');
    const test = received.filter({ hasText: 'webhook.test' }).first();
    await test.waitFor();
    expect(await test.locator('.badge').innerText()).toBe('verified');
    // The delivered one sent again (the API's resend, "Deliver again": it succeeded, so it is no retry): a second
    // attempt, succeeded again.
    expect(await delivery.getByRole('button', { name: 'Retry contact.created' }).count()).toBe(0);
    await delivery.getByRole('button', { name: 'Deliver again contact.created' }).click();
    await expect.poll(() => delivery.innerText(), POLL).toContain('2 attempts');
    await expect.poll(() => delivery.locator('.status').innerText(), POLL).toBe('succeeded');

    // The clock: an automation that sleeps an hour (made with the API), started by the contact's keyword
    // written in the page; its sleep waits on the clock until "+1 hour" in the pane.
    const api = createClient({ baseUrl: server.t.baseUrl, apiKey: demoOf().apiKey });
    const connections = await api.GET('/v1/connections');
    const whatsapp = connections.data?.data.find((c) => c.channel === 'whatsapp');
    expect(whatsapp).toBeDefined();
    const draft = await api.POST('/v1/workflows', {
      body: {
        title: 'Lembrete em uma hora',
        channel: { type: 'whatsapp', connection_id: whatsapp?.id ?? '' },
        trigger: { events: ['message'], match: 'contains', keywords: [SLEEP_KEYWORD] },
        graph: {
          nodes: {
            root: { type: 'root', data: { next: ['aviso'] } },
            aviso: { type: 'message', data: { text: 'Te lembro daqui a uma hora.', next: ['espera'] } },
            espera: { type: 'sleep', data: { seconds: 3600, next: ['lembrete'] } },
            lembrete: { type: 'message', data: { text: 'Lembrete: uma hora depois.', next: [null] } },
          },
        },
      },
    });
    expect(draft.error).toBeUndefined();
    await publishValidated(api, draft.data?.id ?? '');

    const clock = page.getByRole('region', { name: 'Time and failures' });
    const waiting = clock.getByRole('list', { name: 'Waiting on the clock' }).getByRole('listitem');
    const asleep = waiting.filter({ hasText: 'Run wakes from a sleep' });
    const message = page.getByRole('textbox', { name: 'Message', exact: true });
    await message.fill(SLEEP_KEYWORD);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const conversation = page.getByRole('list', { name: 'Conversation' });
    await conversation.getByText('Te lembro daqui a uma hora.').waitFor();
    await asleep.first().waitFor();
    expect(await asleep.first().locator('time').innerText()).toBe('in 60 min');

    await clock.getByRole('button', { name: '+1 hour' }).click();
    await conversation.getByText('Lembrete: uma hora depois.').waitFor();
    await expect.poll(() => asleep.count(), POLL).toBe(0);
    expect(await clock.getByRole('alert').allInnerTexts()).toEqual([]);

    expect(outside).toEqual([]);
    await page.context().close();
  });

  it('refuses an advance of zero beside the clock form, naming the field (a narrow window: the Time tab)', async () => {
    const page = await openConsole({ width: 420, height: 900 });
    await page.getByRole('tab', { name: 'Time' }).click();
    const clock = page.getByRole('region', { name: 'Time and failures' });
    const form = clock.getByRole('form', { name: 'Advance the clock' });
    await form.getByRole('spinbutton', { name: 'Amount' }).fill('0');
    await form.getByRole('button', { name: 'Advance' }).click();
    await clock.getByRole('alert').waitFor();
    expect(await clock.getByRole('alert').innerText()).toContain('Amount: move the clock by at least 1 second');
    expect(outside).toEqual([]);
    await page.context().close();
  });
});
