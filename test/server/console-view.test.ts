// The console as a client team uses it (issue 38), in a real browser on every engine of the run: the README's
// demo flow (console-flow.ts) at 1400×900, and what it must show along the way —
// - while the run sleeps at `lembrete`: the current block inside the graph's visible box without scrolling, and the
//   chat, the current run and the clock's buttons all within the one 1400×900 screen (the page at its top);
// - the Time pane listing the sleep and none of the run's answered question timeouts, and none of its waits once
//   the run ended;
// - a second run: the old "Quero" greyed, a tap on it saying it answered nothing, the new run still waiting;
// - a reload: the contact still chosen (its chat, its runs) and the account's events listed again;
// - at 390×844, one pane at a time (tabs), the current block inside the graph's box, touch targets of 44 px.
//
// Skipped, saying so, only when /usr/bin/chromium is missing (`apt-get install -y chromium`; .ci/run does it).
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { consoleBrowser, hasChromium, POLL, skippedWithoutChromium } from './console-browser.js';
import { DEMO_KEYWORD, DEMO_TITLE, playDemoFlow, region, WHATSAPP } from './console-flow.js';
import { engines } from './harness.js';

const ADMIN_TOKEN = 'console-view-admin-token-0123456789abcdef';
skippedWithoutChromium('console view test');

