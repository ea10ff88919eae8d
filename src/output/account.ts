/**
 * Whose the API key is, as `login` and `status` show it (GET /auth/user): business name, the
 * person, email, wallet id and KYC status. A KYC status other than verified or approved is a
 * warning: such an account may not be able to pay out, its word written with visible escapes
 * (an invisible character in it is why). Service text is sanitized.
 */
import { kycVerified, type AuthUser } from '../service/schemas.js';
import { visibleWord } from '../words.js';
import type { Style } from './style.js';
import { text } from './text.js';

/** The account's lines for a card; fields the service left out are not shown. */
export function accountPairs(u: AuthUser, style: Style): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const add = (label: string, value: string | number | null | undefined) => {
    if (value !== undefined && value !== null && String(value) !== '') pairs.push([label, text(String(value))]);
  };
  add('Business', u.businessName);
  add('Name', [u.firstName, u.lastName].filter(Boolean).join(' '));
  add('Email', u.email);
  add('Wallet ID', u.walletId);
  add('Account', u.status);
  if (u.kycStatus) pairs.push(['KYC', kycVerified(u.kycStatus) ? style.green(text(u.kycStatus)) : style.yellow(`${visibleWord(u.kycStatus.trim())} (not verified)`)]);
  return pairs;
}

/** The warning for an account whose KYC is not verified; undefined when it is, or when not given. */
export function kycWarning(u: AuthUser): string | undefined {
  if (!u.kycStatus || kycVerified(u.kycStatus)) return undefined;
  return `The account's KYC status is "${visibleWord(u.kycStatus.trim())}", not verified: the service may refuse payouts until it is.`;
}

/** The account as `--json` output shows it: the fields payctl reads, as the service gave them. */
export function accountJson(u: AuthUser): Record<string, unknown> {
  return {
    business_name: u.businessName ?? null,
    first_name: u.firstName ?? null,
    last_name: u.lastName ?? null,
    email: u.email ?? null,
    wallet_id: u.walletId === undefined || u.walletId === null ? null : String(u.walletId),
    account_status: u.status ?? null,
    kyc_status: u.kycStatus ?? null,
    kyc_verified: kycVerified(u.kycStatus),
  };
}
