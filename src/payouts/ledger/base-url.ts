/**
 * The ledger's view of a base URL (docs/architecture.md, "The ledger"): entries are filed and
 * compared under it, so one service under two spellings keeps one entry per payout. Shared by
 * every store of the ledger, by plans and by the policy.
 */

/**
 * The base URL normalized: scheme and host lowercased, no default port, no trailing slash,
 * and the loopback names (localhost, 127.0.0.1, [::1]) as one.
 */
export function journalBase(baseUrl: string): string {
  let base = journalBases.get(baseUrl);
  if (base === undefined) {
    base = normalizedBase(baseUrl);
    // A process talks to one or two services: the few answers are kept (each look-up asks).
    if (journalBases.size > 64) journalBases.clear();
    journalBases.set(baseUrl, base);
  }
  return base;
}

const journalBases = new Map<string, string>();

function normalizedBase(baseUrl: string): string {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return baseUrl;
  }
  const host = u.hostname.toLowerCase();
  const name = host === 'localhost' || host === '127.0.0.1' || host === '[::1]' ? 'localhost' : host;
  return `${u.protocol}//${name}${u.port ? `:${u.port}` : ''}${u.pathname.replace(/\/+$/, '')}`;
}
