import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { InvalidArgument } from '@svc/kit';

/**
 * The SSRF guard of partner endpoints (docs/partner-webhooks.md): a provider's URL must be HTTPS and every address its
 * host resolves to must be public unicast. Loopback, private, link-local (cloud metadata at 169.254.169.254),
 * carrier-grade NAT, unique-local, multicast, reserved and the IPv6 transition ranges are refused; an IPv4-mapped IPv6
 * address is judged as the IPv4 address it maps. `allowInsecure` (PARTNER_WEBHOOK_INSECURE_URLS, refused in
 * production) lets tests and local development send plain HTTP to their own receivers.
 */
export interface EndpointPolicy {
  allowInsecure: boolean;
}

/** Whether `address` (an IP literal) is a public unicast address. ipaddr.js classifies the ranges (RFC 6890). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** Refuses a URL that is not an absolute HTTPS URL without credentials (INVALID_ARGUMENT naming `url`). */
export function parseEndpointUrl(raw: string, policy: EndpointPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgument('url is not an absolute URL', { field: 'url' });
  }
  const schemes = policy.allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new InvalidArgument('url must use https', { field: 'url' });
  if (url.username || url.password) throw new InvalidArgument('url must not carry credentials', { field: 'url' });
  if (raw.length > 2048) throw new InvalidArgument('url is longer than 2048 characters', { field: 'url' });
  return url;
}

/**
 * The addresses to connect to for `url`, each checked: an IP literal as written, a name as resolved now (checked at
 * every attempt, so a name re-pointed at an internal address after registration is refused then too). Throws
 * INVALID_ARGUMENT naming `url` when one is not public (unless `allowInsecure`).
 */
export async function resolveEndpoint(url: URL, policy: EndpointPolicy): Promise<string[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  if (!policy.allowInsecure) {
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused !== undefined)
      throw new InvalidArgument(`url resolves to a non-public address (${refused})`, { field: 'url' });
  }
  return addresses;
}
