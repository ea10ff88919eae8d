/**
 * Providers in `payctl payout create`, in process against the sandbox: the interactive
 * list offers the recipient type's providers (wallets for a mobile-money recipient, banks
 * for a bank account); a provider close to a known one is asked about at a terminal ("Did
 * you mean orange_money?", default yes) and warned about otherwise, and then sent as typed
 * (the provider list is open).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { payctl, startPayctl } from '../helpers/in-process.js';
import { warningsOf } from '../helpers/stderr-json.js';
import { payoutPosts } from '../helpers/batch.js';
import { escapeRe, loginInProcess } from '../helpers/payout-fixtures.js';
import { recordingPrompter } from '../helpers/recording-prompter.js';
import type { Step } from '../helpers/prompts.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { PROVIDERS } from '../../src/payouts/providers.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  await loginInProcess(ctx.sb, dir);
  ctx.sb.clearRequests();
});

afterEach(() => cleanup());

async function atTerminal(args: string[], script: Step[]) {
  const prompter = recordingPrompter(script);
  const started = startPayctl(args, { dir, prompts: prompter });
  prompter.output = started;
  const r = await started.done;
  expect(prompter.pending, r.stderr).toEqual([]);
  return { r, prompter };
}

/** The provider each POST /payout carried. */
function postedProviders(): string[] {
  return payoutPosts(ctx.sb).map((p) => (JSON.parse(p.body) as { recipient: { accountDetails: { provider: string } } }).recipient.accountDetails.provider);
}

const DID_YOU_MEAN = /^Provider "orang_money" is not one payctl knows\. Did you mean orange_money\?$/;
const WARNING = 'Warning: provider "orang_money" is not one payctl knows; did you mean orange_money?\n';

/** A wallet payout with every flag; `provider` as given. */
function walletFlags(walletId: string, provider: string): string[] {
  return [
    'payout',
    'create',
    '--wallet',
    walletId,
    '--amount',
    '25.00',
    '--currency',
    'SLE',
    '--type',
    'wallet',
    '--name',
    'Aminata Kamara',
    '--provider',
    provider,
    '--account',
    '076123456',
    '--phone',
    '+23276123456',
    '--note',
    'stipend',
  ];
}

describe('the interactive provider list follows the recipient type', () => {
  /** The whole flow for a recipient of `type`, provider typed as `provider`, then `confirm`. */
  function flow(walletId: string, type: 'wallet' | 'bank', provider: string, extra: Step[], confirm: boolean): Step[] {
    return [
      { select: /^Pay from which wallet\?$/, pick: new RegExp(`\\(${escapeRe(walletId)}\\)`) },
      { select: /^Recipient type$/, pick: type === 'wallet' ? /^Mobile-money wallet$/ : /^Bank account$/ },
      { input: /^Recipient's full name$/, answer: 'Aminata Kamara' },
      { suggest: /^Provider \(type to search, or enter another\)$/, answer: provider },
      ...extra,
      { input: /^Account number$/, answer: '076123456' },
      ...(type === 'wallet' ? [{ input: /^Phone number/, answer: '+23276123456' }] : []),
      { input: /^Amount in SLE$/, answer: '25.00' },
      { input: /^Note or payment reference \(optional\)$/, answer: '' },
      { confirm: /^Send this payout\?$/, answer: confirm },
    ];
  }

  it('a mobile-money recipient is offered wallet providers only, no bank', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const { r, prompter } = await atTerminal(['payout', 'create'], flow(walletId, 'wallet', 'qmoney', [], false));
    const suggestions = prompter.call(/^Provider/).suggestions!;
    expect(suggestions).toEqual([...PROVIDERS.wallet]);
    expect(suggestions).toEqual(expect.arrayContaining(['afrimoney', 'orange_money', 'qmoney']));
    for (const bank of ['ecobank', 'skybank', 'uba']) expect(suggestions).not.toContain(bank);
    expect(r.stdout).toMatch(/^Provider\s+qmoney$/m);
    expect(r.code, r.stderr).toBe(2);
    expect(payoutPosts(ctx.sb)).toEqual([]);
  });

  it('a bank recipient is offered banks only, no wallet provider', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const { r, prompter } = await atTerminal(['payout', 'create'], flow(walletId, 'bank', 'uba', [], true));
    const suggestions = prompter.call(/^Provider/).suggestions!;
    expect(suggestions).toEqual([...PROVIDERS.bank]);
    expect(suggestions).toEqual(expect.arrayContaining(['ecobank', 'skybank', 'uba']));
    for (const wallet of ['afrimoney', 'orange_money', 'qmoney']) expect(suggestions).not.toContain(wallet);
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['uba']);
  });

  it('--type given as a flag: its providers are offered', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const { r, prompter } = await atTerminal(
      ['payout', 'create', '--type', 'bank', '--wallet', walletId, '--amount', '5', '--name', 'Ibrahim Conteh', '--account', '5401234567', '--note', 'x'],
      [
        { suggest: /^Provider/, answer: 'ecobank' },
        { confirm: /^Send this payout\?$/, answer: false },
      ],
    );
    expect(prompter.call(/^Provider/).suggestions).toEqual([...PROVIDERS.bank]);
    expect(r.code, r.stderr).toBe(2);
  });

  it('a provider typed close to a known one is asked about, default yes; yes sends the known one', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const { r, prompter } = await atTerminal(['payout', 'create'], flow(walletId, 'wallet', 'orang money', [{ confirm: DID_YOU_MEAN, answer: true }], true));
    expect(prompter.call(/Did you mean/).default).toBe(true);
    // Asked right after the provider, before the account.
    expect(prompter.asked.indexOf(prompter.call(/Did you mean/).message)).toBe(prompter.asked.indexOf('Provider (type to search, or enter another)') + 1);
    expect(prompter.call(/^Send this payout\?$/).stdout).toMatch(/^Provider\s+orange_money$/m);
    expect(r.stderr).not.toContain('Warning');
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['orange_money']);
  });

  it('no keeps the provider as typed, and it is sent so', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const { r, prompter } = await atTerminal(['payout', 'create'], flow(walletId, 'wallet', 'orang money', [{ confirm: DID_YOU_MEAN, answer: false }], true));
    expect(prompter.call(/^Send this payout\?$/).stdout).toMatch(/^Provider\s+orang_money$/m);
    expect(r.stderr).not.toContain('Warning');
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['orang_money']);
  });

  it('a known provider, or one close to none, is not asked about', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const { r } = await atTerminal(['payout', 'create'], flow(walletId, 'wallet', 'Vodafone Cash', [], true));
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['vodafone_cash']);
  });
});

