/**
 * The duplicate guard of a batch file (README "identical rows"): rows of one file that pay the
 * same are listed before anything is sent, and `payout batch` sends them only after a
 * confirmation at a terminal or with --allow-duplicates (commands/payout/batch.ts); `plan create`
 * warns of them. "The same" is as the repeat guard compares payouts: everything a row pays
 * (identity.ts payoutFingerprint) with its account as comparedAccount writes it, so two rows whose
 * accounts differ only in letter case, spaces or dashes (`sl55abcd0002` and `SL55-ABCD-0002`, one
 * account to the service) are one payout written twice, and said so. Identity does not follow:
 * each row keeps its payout id, key and body as written, and the occurrence that tells rows
 * identical as written apart (batch-source.ts) counts those rows only.
 */
import { formatAmount } from '../money/amount.js';
import { text } from '../output/text.js';
import { comparedAccount, comparedFingerprint } from './identity.js';
import type { PayoutRequest } from './request.js';

/** What a row pays as the guard compares it: its fingerprint, or, for an account written otherwise than compared, its comparedFingerprint. */
export function sameKey(r: { request: PayoutRequest; fingerprint: string }): string {
  return comparedAccount(r.request.account) === r.request.account ? r.fingerprint : comparedFingerprint(r.request);
}

/** A group of rows that pay the same: their row numbers, the account as each wrote it, and what the first pays. */
export interface DuplicateGroup {
  rows: number[];
  /** The account as each row of `rows` wrote it: more than one form when the rows are identical only as compared. */
  accounts: string[];
  request: PayoutRequest;
  /** Some row of the group is still to be sent. */
  pending: boolean;
}

/** The groups of a file's rows, gathered row by row from the same keys the check found on two or more rows (BatchCheck.alike). */
export class DuplicateGroups {
  readonly #groups = new Map<string, DuplicateGroup>();

  constructor(private readonly alike: ReadonlySet<string>) {}

  /** A row of the file (`pending`: still to send); nothing for a row no other pays the same as. */
  add(r: { row: number; request: PayoutRequest; fingerprint: string }, pending: boolean): void {
    if (!this.alike.size) return;
    const key = sameKey(r);
    if (!this.alike.has(key)) return;
    const g = this.#groups.get(key);
    if (!g) this.#groups.set(key, { rows: [r.row], accounts: [r.request.account], request: r.request, pending });
    else {
      g.rows.push(r.row);
      g.accounts.push(r.request.account);
      g.pending ||= pending;
    }
  }

  /** The groups of two or more rows, in the order of their first rows. */
  groups(): DuplicateGroup[] {
    return [...this.#groups.values()].filter((g) => g.rows.length > 1);
  }
}

/** "rows 3 and 9", "rows 3, 9 and 12" */
function rowList(rows: number[]): string {
  const n = rows.map(String);
  return n.length === 1 ? `row ${n[0]}` : `rows ${n.slice(0, -1).join(', ')} and ${n.at(-1)}`;
}

/**
 * "rows 4 and 5 are identical: 300.00 SLE from 6643665465 to Fatmata Conteh (ecobank 0123456789)";
 * for rows whose accounts are written differently, how each wrote it: "rows 2 and 3 are identical
 * but for how the account is written ("sl55abcd0002" on row 2, "SL55-ABCD-0002" on row 3: one
 * account to the service): 416.00 SLE from 6643665465 to Lamin Jalloh (ecobank)".
 */
export function describeGroup(g: DuplicateGroup): string {
  const r = g.request;
  const forms = new Map<string, number[]>();
  g.accounts.forEach((a, i) => forms.set(a, [...(forms.get(a) ?? []), g.rows[i]!]));
  const paid = `${formatAmount(r.amount, r.currency)} ${r.currency} from ${text(r.walletId)} to ${text(r.name)}`;
  if (forms.size < 2) return `${rowList(g.rows)} are identical: ${paid} (${r.provider} ${text(r.account)})`;
  const written = [...forms].map(([a, rows]) => `"${text(a)}" on ${rowList(rows)}`).join(', ');
  return `${rowList(g.rows)} are identical but for how the account is written (${written}: one account to the service): ${paid} (${r.provider})`;
}
