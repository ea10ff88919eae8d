/** The exact command that retries a payout safely: same payout id, same key, same body. */
import type { PayoutRequest } from './request.js';

/** POSIX shell quoting: bare when safe, else single quotes. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_\-.,:/@+=%]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function retryCommand(
  r: PayoutRequest,
  idempotencyKey: string,
  context: { profile?: string; baseUrl?: string },
): string {
  const args: string[] = ['payctl', 'payout', 'create'];
  const add = (flag: string, value: string | undefined) => {
    if (value !== undefined) args.push(flag, shellQuote(value));
  };
  if (context.profile) add('--profile', context.profile);
  if (context.baseUrl) add('--base-url', context.baseUrl);
  add('--wallet', r.walletId);
  add('--amount', r.amount);
  add('--currency', r.currency);
  add('--type', r.type);
  add('--name', r.name);
  add('--provider', r.provider);
  add('--account', r.account);
  add('--phone', r.phone);
  add('--note', r.note);
  for (const [k, v] of Object.entries(r.metadata ?? {})) add('--metadata', `${k}=${v}`);
  add('--payout-id', r.payoutId);
  add('--idempotency-key', idempotencyKey);
  args.push('--yes');
  return args.join(' ');
}