describe('a --provider close to a known one', () => {
  it('at a terminal: asked before the confirmation; yes sends the known one', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const { r, prompter } = await atTerminal(walletFlags(walletId, 'orang money'), [
      { confirm: DID_YOU_MEAN, answer: true },
      { confirm: /^Send this payout\?$/, answer: true },
    ]);
    expect(prompter.call(/Did you mean/).default).toBe(true);
    expect(prompter.call(/^Send this payout\?$/).stdout).toMatch(/^Provider\s+orange_money$/m);
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['orange_money']);
  });

  it('at a terminal with --yes: still asked (the yes is for sending), no keeps it as typed', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const { r } = await atTerminal([...walletFlags(walletId, 'orang money'), '--yes'], [{ confirm: DID_YOU_MEAN, answer: false }]);
    expect(r.stderr).not.toContain('Warning');
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['orang_money']);
  });

  it('without a terminal: a warning on stderr, and it is sent as typed', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const r = await payctl([...walletFlags(walletId, 'orang money'), '--yes'], { dir });
    expect(r.stderr.startsWith(WARNING), r.stderr).toBe(true);
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['orang_money']);
  });

  it('at a terminal with --no-input: warned, never asked (any prompt would fail the run)', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const { r, prompter } = await atTerminal([...walletFlags(walletId, 'orang money'), '--yes', '--no-input'], []);
    expect(prompter.asked).toEqual([]);
    expect(r.stderr).toContain(WARNING);
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['orang_money']);
  });

  it('with --json: the warning on stderr, stdout one JSON document', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const r = await payctl([...walletFlags(walletId, 'orang money'), '--yes', '--json'], { dir, tty: { stdin: true, stdout: true } });
    expect(warningsOf(r.stderr)).toEqual([WARNING.replace(/^Warning: /, '').trimEnd()]);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['orang_money']);
  });

  it('a known provider gets no warning', async () => {
    const walletId = freshWallet(ctx.sb, '500.00', 'SLE');
    const r = await payctl([...walletFlags(walletId, 'Orange Money'), '--yes'], { dir });
    expect(r.stderr).not.toContain('Warning');
    expect(r.code, r.stderr).toBe(0);
    expect(postedProviders()).toEqual(['orange_money']);
  });
});
