/**
 * Fixtures shared by the payout tests (in process): a logged-in config folder made by
 * `payctl login --api-key-stdin` run in process, and what the sandbox holds for a payout
 * id or a wallet.
 */
import { expect } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { payctl } from './in-process.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `payctl login --api-key-stdin --base-url <sandbox>` in process, checked. */
export async function loginInProcess(sb: Sandbox, dir: string): Promise<void> {
  const r = await payctl(['login', '--api-key-stdin', '--base-url', sb.baseUrl], { dir, input: sb.apiKey + '\n' });
  expect(r.stderr).toContain('Logged in');
  expect(r.code, r.stderr).toBe(0);
}

/** The payouts the sandbox holds with this payout id. */
export function heldFor(sb: Sandbox, payoutId: string) {
  return sb.payouts().filter((p) => p.payout_id === payoutId);
}

/** The payouts the sandbox holds from this wallet. */
export function heldFrom(sb: Sandbox, walletId: string) {
  return sb.payouts().filter((p) => p.wallet_id === walletId);
}

export function walletOf(sb: Sandbox, walletId: string) {
  const w = sb.wallets().find((x) => x.wallet_id === walletId);
  if (!w) throw new Error(`no wallet ${walletId}`);
  return w;
}

export function balanceMinor(sb: Sandbox, walletId: string): bigint {
  return walletOf(sb, walletId).balance_minor;
}

/** Escapes text for a RegExp. */
export const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
