// The URL rules of webhook endpoints (Part C, "URL rules"), checked at registration and PATCH
// (`checkWebhookUrl`, a 422 `invalid_webhook_url` reason) and again at every send (`resolveTarget`,
// `unsafe_target` or `dns_failed`). Outbound only: no database, no http layer.
//
// Strict rules: https, no port other than 443, no user or password, and a host whose every address is public.
// The address check uses ipaddr.js's range tables and looks through the IPv6 forms that carry an IPv4 address
// (IPv4-mapped, IPv4-translated, NAT64 64:ff9b::/96, 6to4, Teredo), so `::ffff:10.0.0.1` is as private as
// `10.0.0.1`. At send the sender connects to the addresses checked here and never resolves the name again, so
// an answer that changes between the check and the connection (DNS rebinding) cannot reach a private network.
//
// The development setting (config.webhookDevTargets) also allows http, any port and loopback, private,
// link-local and unique-local addresses, so a developer can receive events on localhost; credentials and
// non-URLs stay refused, and multicast, broadcast, unspecified and reserved addresses are never a target.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isNonEmpty, type NonEmpty } from '../guards.js';

export type UrlRefusalReason = 'invalid' | 'https_required' | 'credentials' | 'port' | 'unreachable';

/** All addresses of a host name (the default is `dns.promises.lookup` with `all: true`). */
export type Resolve = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export interface TargetPolicy {
  /** Development: http, any port, loopback and private addresses allowed. */
  devTargets: boolean;
  /** http and any port allowed, the address rules unchanged (an invoke block's endpoint, Part B). */
  anyPort?: boolean;
  /** Name resolution; tests pass a stub. */
  resolve?: Resolve;
  /** An extra trusted CA (PEM) for the tests' HTTPS receivers; the public roots stay trusted. */
  ca?: string | Buffer;
}

export interface TargetAddress {
  address: string;
  family: 4 | 6;
}

/** Resolution at registration gives up after this long (`unreachable`). */
export const RESOLVE_TIMEOUT_MS = 5_000;

export function targetPolicy(config: { webhookDevTargets: boolean }): TargetPolicy {
  return { devTargets: config.webhookDevTargets };
}

/** The invoke block's rules: http or https on any port; public addresses only unless config.invokeDevTargets. */
export function invokeTargetPolicy(config: { invokeDevTargets: boolean }): TargetPolicy {
  return { devTargets: config.invokeDevTargets, anyPort: true };
}