const newPhone = () => `+55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
const rectOf = async (locator: Locator): Promise<Rect> => {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`${locator.toString()} is not shown`);
  return box;
};
/** `inner` lies inside `outer` (a pixel of rounding allowed). */
const inside = (inner: Rect, outer: Rect) =>
  inner.x >= outer.x - 1 &&
  inner.y >= outer.y - 1 &&
  inner.x + inner.width <= outer.x + outer.width + 1 &&
  inner.y + inner.height <= outer.y + outer.height + 1;

/** The current block's box is inside the graph's visible box. */
async function currentBlockShown(page: Page, id: string): Promise<{ block: Rect; view: Rect }> {
  const view = await rectOf(page.locator('.graph-view'));
  const block = await rectOf(page.locator(`.graph-view [data-node="${id}"] rect`));
  return { block, view };
}

describe.skipIf(!hasChromium).each(engines)('the console as a client team uses it, on %s', (engine) => {
  const { outside, openConsole } = consoleBrowser(engine, ADMIN_TOKEN, 'console-view');

  it('shows the run where it is, chat + run + clock in one screen, only live waits, and old buttons as such', async () => {
    const page = await openConsole({ width: 1400, height: 900 });
    const phone = newPhone();
    const name = 'Vera Lima';
    const screen = { x: 0, y: 0, width: 1400, height: 900 };
    const measured: Record<string, boolean | number> = {};
    let waits: string[] = [];
    const seen = await playDemoFlow(page, {
      phone,
      name,
      city: 'Recife',
      capture: async (moment) => {
        if (moment !== 'clock') return;
        // Asleep at `lembrete`: the page at its top, nothing scrolled.
        await page.evaluate('window.scrollTo(0, 0)');
        await expect
          .poll(async () => await page.locator('.graph-view [data-node="lembrete"].current').count(), POLL)
          .toBe(1);
        const shown = await currentBlockShown(page, 'lembrete');
        measured.blockInGraph = inside(shown.block, shown.view);
        measured.graphInScreen = inside(shown.view, screen);
        measured.scrollY = await page.evaluate<number>('window.scrollY');
        const runs = region(page, `Runs of ${name}`);
        measured.composer = inside(await rectOf(page.getByRole('form', { name: 'Write as the contact' })), screen);
        measured.lastBubble = inside(await rectOf(page.locator('.bubble').last()), screen);
        measured.currentRun = inside(await rectOf(runs.locator('.run.selected .run-pick')), screen);
        measured.clockButtons = inside(
          await rectOf(region(page, 'Time and failures').getByRole('group', { name: 'Move the clock' })),
          screen,
        );
        // The Time pane: the sleep, and no question timeout (the question was answered, the buttons tapped).
        const list = region(page, 'Time and failures').getByRole('list', { name: 'Waiting on the clock' });
        waits = await list.getByRole('listitem').allInnerTexts();
      },
    });
    expect(measured).toEqual({
      blockInGraph: true,
      graphInScreen: true,
      scrollY: 0,
      composer: true,
      lastBubble: true,
      currentRun: true,
      clockButtons: true,
    });
    expect(waits.filter((w) => w.includes('Run wakes from a sleep'))).toHaveLength(1);
    expect(waits.filter((w) => w.includes('Question times out'))).toEqual([]);
    // Once the run ended: none of its waits (the flow waited for the sleep to go; nothing of a run is left).
    expect(seen.waitsAfter).toBe(0);
    const clock = region(page, 'Time and failures');
    expect(await clock.getByRole('listitem').filter({ hasText: 'workflow_run' }).count()).toBe(0);

    // "Where to play" is a bar once the contact is chosen, saying who is played.
    expect(await region(page, 'Where to play').locator('details').getAttribute('open')).toBeNull();
    expect(await region(page, 'Where to play').innerText()).toContain(`Playing ${name} on Loja (whatsapp)`);

    // A second run: the keyword again, the new buttons after the answer. The old "Quero" no longer answers.
    const conversation = page.getByRole('list', { name: 'Conversation' });
    const message = page.getByRole('textbox', { name: 'Message', exact: true });
    await message.fill(DEMO_KEYWORD);
    await message.press('Enter');
    await expect.poll(() => conversation.getByText('Para qual cidade é a entrega?').count(), POLL).toBe(2);
    await message.fill('Olinda');
    await message.press('Enter');
    const quero = conversation.getByRole('button', { name: 'Quero' });
    await expect.poll(() => quero.count(), POLL).toBe(2);
    await expect.poll(() => quero.first().getAttribute('class'), POLL).toContain('stale');
    await expect.poll(() => quero.last().getAttribute('class'), POLL).not.toContain('stale');
    await quero.first().click();
    const note = conversation.getByRole('status', { name: 'Tap answered nothing' });
    await note.waitFor();
    expect(await note.innerText()).toContain('answered nothing');
    const runs = region(page, `Runs of ${name}`);
    await runs
      .getByRole('list', { name: 'Runs' })
      .getByRole('button', { name: new RegExp(`^${DEMO_TITLE}: waiting`) })
      .waitFor();
    expect(await page.getByRole('alert').allInnerTexts()).toEqual([]);

    // A reload keeps the tab's context: the contact played (its chat and runs) and the account's events so far.
    await page.reload();
    await expect.poll(() => conversation.getByText('Para qual cidade é a entrega?').count(), POLL).toBe(2);
    await region(page, `Runs of ${name}`).waitFor();
    const events = region(page, 'Events').getByRole('list', { name: 'Account events' });
    await expect
      .poll(() => events.getByRole('listitem').filter({ hasText: 'message.received' }).count(), POLL)
      .toBeGreaterThan(2);
    expect(await page.getByRole('alert').allInnerTexts()).toEqual([]);
    await page.context().close();

    // Phone width: tabs, one pane at a time; the contact found by number, its run where it waits (the buttons).
    const narrow = await openConsole({ width: 390, height: 844 });
    await narrow.getByLabel('Connection').selectOption({ label: WHATSAPP });
    await narrow.getByRole('textbox', { name: 'Find by number' }).fill(phone);
    await narrow.getByRole('button', { name: 'Find contact' }).click();
    await narrow.getByText(`as ${name} · whatsapp`).waitFor();
    // The chat shows first, alone.
    expect(await narrow.getByRole('tab', { name: 'Chat' }).getAttribute('aria-selected')).toBe('true');
    expect(await region(narrow, `Runs of ${name}`).isVisible()).toBe(false);
    await narrow.getByRole('tab', { name: 'Runs' }).click();
    await expect
      .poll(async () => await narrow.locator('.graph-view [data-node="oferta"].current').count(), POLL)
      .toBe(1);
    const shown = await currentBlockShown(narrow, 'oferta');
    expect(inside(shown.block, shown.view)).toBe(true);
    expect(await narrow.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    // Touch targets: every visible button, field and tab is 44 px high at least.
    const small = await narrow.evaluate<string[]>(`[...document.querySelectorAll('button, input, select, summary, a')]
      .filter((el) => el.getClientRects().length > 0 && el.getBoundingClientRect().height < 44)
      .map((el) => el.outerHTML.slice(0, 80))`);
    expect(small).toEqual([]);
    expect(outside).toEqual([]);
    await narrow.context().close();
  });
});
