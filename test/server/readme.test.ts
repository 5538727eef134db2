// The README's walkthroughs, pasted as a reader pastes them: every ```sh block from the top of README.md to the
// "## Layout" heading, in order, in ONE bash process, against the real server started as `npm start` starts it
// (`node --import tsx server/main.ts`, a fresh DATA_DIR, the demo account and its printed key). bash's cwd is
// DATA_DIR's parent, so `$(cat data/admin-token)` reads the server's token as it does beside `npm start`.
//
// On PGlite alone, also when DATABASE_URL is set: the README's default, which a reader pastes against. What is
// checked is the published text over the HTTP contract; the routes' rules run on both engines in their own files
// and `npm start` on PostgreSQL (its start, drain and several processes) in process.test.ts. On both engines the
// walkthrough cost ~60 s more in a run for nothing more.
//
// Conventions of the README's sh blocks, read here:
// - What the reader types in from the printed banner is substituted: `epk_…` becomes the demo key,
//   `http://127.0.0.1:3000` the server's address, `http://127.0.0.1:4010` the mock's (started by this test with
//   `startMock`, as `npm run mock` does) and `http://127.0.0.1:4242` a webhook receiver this test runs
//   (examples/webhook-receiver.ts in-process; it learns the secrets from the answers the blocks print).
// - A command that starts with `npm ` (after optional `NAME=value` settings: `npm ci && npm start`,
//   `npm run mock`, `npm run webhook-receiver`) is not run: it starts a long-running process, which this test
//   starts itself. A command whose comment says `(not run by the test)` is not run either (one that needs a
//   person at another terminal).
// - Every curl must answer 2xx, unless its comment names the statuses it may answer after an arrow:
//   `# → 409`, `# → 201 or 409`; then it must answer one of those.
// - Any other command failing (`set -e`), e.g. `json` finding no id in an answer, fails the test.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNpmStart, type StartedServer } from './npm-start.js';
import { startMock, type RunningMock } from '../../mock/server.js';
import { startReceiver, type WebhookReceiver } from '../../examples/webhook-receiver.js';

const root = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** One command of a block: its text (continued lines joined as written), where it is, and its comments. */
interface ReadmeCommand {
  text: string;
  line: number;
  heading: string;
  comment: string;
}

/** Splits a block's lines into commands: a command goes on while a quote is open or a line ends with `\`. */
function splitCommands(lines: { text: string; line: number }[], heading: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  let text: string[] = [];
  let comment: string[] = [];
  let start = 0;
  let quote: "'" | '"' | undefined;
  for (const { text: line, line: number } of lines) {
    if (text.length === 0) start = number;
    let code = line;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quote === "'") {
        if (ch === "'") quote = undefined;
      } else if (quote === '"') {
        if (ch === '\\') i++;
        else if (ch === '"') quote = undefined;
      } else if (ch === "'" || ch === '"') quote = ch;
      else if (ch === '\\') i++;
      else if (ch === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
        code = line.slice(0, i);
        comment.push(line.slice(i + 1).trim());
        break;
      }
    }
    if (text.length === 0 && code.trim() === '') {
      comment = [];
      continue; // a comment line of its own: prose
    }
    text.push(line);
    if (quote || code.trimEnd().endsWith('\\')) continue;
    commands.push({ text: text.join('\n'), line: start, heading, comment: comment.join(' ') });
    text = [];
    comment = [];
  }
  if (text.length > 0) throw new Error(`README.md:${start}: a command with an open quote at the end of its block`);
  return commands;
}

