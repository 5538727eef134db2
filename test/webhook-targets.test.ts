// The webhook URL rules (server/webhooks/targets.ts, Part C "URL rules") with a stub resolver: the syntax
// reasons in order, public answers accepted, every refused address range refused (`unreachable` at
// registration, `unsafe_target` at send), resolution failures, the development setting (refused in production),
// and DNS rebinding between registration and send.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';
import {
  addressAllowed,
  checkWebhookUrl,
  classifyAddress,
  parseWebhookUrl,
  resolveTarget,
  targetPolicy,
  type Resolve,
  type TargetPolicy,
} from '../server/webhooks/targets.js';

type Answer = { address: string; family: 4 | 6 };
const answer = (address: string): Answer => ({ address, family: address.includes(':') ? 6 : 4 });

/** A resolver answering `hooks.example.com` with the given addresses, and ENOTFOUND for any other name. */
function stub(addresses: string[], name = 'hooks.example.com'): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    if (hostname !== name) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map(answer);
  };
  return Object.assign(resolve, { calls });
}

const strict = (resolve: Resolve): TargetPolicy => ({ devTargets: false, resolve });
const dev = (resolve: Resolve): TargetPolicy => ({ devTargets: true, resolve });
const URL_OK = 'https://hooks.example.com/engagement/events';

const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '2606:2800:220:1:248:1893:25c8:1946',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8', // IPv4-mapped public
  '64:ff9b::808:808', // NAT64 of a public address
  '2002:808:808::1', // 6to4 of a public address
];