export const defaultResolve: Resolve = async (hostname) => {
  const answers = await lookup(hostname, { all: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

// ---------------------------------------------------------------------------------------------------------
// Addresses

/** `public`: always a target; `local`: loopback/private/link-local, only with devTargets; `refused`: never. */
export type AddressClass = 'public' | 'local' | 'refused';

const RANK: Record<AddressClass, number> = { public: 0, local: 1, refused: 2 };
function worst(...classes: AddressClass[]): AddressClass {
  return classes.reduce((a, b) => (RANK[b] > RANK[a] ? b : a), 'public');
}

const LOCAL_V4 = new Set(['loopback', 'private', 'linkLocal', 'carrierGradeNat']);
const LOCAL_V6 = new Set(['loopback', 'linkLocal', 'uniqueLocal', 'deprecatedSiteLocal']);
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

function v4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function classifyV4(ip: ipaddr.IPv4): AddressClass {
  const range = ip.range();
  if (range === 'unicast') return 'public';
  return LOCAL_V4.has(range) ? 'local' : 'refused';
}

function classifyV6(ip: ipaddr.IPv6): AddressClass {
  // An IPv6 address has its eight 16-bit parts, so the defaults never apply (the library types them number[]).
  const [, p1 = 0, p2 = 0, p3 = 0, , , p6 = 0, p7 = 0] = ip.parts;
  const range: string = ip.range();
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return classifyV4(v4FromParts(p6, p7));
    case 'rfc6052': // NAT64: the well-known prefix embeds the IPv4 address; the local-use 64:ff9b:1::/48 is local
      return ip.match(NAT64_WELL_KNOWN) ? classifyV4(v4FromParts(p6, p7)) : 'local';
    case '6to4': // 2002:aabb:ccdd::/48
      return classifyV4(v4FromParts(p1, p2));
    case 'teredo': // 2001:0:<server v4>:<flags>:<port>:<client v4 xor ffff:ffff>
      return worst(classifyV4(v4FromParts(p2, p3)), classifyV4(v4FromParts(p6 ^ 0xffff, p7 ^ 0xffff)));
    case 'unicast':
      // Only the global unicast block 2000::/3 is allocated for the internet; the rest is unassigned.
      return ip.match(GLOBAL_UNICAST_V6) ? 'public' : 'refused';
    default:
      return LOCAL_V6.has(range) ? 'local' : 'refused';
  }
}

/** Classifies one IP address (v4 or v6 text, an IPv6 zone id allowed); anything unparseable is `refused`. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address.split('%')[0] ?? '');
  if (family === 0) return 'refused';
  try {
    const ip = ipaddr.parse(address);
    return ip instanceof ipaddr.IPv4 ? classifyV4(ip) : classifyV6(ip);
  } catch {
    return 'refused';
  }
}

/** True when `address` may be sent to under `policy` (public; or local with devTargets). */
export function addressAllowed(address: string, policy: Pick<TargetPolicy, 'devTargets'>): boolean {
  const cls = classifyAddress(address);
  return cls === 'public' || (cls === 'local' && policy.devTargets);
}

// ---------------------------------------------------------------------------------------------------------
// URLs

export type ParsedWebhookUrl =
  | {
      ok: true;
      url: URL;
      /** The host to connect to: a name, or an IP literal without brackets. */
      hostname: string;
      /** 4 or 6 for an IP-literal host, 0 for a name. */
      literal: 0 | 4 | 6;
    }
  | { ok: false; reason: Exclude<UrlRefusalReason, 'unreachable'> };

/** The syntactic rules (everything but the addresses), in the order of the seed's reasons. */
export function parseWebhookUrl(url: string, policy: Pick<TargetPolicy, 'devTargets' | 'anyPort'>): ParsedWebhookUrl {
  // Spaces and control characters would be silently stripped or escaped by the URL parser: not a URL as sent.
  // eslint-disable-next-line no-control-regex
  if (typeof url !== 'string' || url.length === 0 || /[\u0000-\u0020\u007f]/.test(url)) {
    return { ok: false, reason: 'invalid' };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  const open = policy.devTargets || policy.anyPort === true;
  const httpAllowed = open && parsed.protocol === 'http:';
  if (parsed.protocol !== 'https:' && !httpAllowed) return { ok: false, reason: 'https_required' };
  if (parsed.hostname === '') return { ok: false, reason: 'invalid' };
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: 'credentials' };
  // The parser drops the scheme's default port, so an explicit :443 on https reads as ''.
  if (!open && parsed.port !== '') return { ok: false, reason: 'port' };
  let hostname = parsed.hostname;
  if (hostname.startsWith('[') && hostname.endsWith(']')) hostname = hostname.slice(1, -1);
  const family = isIP(hostname);
  return { ok: true, url: parsed, hostname, literal: family === 4 || family === 6 ? family : 0 };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('resolution timed out')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The addresses of a parsed URL's host: the literal itself, or the resolver's answer (null: none). */
async function addressesOf(
  target: Extract<ParsedWebhookUrl, { ok: true }>,
  policy: TargetPolicy,
  timeoutMs: number,
): Promise<NonEmpty<TargetAddress> | null> {
  if (target.literal !== 0) return [{ address: target.hostname, family: target.literal }];
  try {
    const answers = await withTimeout((policy.resolve ?? defaultResolve)(target.hostname), timeoutMs);
    // An answer that is not an IP address is classified `refused` below, never skipped.
    return isNonEmpty(answers) ? answers : null;
  } catch {
    return null;
  }
}

/**
 * The registration check (POST and PATCH of an endpoint): null when the URL is acceptable, else the reason
 * of the 422. The host must resolve, and every address it resolves to must be allowed (`unreachable`).
 */
export async function checkWebhookUrl(url: string, policy: TargetPolicy): Promise<UrlRefusalReason | null> {
  const target = parseWebhookUrl(url, policy);
  if (!target.ok) return target.reason;
  const addresses = await addressesOf(target, policy, RESOLVE_TIMEOUT_MS);
  if (!addresses) return 'unreachable';
  return addresses.every((a) => addressAllowed(a.address, policy)) ? null : 'unreachable';
}

export type ResolvedTargets =
  | { ok: true; url: URL; hostname: string; addresses: NonEmpty<TargetAddress> }
  | { ok: false; error: 'dns_failed' | 'unsafe_target' };

/**
 * The send-time check with every checked address (the sender connects only to these). A URL that no longer
 * passes the rules (e.g. the development setting was turned off) or a host with any address not allowed is
 * `unsafe_target`; a host that does not resolve is `dns_failed`.
 */
export async function resolveTargets(
  url: string,
  policy: TargetPolicy,
  timeoutMs: number = RESOLVE_TIMEOUT_MS,
): Promise<ResolvedTargets> {
  const target = parseWebhookUrl(url, policy);
  if (!target.ok) return { ok: false, error: 'unsafe_target' };
  const addresses = await addressesOf(target, policy, timeoutMs);
  if (!addresses) return { ok: false, error: 'dns_failed' };
  if (!addresses.every((a) => addressAllowed(a.address, policy))) return { ok: false, error: 'unsafe_target' };
  return {
    ok: true,
    url: target.url,
    hostname: target.hostname,
    addresses,
  };
}

/** The send-time check (at every attempt): the address to connect to, or why not. */
export async function resolveTarget(
  url: string,
  policy: TargetPolicy,
): Promise<{ ok: true; address: string; family: 4 | 6 } | { ok: false; error: 'dns_failed' | 'unsafe_target' }> {
  const resolved = await resolveTargets(url, policy);
  if (!resolved.ok) return resolved;
  const [first] = resolved.addresses;
  return { ok: true, address: first.address, family: first.family };
}
