/**
 * The Host allow-list (DNS rebinding): a page at http://attacker.test whose name the attacker
 * points at this server's address reaches it with `Host: attacker.test`, and the browser treats
 * the answers as that page's own. Every route answers only requests addressed to a name the
 * service is known by: PUBLIC_BASE_URL's host, the names in ARCHIVE_ALLOWED_HOSTS, and the
 * loopback names (localhost, 127.0.0.0/8, ::1; a page can only be addressed to those by a
 * browser on this machine, under its own loopback origin). Behind a trusted proxy the forwarded
 * host counts (Fastify's `request.host`). Pure.
 */

/** The host name of a Host header value ("Example.org:8443" -> "example.org"; "[::1]:80" -> "::1"). */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(1, end) : h;
  }
  const colon = h.lastIndexOf(':');
  // A bare IPv6 address has several colons; a port follows the only one.
  if (colon > 0 && h.indexOf(':') === colon && /^[0-9]*$/.test(h.slice(colon + 1))) return h.slice(0, colon);
  return h.replace(/\.$/, '');
}

const LOOPBACK_V4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function isLoopback(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || LOOPBACK_V4.test(name);
}

/**
 * A predicate over Host header values: true when the request is addressed to a name the service is
 * known by. `extra`: ARCHIVE_ALLOWED_HOSTS (names, `.example.org` for its subdomains too, or `*`
 * for any name, which turns the check off). A request without a Host (HTTP/1.0) is allowed: the
 * server factory already refuses HTTP/1.1 without one.
 */
export function hostAllowList(publicBaseUrl: string, extra: readonly string[]): (host: string | undefined) => boolean {
  if (extra.includes('*')) return () => true;
  const exact = new Set([new URL(publicBaseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '')]);
  const suffixes: string[] = [];
  for (const e of extra) {
    const name = e.toLowerCase();
    if (name.startsWith('.')) suffixes.push(name);
    else exact.add(hostName(name));
  }
  return (host) => {
    if (host === undefined) return true;
    const name = hostName(host);
    if (exact.has(name) || isLoopback(name)) return true;
    return suffixes.some((s) => name.endsWith(s) || name === s.slice(1));
  };
}