// Each non-public range, with what it is. `local` ones are allowed by the development setting.
const LOCAL: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback /8'],
  ['10.0.0.1', 'private 10/8'],
  ['172.16.5.4', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12 end'],
  ['192.168.1.1', 'private 192.168/16'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['100.64.0.1', 'CGNAT 100.64/10'],
  ['100.127.255.254', 'CGNAT end'],
  ['::1', 'IPv6 loopback'],
  ['fe80::1', 'IPv6 link-local'],
  ['fc00::1', 'unique-local fc00::/7'],
  ['fd12:3456:789a::1', 'unique-local fd'],
  ['fec0::1', 'deprecated site-local'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
  ['::ffff:0:192.168.0.1', 'IPv4-translated private'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
  ['64:ff9b:1::a00:1', 'local-use NAT64 prefix'],
  ['2002:a00:1::1', '6to4 of 10.0.0.1'],
  ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo with client 10.0.0.1'],
];
const NEVER: [string, string][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'this network 0/8'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved 240/4'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.10', 'documentation TEST-NET-1'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.1', 'benchmarking end'],
  ['::', 'IPv6 unspecified'],
  ['ff02::1', 'IPv6 multicast'],
  ['2001:db8::1', 'IPv6 documentation'],
  ['3fff::1', 'IPv6 documentation 3fff::/20'],
  ['2001:2::1', 'IPv6 benchmarking'],
  ['100::1', 'IPv6 discard'],
  ['4000::1', 'outside global unicast 2000::/3'],
  ['::ffff:224.0.0.1', 'IPv4-mapped multicast'],
  ['::ffff:0.0.0.0', 'IPv4-mapped unspecified'],
  ['64:ff9b::c000:20a', 'NAT64 of documentation'],
  ['not-an-address', 'not an IP at all'],
];

describe('address classification', () => {
  it.each(PUBLIC)('%s is public', (address) => {
    expect(classifyAddress(address)).toBe('public');
    expect(addressAllowed(address, { devTargets: false })).toBe(true);
  });
  it.each(LOCAL)('%s (%s) is refused, allowed only by the development setting', (address) => {
    expect(classifyAddress(address)).toBe('local');
    expect(addressAllowed(address, { devTargets: false })).toBe(false);
    expect(addressAllowed(address, { devTargets: true })).toBe(true);
  });
  it.each(NEVER)('%s (%s) is never a target', (address) => {
    expect(classifyAddress(address)).toBe('refused');
    expect(addressAllowed(address, { devTargets: true })).toBe(false);
  });
});

describe('checkWebhookUrl (registration)', () => {
  it.each(PUBLIC)('accepts a host resolving to %s', async (address) => {
    expect(await checkWebhookUrl(URL_OK, strict(stub([address])))).toBeNull();
  });

  it.each([...LOCAL, ...NEVER])('refuses a host resolving to %s (%s) as unreachable', async (address) => {
    expect(await checkWebhookUrl(URL_OK, strict(stub([address])))).toBe('unreachable');
  });

  it('refuses a host when any one of its addresses is not public', async () => {
    expect(await checkWebhookUrl(URL_OK, strict(stub(['8.8.8.8', '10.0.0.1'])))).toBe('unreachable');
    expect(await checkWebhookUrl(URL_OK, strict(stub(['2001:4860:4860::8888', '::1', '8.8.4.4'])))).toBe('unreachable');
    expect(await checkWebhookUrl(URL_OK, strict(stub(['8.8.8.8', '2001:4860:4860::8888'])))).toBeNull();
  });

  it('refuses a host that does not resolve, or resolves to nothing', async () => {
    expect(await checkWebhookUrl('https://nowhere.example.net/', strict(stub(['8.8.8.8'])))).toBe('unreachable');
    expect(await checkWebhookUrl(URL_OK, strict(stub([])))).toBe('unreachable');
    const failing: Resolve = () => Promise.reject(new Error('SERVFAIL'));
    expect(await checkWebhookUrl(URL_OK, strict(failing))).toBe('unreachable');
  });

  it('checks an IP-literal host the same way, without resolving it', async () => {
    const resolve = stub(['8.8.8.8']);
    const policy = strict(resolve);
    expect(await checkWebhookUrl('https://8.8.8.8/hook', policy)).toBeNull();
    expect(await checkWebhookUrl('https://[2001:4860:4860::8888]/hook', policy)).toBeNull();
    for (const url of [
      'https://127.0.0.1/',
      'https://10.1.2.3/',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.1.1/',
      'https://0.0.0.0/',
      'https://[::1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://[fd00::1]/',
      'https://[fe80::1]/',
      'https://[64:ff9b::a00:1]/',
      // Alternative spellings of 127.0.0.1 that URL parsing normalises.
      'https://127.1/',
      'https://2130706433/',
      'https://0x7f.0.0.1/',
      'https://0177.0.0.1/',
    ]) {
      expect([url, await checkWebhookUrl(url, policy)]).toEqual([url, 'unreachable']);
    }
    expect(resolve.calls).toEqual([]);
  });

  it('gives every syntax reason, in order, before any resolution', async () => {
    const resolve = stub(['8.8.8.8']);
    const policy = strict(resolve);
    const cases: [string, string][] = [
      ['', 'invalid'],
      ['not a url', 'invalid'],
      ['hooks.example.com/path', 'invalid'],
      ['/relative/path', 'invalid'],
      ['https://', 'invalid'],
      ['https://hooks.example.com/ x', 'invalid'],
      [' https://hooks.example.com/', 'invalid'],
      ['https://hooks.example.com/\n', 'invalid'],
      ['https://exa mple.com/', 'invalid'],
      ['https://[::1/', 'invalid'],
      ['http://hooks.example.com/', 'https_required'],
      ['ftp://hooks.example.com/', 'https_required'],
      ['ws://hooks.example.com/', 'https_required'],
      ['mailto:ops@example.com', 'https_required'],
      ['http://user:pass@hooks.example.com:8080/', 'https_required'],
      ['https://user:pass@hooks.example.com/', 'credentials'],
      ['https://user@hooks.example.com/', 'credentials'],
      ['https://:pass@hooks.example.com/', 'credentials'],
      ['https://user@hooks.example.com:8443/', 'credentials'],
      ['https://hooks.example.com:8443/', 'port'],
      ['https://hooks.example.com:80/', 'port'],
      ['https://hooks.example.com:1/', 'port'],
    ];
    for (const [url, reason] of cases) expect([url, await checkWebhookUrl(url, policy)]).toEqual([url, reason]);
    expect(resolve.calls).toEqual([]);
  });

  it('accepts an explicit :443, a query and a fragment', async () => {
    const policy = strict(stub(['8.8.8.8']));
    expect(await checkWebhookUrl('https://hooks.example.com:443/events', policy)).toBeNull();
    expect(await checkWebhookUrl('https://HOOKS.example.com/events?team=a&x=1#frag', policy)).toBeNull();
    const parsed = parseWebhookUrl('https://hooks.example.com:443/events', { devTargets: false });
    expect(parsed.ok && parsed.url.port).toBe('');
  });

  it('with the development setting: http, any port, loopback and private receivers', async () => {
    const policy = dev(stub(['127.0.0.1'], 'localhost'));
    expect(await checkWebhookUrl('http://localhost:3000/hooks', policy)).toBeNull();
    expect(await checkWebhookUrl('http://127.0.0.1:8080/', policy)).toBeNull();
    expect(await checkWebhookUrl('https://localhost:8443/', policy)).toBeNull();
    expect(await checkWebhookUrl('http://[::1]:9000/', policy)).toBeNull();
    expect(await checkWebhookUrl('http://192.168.1.20/', policy)).toBeNull();
    expect(await checkWebhookUrl('http://10.0.0.5:1234/', policy)).toBeNull();
    // Still refused: credentials, non-URLs, other schemes, never-target addresses, names that do not resolve.
    expect(await checkWebhookUrl('http://user:pw@localhost:3000/', policy)).toBe('credentials');
    expect(await checkWebhookUrl('', policy)).toBe('invalid');
    expect(await checkWebhookUrl('localhost:3000', policy)).toBe('https_required');
    expect(await checkWebhookUrl('not a url', policy)).toBe('invalid');
    expect(await checkWebhookUrl('ftp://localhost/', policy)).toBe('https_required');
    expect(await checkWebhookUrl('http://224.0.0.1/', policy)).toBe('unreachable');
    expect(await checkWebhookUrl('http://0.0.0.0:3000/', policy)).toBe('unreachable');
    expect(await checkWebhookUrl('http://nowhere.test/', policy)).toBe('unreachable');
  });

  it('targetPolicy follows config.webhookDevTargets', () => {
    expect(targetPolicy({ webhookDevTargets: false })).toEqual({ devTargets: false });
    expect(targetPolicy({ webhookDevTargets: true })).toEqual({ devTargets: true });
  });
});

describe('WEBHOOK_DEV_TARGETS', () => {
  const production = {
    APP_ENV: 'production',
    DATABASE_URL: 'postgres://db/x',
    ADMIN_TOKEN: 'x'.repeat(32),
    PUBLIC_BASE_URL: 'https://api.example.com',
    CHANNEL_CREDENTIALS_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
  };
  it('is on in the embedded development default, off with DATABASE_URL or in production, refused there (issue 33)', () => {
    expect(loadConfig({}).webhookDevTargets).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }).webhookDevTargets).toBe(false);
    expect(loadConfig({ APP_ENV: 'test' }).webhookDevTargets).toBe(false);
    expect(loadConfig({ WEBHOOK_DEV_TARGETS: 'true', DATABASE_URL: 'postgres://db/x' }).webhookDevTargets).toBe(true);
    expect(loadConfig(production).webhookDevTargets).toBe(false);
    for (const value of ['true', '1'])
      expect(() => loadConfig({ ...production, WEBHOOK_DEV_TARGETS: value })).toThrow(
        /WEBHOOK_DEV_TARGETS: cannot be true when APP_ENV=production/,
      );
    expect(loadConfig({ ...production, WEBHOOK_DEV_TARGETS: 'false' }).webhookDevTargets).toBe(false);
  });
});

