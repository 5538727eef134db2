// The whole flow of the console in a real browser (Debian's Chromium through playwright-core, every request that
// leaves the test server refused and recorded), on every engine of the run: console-flow.ts plays the demo
// exchange through the page alone — the same flow `npm run screenshots` captures for the README — and this test
// asserts each outcome: the run asleep at the reminder's sleep (Runs and Time panes), the clock moved an hour from
// the Time pane, the reminder sent, the run completed with its path marked, and `workflow_run.ended` verified at
// the built-in receiver.
//
// Skipped, saying so, only when /usr/bin/chromium is missing (`apt-get install -y chromium`; .ci/run does it).
import { describe, expect, it } from 'vitest';
import { consoleBrowser, hasChromium, skippedWithoutChromium } from './console-browser.js';
import { DEMO_KEYWORD, DEMO_TITLE, playDemoFlow, REMINDER, type Moment } from './console-flow.js';
import { engines } from './harness.js';

const ADMIN_TOKEN = 'console-flow-admin-token-0123456789abcdef';
skippedWithoutChromium('console flow test');

const newPhone = () => `+55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;

describe.skipIf(!hasChromium).each(engines)('the console whole flow on %s', (engine) => {
  const { outside, openConsole } = consoleBrowser(engine, ADMIN_TOKEN, 'console-flow');

  it('plays the demo through the page: sleep, clock +1 hour, reminder, completed run, verified run end', async () => {
    const page = await openConsole();
    const moments: Moment[] = [];
    const seen = await playDemoFlow(page, {
      phone: newPhone(),
      name: 'Dora Reis',
      city: 'Recife',
      capture: async (moment) => void moments.push(moment),
    });

    // The screenshot moments, in the order the script captures them.
    expect(moments).toEqual(['clock', 'chat', 'runs', 'webhooks']);
    // Asleep at `lembrete` before the clock moved, the Time pane saying when it wakes.
    // A sleep is a timed wait: the run is `running`, waiting at `lembrete`.
    expect(seen.runAsleep).toMatch(new RegExp(`^${DEMO_TITLE}: running`));
    expect(seen.clockWait).toContain('Run wakes from a sleep');
    expect(seen.clockWait).toContain('in 60 min');
    expect(seen.waitsAfter).toBe(0);

    // The whole exchange, the reminder last.
    expect(seen.conversation).toEqual([
      DEMO_KEYWORD,
      'Oi, Dora! Vamos ver o frete.',
      'Para qual cidade é a entrega?',
      'Recife',
      'Anotei Recife. Quer um lembrete quando o frete grátis começar?',
      'Quero',
      'Combinado! Aviso quando o frete grátis para Recife começar.',
      REMINDER('Recife'),
    ]);

    // Completed, with its path marked: every block of the "Quero" branch, not the other.
    expect(seen.runCompleted).toMatch(new RegExp(`^${DEMO_TITLE}: completed`));
    for (const id of ['root', 'boas_vindas', 'cidade', 'oferta', 'marcar', 'combinado', 'lembrete', 'aviso'])
      expect(seen.blocks[id], id).toContain("on the run's path");
    expect(seen.blocks.tchau).toContain('not reached');
    expect(Object.values(seen.blocks).filter((label) => label.includes('current block'))).toEqual([]);
    expect(seen.takenEdges).toContain('oferta:0->marcar');
    expect(seen.takenEdges).toContain('lembrete:0->aviso');
    expect(seen.takenEdges).not.toContain('oferta:1->tchau');
    expect(seen.path).toContain('root → boas_vindas → cidade → oferta → marcar → combinado → lembrete → aviso');

    // The run's end reached the built-in receiver, its signature checked with the endpoint's secret.
    expect(seen.receiver).toContain('Listening');
    expect(seen.endedBadge).toBe('verified');

    expect(seen.alerts).toEqual([]);
    expect(outside).toEqual([]);
    await page.context().close();
  });
});
