/**
 * Profile "sandbox", which `payctl sandbox start` writes, and when the default profile follows
 * it. On a machine with no other profile the sandbox is made the default too, so that a bare
 * `payctl balances` works right after `sandbox start`; a default profile of anyone's own
 * (pointing at the service, or anywhere but the sandbox) is never replaced. `payctl login`
 * of the default profile then sets up the account in its place (login.ts).
 */
import { DEFAULT_PROFILE } from './known-profiles.js';
import { isLoopbackHost } from './resolve.js';
import type { ConfigStore } from './store.js';

export const SANDBOX_PROFILE = 'sandbox';

/** What `sandbox start` saves: where the sandbox listens and what it accepts. */
export interface SandboxSettings {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
}

function onLoopback(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Whether the default profile points at the sandbox (the one profile "sandbox" names, on a
 * loopback address): a copy `sandbox start` made, which it may refresh and login may replace.
 */
export function defaultFollowsSandbox(store: ConfigStore): boolean {
  const def = store.getProfile(DEFAULT_PROFILE, { readSecrets: false });
  const sandbox = store.getProfile(SANDBOX_PROFILE, { readSecrets: false, mayBeNew: true });
  return def?.baseUrl !== undefined && def.baseUrl === sandbox?.baseUrl && onLoopback(def.baseUrl);
}

/**
 * Saves profile "sandbox"; and the default profile too when there is no other profile (a
 * fresh machine) or the default already follows the sandbox (a sandbox started again, maybe
 * on another port). True when the default profile now points at this sandbox.
 */
export async function saveSandboxProfile(store: ConfigStore, s: SandboxSettings): Promise<boolean> {
  const follows = store.profileNames().every((name) => name === SANDBOX_PROFILE) || defaultFollowsSandbox(store);
  await store.updateProfile(SANDBOX_PROFILE, { baseUrl: s.baseUrl, apiKey: s.apiKey, webhookSecret: s.webhookSecret });
  if (follows) await store.updateProfile(DEFAULT_PROFILE, { baseUrl: s.baseUrl, apiKey: s.apiKey, webhookSecret: s.webhookSecret });
  return follows;
}