describe('resolveTarget (at every send)', () => {
  it('answers the checked address', async () => {
    expect(await resolveTarget(URL_OK, strict(stub(['93.184.216.34'])))).toEqual({
      ok: true,
      address: '93.184.216.34',
      family: 4,
    });
    expect(await resolveTarget('https://[2001:4860:4860::8888]/x', strict(stub([])))).toEqual({
      ok: true,
      address: '2001:4860:4860::8888',
      family: 6,
    });
  });

  it('dns_failed when the name does not resolve; unsafe_target for a non-public answer', async () => {
    expect(await resolveTarget('https://gone.example.org/', strict(stub(['8.8.8.8'])))).toEqual({
      ok: false,
      error: 'dns_failed',
    });
    expect(await resolveTarget(URL_OK, strict(stub([])))).toEqual({ ok: false, error: 'dns_failed' });
    for (const [address] of [...LOCAL, ...NEVER]) {
      expect([address, await resolveTarget(URL_OK, strict(stub([address])))]).toEqual([
        address,
        { ok: false, error: 'unsafe_target' },
      ]);
    }
    expect(await resolveTarget(URL_OK, strict(stub(['8.8.8.8', '192.168.0.1'])))).toEqual({
      ok: false,
      error: 'unsafe_target',
    });
  });

  it('a URL that no longer passes the rules (the development setting turned off) is unsafe_target', async () => {
    const resolve = stub(['127.0.0.1'], 'localhost');
    expect(await checkWebhookUrl('http://localhost:3000/', dev(resolve))).toBeNull();
    expect(await resolveTarget('http://localhost:3000/', strict(resolve))).toEqual({
      ok: false,
      error: 'unsafe_target',
    });
    expect(await resolveTarget('https://localhost/', strict(resolve))).toEqual({ ok: false, error: 'unsafe_target' });
  });

  it('DNS rebinding: a public answer at registration, a private one at send → unsafe_target', async () => {
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const calls: string[] = [];
    const rebinding: Resolve = async (hostname) => {
      calls.push(hostname);
      return (answers[Math.min(calls.length - 1, answers.length - 1)] ?? []).map(answer);
    };
    const policy = strict(rebinding);
    expect(await checkWebhookUrl(URL_OK, policy)).toBeNull();
    expect(await resolveTarget(URL_OK, policy)).toEqual({ ok: false, error: 'unsafe_target' });
    expect(calls).toEqual(['hooks.example.com', 'hooks.example.com']);
  });
});
