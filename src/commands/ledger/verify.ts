/**
 * `payctl ledger verify`: every row of the profile's shared ledger checked (README "Working as a
 * team"; the check: src/payouts/ledger/postgres/signing.ts): how many verify, the rows that do
 * not (payout id, base URL, why: payctl refuses to act on them) and who signed the others (each
 * key's fingerprint, its name when it is this person's, this config folder's ledger key or a
 * member of the policy (the team's in the ledger, else the profile's), the hosts and profiles
 * its rows name, how many rows). Exit 0 when every row verifies, 1 when any does not, 2 when the ledger is local (its journal is
 * checked on every read with its MAC) or cannot be reached.
 */
import { write, type Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { commandLine, invocationOf } from '../../config/command-line.js';
import { ledgerSetting, openSharedLedger } from '../../payouts/open-ledger.js';
import { loadLedgerKey } from '../../payouts/ledger/ledger-key.js';
import type { AuditReport, KnownKey, SignerSeen } from '../../payouts/ledger/postgres/index.js';
import { loadSigningKey } from '../../plans/keys.js';
import type { Policy } from '../../plans/policy.js';
import { effectivePolicy } from '../policy/effective.js';
import { jsonLine } from '../../output/json.js';
import { renderCard, plural, text } from '../../output/text.js';
import { makeStyle, type Style } from '../../output/style.js';

export interface LedgerVerifyOptions {
  _?: never;
}

export async function run(_opts: LedgerVerifyOptions, deps: Deps): Promise<number> {
  // A profile that does not exist is refused (exit 2, the known ones named), not taken for a local one.
  deps.config().getProfile(deps.globals.profile, { readSecrets: false });
  const setting = ledgerSetting(deps);
  if (setting.backend === 'local') {
    const inv = invocationOf(deps.globals, deps.env);
    const why = setting.source === 'env' ? 'PAYCTL_LEDGER_URL is local' : `profile "${deps.globals.profile}" keeps its journal locally`;
    throw new UsageError(
      `Nothing to verify: ${why}, and the local journal is checked on every read with its MAC (journal.key).`,
      [],
      `ledger verify checks a shared ledger: set one with ${commandLine(inv, ['config', 'set', 'ledger'], ['--stdin'])}, or PAYCTL_LEDGER_URL.`,
    );
  }
  const ledger = await openSharedLedger(deps, setting);
  const known = knownKeys(configDir(deps.env), await policyOf(deps), deps);
  const { auditRows } = await import('../../payouts/ledger/postgres/index.js');
  const report = await auditRows(ledger.rows(), known, ledger.url);
  if (deps.globals.json) await write(deps.io.stdout, jsonLine(reportJson(report, deps.globals.profile, ledger.url)));
  else await write(deps.io.stdout, reportText(report, ledger.url, makeStyle(deps.io.color)));
  return report.failures.length ? 1 : 0;
}

/**
 * The policy whose members are named: the team's adopted one in the shared ledger when there is
 * one (every machine goes by it, whatever the profile's file says: effective.ts), else the
 * profile's file. One that cannot be read or checked names nobody (said with --verbose).
 */
async function policyOf(deps: Deps): Promise<Policy | undefined> {
  try {
    return await effectivePolicy(deps);
  } catch (err) {
    deps.log.verbose(`the policy not read (${(err as Error).message}): its members are not named`);
    return undefined;
  }
}

/**
 * The public keys this machine can put a name to: the person's own (`keys create`), this config
 * folder's ledger key, and the members of the policy (policyOf). A key that cannot be read
 * names nobody (said with --verbose): verify still checks every row.
 */
function knownKeys(dir: string, policy: Policy | undefined, deps: Pick<Deps, 'log'>): Map<string, KnownKey> {
  const known = new Map<string, KnownKey>();
  if (policy) for (const m of policy.members.values()) for (const k of m.publicKeys) known.set(k, { name: m.name, source: 'policy' });
  try {
    const ledgerKey = loadLedgerKey(dir);
    if (ledgerKey) known.set(ledgerKey.publicKey, { name: "this config folder's ledger key", source: 'ledger' });
  } catch (err) {
    deps.log.verbose(`ledger key not read: ${(err as Error).message}`);
  }
  try {
    const mine = loadSigningKey(dir);
    if (mine) known.set(mine.publicKey, { name: mine.name, source: 'person' });
  } catch (err) {
    deps.log.verbose(`signing key not read: ${(err as Error).message}`);
  }
  return known;
}

/** Who a signer is, in words. */
function label(s: SignerSeen): string {
  if (!s.known) return 'a key neither yours nor in the policy';
  if (s.known.source === 'person') return `${text(s.known.name)} (your key)`;
  if (s.known.source === 'policy') return `${text(s.known.name)} (in the policy)`;
  return s.known.name;
}

function reportText(r: AuditReport, masked: string, style: Style): string {
  const failed = r.failures.length;
  let out = renderCard(
    [
      ['Ledger', text(masked)],
      ['Rows', `${r.rows}: ${r.verified} verified${failed ? style.red(`, ${failed} ${failed === 1 ? 'does' : 'do'} not`) : ''}`],
    ],
    style,
  );
  if (r.signers.length) {
    out += `\nSigned by:\n`;
    for (const s of r.signers) {
      const where = [s.hosts.length ? `host ${s.hosts.map(text).join(', ')}` : '', s.profiles.length ? `profile ${s.profiles.map(text).join(', ')}` : '']
        .filter(Boolean)
        .join('; ');
      out += `  ${s.fingerprint}  ${label(s)}: ${plural(s.rows, 'row')}${where ? `; ${where}` : ''}\n`;
    }
  }
  if (failed) {
    out += `\n${style.red(`${plural(failed, 'row does', 'rows do')} not verify`)} (changed outside payctl: payctl will not act on ${failed === 1 ? 'it' : 'them'}):\n`;
    for (const f of r.failures) out += `  ${text(f.payoutId)} (${text(f.base)}): ${text(f.reason)}\n`;
  } else if (r.rows) out += `\nEvery row verifies.\n`;
  return out;
}

function reportJson(r: AuditReport, profile: string, masked: string): Record<string, unknown> {
  return {
    profile,
    url: masked,
    rows: r.rows,
    verified: r.verified,
    not_verified: r.failures.map((f) => ({
      payout_id: f.payoutId,
      base_url: f.base,
      problem: f.problem.kind,
      reason: f.reason,
      ...(f.problem.kind === 'other-key' ? { signed_by: f.problem.fingerprint } : {}),
    })),
    signers: r.signers.map((s) => ({
      fingerprint: s.fingerprint,
      public_key: s.publicKey,
      name: s.known?.name ?? null,
      known_as: s.known?.source ?? null,
      rows: s.rows,
      hosts: s.hosts,
      profiles: s.profiles,
    })),
  };
}