/** The commands of the README's walkthroughs: the ```sh blocks above "## Layout", in order. */
function readmeCommands(markdown: string): ReadmeCommand[] {
  const lines = markdown.split('\n');
  const end = lines.findIndex((l) => l.startsWith('## Layout'));
  const commands: ReadmeCommand[] = [];
  let heading = '';
  let block: { text: string; line: number }[] | undefined;
  for (let i = 0; i < (end < 0 ? lines.length : end); i++) {
    const line = lines[i]!;
    if (block) {
      if (line.startsWith('```')) {
        commands.push(...splitCommands(block, heading));
        block = undefined;
      } else block.push({ text: line, line: i + 1 });
    } else if (line.startsWith('```sh')) block = [];
    else if (line.startsWith('#')) heading = line.replace(/^#+\s*/, '');
  }
  return commands;
}

/** Not run: starts a long-running process (`npm …`) or is marked for a person. */
const skipped = (c: ReadmeCommand): boolean =>
  /^\s*(?:[A-Z_]+=\S*\s+)*npm\s/.test(c.text) || c.comment.includes('(not run by the test)');

/** The statuses a command's comment allows after `→`, or none (then 2xx). */
const expectedStatuses = (c: ReadmeCommand): string[] => {
  const arrow = c.comment.indexOf('→');
  const after = arrow < 0 ? '' : c.comment.slice(arrow + 1);
  return after.match(/\b[1-5]\d\d\b/g) ?? [];
};

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The bash script: a checking `curl`, then each command with its place and its allowed statuses. */
function script(commands: ReadmeCommand[], substitute: (s: string) => string): string {
  // A failing curl may run in a pipeline or a $(…), a subshell: it reports on stderr and stops the whole script.
  const prelude = `set -e
trap 'echo "failed (exit $?): $__at" >&2' ERR
__fail() { printf 'README command failed: %s\\n' "$1" >&2; kill -TERM $$; exit 3; }
curl() {
  local out
  out=$(command curl -sS -w '\\n%{http_code}' "$@") || __fail "$__at: curl exited $?"
  local status=\${out##*$'\\n'}
  out=\${out%$'\\n'*}
  if [ -n "$__expect" ]; then
    case " $__expect " in *" $status "*) ;; *) __fail "$__at: HTTP $status, expected $__expect
$out" ;; esac
  elif [ "$status" -lt 200 ] || [ "$status" -ge 300 ]; then
    __fail "$__at: HTTP $status
$out"
  fi
  printf '%s\\n' "$out"
}
`;
  const body = commands
    .filter((c) => !skipped(c))
    .map(
      (c) =>
        `__at=${quote(`README.md:${c.line} (${c.heading}): ${c.text.split('\n')[0]}`)}; __expect=${quote(expectedStatuses(c).join(' '))}\n` +
        `${substitute(c.text)}\n`,
    )
    .join('');
  return `${prelude}${body}echo README-DONE\n`;
}

async function banner(server: StartedServer): Promise<{ baseUrl: string; apiKey: string }> {
  const until = Date.now() + 60_000;
  for (;;) {
    const out = server.output();
    const baseUrl = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    const apiKey = /demo API key \(every scope\): (\S+)/.exec(out)?.[1];
    if (baseUrl && apiKey && /admin token: .+\n/.test(out)) return { baseUrl, apiKey };
    if (server.child.exitCode !== null) throw new Error(`server exited (${server.child.exitCode}):\n${out}`);
    if (Date.now() > until) throw new Error(`no banner within 60 s:\n${out}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

/** Runs the script in bash in `cwd`; each secret an answer prints is given to the receiver at once. */
function runBash(
  text: string,
  cwd: string,
  receiver: WebhookReceiver,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn('bash', ['-c', text], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const secrets = new Set<string>();
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const m of out.matchAll(/"secret":"(whsec_[^"]+)"/g)) secrets.add(m[1]!);
    receiver.setSecrets([...secrets]);
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((ok) => child.on('close', (code) => ok({ code, out, err })));
}

describe('the README walkthroughs (no server)', () => {
  const commands = readmeCommands(readme);

  it('need nothing a default Debian lacks and leave no placeholder to fill in', () => {
    const run = commands.filter((c) => !skipped(c));
    expect(run.length).toBeGreaterThan(30);
    for (const c of run) {
      expect(c.text, `README.md:${c.line}`).not.toMatch(/uuidgen|\bjq\b|<[a-z ]*id>/);
    }
    // What is not run is exactly what starts a long-running process, and the SDK generation (a third-party tool,
    // about 25 s, that npx would fetch where this repository's node_modules is not: bash runs in a scratch folder).
    expect(commands.filter(skipped).map((c) => c.text)).toEqual([
      expect.stringMatching(/^npm ci && npm start/),
      expect.stringMatching(/^npx @hey-api\/openapi-ts -i http:\/\/127\.0\.0\.1:3000\/openapi\.json -o sdk/),
    ]);
  });
});

/** An example's command line as `npm run <name>` runs it, in this environment. */
function runExample(name: string, env: Record<string, string>): Promise<{ code: number | null; err: string }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !['API_KEY', 'ADMIN_TOKEN', 'BASE_URL'].includes(k)),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', `examples/${name}.ts`], {
    cwd: root,
    env: { ...clean, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((ok) => child.on('close', (code) => ok({ code, err })));
}

describe('the example scripts', () => {
  const examples = ['quickstart', 'automation', 'sandbox-exchange', 'automation-exchange', 'webhooks-walkthrough'];

  it('print one line, not a stack, and exit 1 when nothing answers at BASE_URL', async () => {
    // A port nothing listens on: taken from the system, then let go.
    const probe = createServer();
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((ok) => probe.close(ok));
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = { API_KEY: 'epk_x', ADMIN_TOKEN: 'x'.repeat(32), BASE_URL: baseUrl };
    const results = await Promise.all(examples.map((name) => runExample(name, env)));
    for (const [i, r] of results.entries())
      expect({ example: examples[i], ...r }).toEqual({
        example: examples[i],
        code: 1,
        err: `cannot reach the server at ${baseUrl}: is npm start running?\n`,
      });
  });

  it('say what to set, BASE_URL included, in one line and exit 2 when a setting is missing', async () => {
    const [quick, walk] = await Promise.all([runExample('quickstart', {}), runExample('webhooks-walkthrough', {})]);
    expect(quick).toEqual({
      code: 2,
      err: "Set API_KEY to the key `npm start` printed; BASE_URL to the server's address if it is not http://127.0.0.1:3000.\n",
    });
    expect(walk.code).toBe(2);
    expect(walk.err).toMatch(/^Set API_KEY .* and ADMIN_TOKEN .*; BASE_URL .*\n$/);
  });
});

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock({ port: 0 });
});
afterAll(async () => {
  await mock?.close();
});

describe('the README walkthroughs on PGlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ep-readme-'));
  let server: StartedServer;
  let receiver: WebhookReceiver;
  const lines: string[] = [];

  beforeAll(async () => {
    mkdirSync(join(dir, 'data'));
    server = startNpmStart({ DATA_DIR: join(dir, 'data') });
    receiver = await startReceiver({ secrets: [], log: (line) => lines.push(line) });
  });

  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every command answers as the README says', async () => {
    const { baseUrl, apiKey } = await banner(server);
    const receiverBase = new URL(receiver.url).origin;
    const substitute = (s: string) =>
      s
        .replaceAll('epk_…', apiKey)
        .replaceAll('http://127.0.0.1:3000', baseUrl)
        .replaceAll('http://127.0.0.1:4010', mock.url)
        .replaceAll('http://127.0.0.1:4242', receiverBase);
    const text = script(readmeCommands(readme), substitute);
    const { code, out, err } = await runBash(text, dir, receiver);
    expect(code, `${err.slice(-3000)}\n--- the last answers printed ---\n${out.slice(-1500)}`).toBe(0);
    expect(out).toContain('README-DONE');
    // The webhook walkthrough reached the receiver, signed with the secret its answer printed.
    expect(out).toContain('"delivered":true');
    expect(lines.some((l) => /^200 accepted/.test(l))).toBe(true);
  }, 240_000); // a server start and some 60 commands, each a curl and often a node; slow on a busy machine
});
