/**
 * Parser tests (argv -> options) for every command of the tree, in the manner of gh's
 * TestNewCmdClose: the real tree from buildProgram, with a runner that captures what the
 * command module would get instead of running it (test/helpers/parse.ts). Each command:
 * its defaults, every flag (short, negatable, repeatable) and its positional arguments.
 * The expected objects are checked against each command's options type (`satisfies`), so
 * a flag whose name the command does not read fails the type check.
 * The last test fails when a command of the tree has no parser test here.
 */
import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { commandPaths, covered, parse, refuse } from '../helpers/parse.js';
import type { PlanCreateOptions } from '../../src/commands/plan/create.js';
import type { PlanShowOptions } from '../../src/commands/plan/show.js';
import type { PlanApproveOptions } from '../../src/commands/plan/approve.js';
import type { PlanMergeOptions } from '../../src/commands/plan/merge.js';
import type { PlanSendOptions } from '../../src/commands/plan/send.js';
import type { KeysCreateOptions } from '../../src/commands/keys/create.js';
import type { PolicyCheckOptions } from '../../src/commands/policy/check.js';
import type { PolicyProposeOptions } from '../../src/commands/policy/propose.js';
import type { PolicyApproveOptions } from '../../src/commands/policy/approve.js';
import { usageHint } from '../helpers/usage-hint.js';
import { GROUPS } from './minimal.js';
import type { LoginOptions } from '../../src/commands/login.js';
import type { BalancesOptions } from '../../src/commands/balances.js';
import type { PayoutCreateOptions } from '../../src/commands/payout/create.js';
import type { PayoutBatchOptions } from '../../src/commands/payout/batch.js';
import type { BatchStatusOptions } from '../../src/commands/payout/batch-status.js';
import type { PayoutGetOptions } from '../../src/commands/payout/get.js';
import type { PayoutsListOptions } from '../../src/commands/payouts/list.js';
import type { SummaryOptions } from '../../src/commands/summary.js';
import type { HistoryOptions } from '../../src/commands/history.js';
import type { ListenOptions } from '../../src/commands/webhooks/listen.js';
import type { StartOptions } from '../../src/commands/sandbox/start.js';

describe('login', () => {
  it('defaults: no flags', async () => {
    const p = await parse('login');
    expect(p.path).toBe('login');
    expect(p.opts).toEqual({} satisfies LoginOptions);
  });

  it('--api-key-stdin and --insecure-storage', async () => {
    const p = await parse('login', '--api-key-stdin', '--insecure-storage');
    expect(p.opts).toEqual({ apiKeyStdin: true, insecureStorage: true } satisfies LoginOptions);
  });

  it('--base-url (global) is where login takes the URL from, before or after the verb', async () => {
    const before = await parse('--base-url', 'https://api.example.com/v2', 'login');
    const after = await parse('login', '--base-url', 'https://api.example.com/v2');
    expect(before.globals().baseUrl).toBe('https://api.example.com/v2');
    expect(after.globals().baseUrl).toBe('https://api.example.com/v2');
    expect(after.opts).toEqual({});
  });
});

describe('logout and status', () => {
  it('logout: no options of its own', async () => {
    const p = await parse('logout');
    expect(p.path).toBe('logout');
    expect(p.opts).toEqual({});
  });

  it('status: no options of its own', async () => {
    const p = await parse('status');
    expect(p.path).toBe('status');
    expect(p.opts).toEqual({});
  });
});

describe('balances', () => {
  it('defaults: every wallet', async () => {
    const p = await parse('balances');
    expect(p.opts).toEqual({} satisfies BalancesOptions);
  });

  it('--currency and --wallet', async () => {
    const p = await parse('balances', '--currency', 'SLE', '--wallet', '5553881136');
    expect(p.opts).toEqual({ currency: 'SLE', wallet: '5553881136' } satisfies BalancesOptions);
  });

  it('--flag=value form', async () => {
    const p = await parse('balances', '--currency=NGN');
    expect(p.opts).toEqual({ currency: 'NGN' } satisfies BalancesOptions);
  });
});

describe('payout create', () => {
  it('defaults: nothing but an empty metadata list (every field is asked for or validated later)', async () => {
    const p = await parse('payout', 'create');
    expect(p.path).toBe('payout create');
    expect(p.opts).toEqual({ metadata: [] } satisfies PayoutCreateOptions);
  });

  it('every flag maps to its field, values kept as typed (amount stays a string)', async () => {
    const p = await parse(
      'payout',
      'create',
      '--wallet',
      '5553881136',
      '--amount',
      '1500.50',
      '--currency',
      'SLE',
      '--type',
      'wallet',
      '--name',
      'Aminata Kamara',
      '--provider',
      'orange_money',
      '--account',
      '076123456',
      '--phone',
      '+23276123456',
      '--note',
      'October stipend',
      '--metadata',
      'batch=oct-stipends',
      '--payout-id',
      'stipend-2026-10-017',
      '--idempotency-key',
      '0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e',
      '--yes',
      '--allow-repeat',
      '--acknowledge-missing',
    );
    expect(p.opts).toEqual({
      wallet: '5553881136',
      amount: '1500.50',
      currency: 'SLE',
      type: 'wallet',
      name: 'Aminata Kamara',
      provider: 'orange_money',
      account: '076123456',
      phone: '+23276123456',
      note: 'October stipend',
      metadata: ['batch=oct-stipends'],
      payoutId: 'stipend-2026-10-017',
      idempotencyKey: '0b5c9d1e-4f7a-4c1e-9d8e-2b1f3a4c5d6e',
      yes: true,
      allowRepeat: true,
      acknowledgeMissing: true,
    } satisfies PayoutCreateOptions);
  });

  it('-y is --yes', async () => {
    const p = await parse('payout', 'create', '-y');
    expect(p.opts).toEqual({ metadata: [], yes: true } satisfies PayoutCreateOptions);
  });

  it('--metadata is repeatable and keeps every pair in order (a later one does not replace an earlier one)', async () => {
    const p = await parse('payout', 'create', '--metadata', 'a=1', '--metadata', 'b=2', '--metadata=a=3');
    expect(p.opts.metadata).toEqual(['a=1', 'b=2', 'a=3']);
  });

  it('the metadata list is fresh on every parse (the default array is not shared between runs)', async () => {
    await parse('payout', 'create', '--metadata', 'leak=1');
    const p = await parse('payout', 'create');
    expect(p.opts.metadata).toEqual([]);
  });

  it('--type is not restricted by the parser: a bad type reaches validation, which lists it with every other problem', async () => {
    const p = await parse('payout', 'create', '--type', 'cash', '--amount', 'abc');
    expect(p.opts).toEqual({ metadata: [], type: 'cash', amount: 'abc' } satisfies PayoutCreateOptions);
  });

  it('an amount that looks like a negative number is taken as the value, not as an option', async () => {
    const p = await parse('payout', 'create', '--amount', '-5');
    expect(p.opts.amount).toBe('-5');
  });

  it('a value with spaces, quotes and a leading dash after = is kept exactly', async () => {
    const p = await parse('payout', 'create', '--note=-refund "Q4" ', '--name', "O'Brien  Jr.");
    expect(p.opts).toEqual({ metadata: [], note: '-refund "Q4" ', name: "O'Brien  Jr." } satisfies PayoutCreateOptions);
  });

  it('a flag given twice: the last value wins', async () => {
    const p = await parse('payout', 'create', '--amount', '1', '--amount', '2');
    expect(p.opts.amount).toBe('2');
  });
});

describe('payout batch', () => {
  it('defaults: the file, concurrency 4', async () => {
    const p = await parse('payout', 'batch', 'stipends.csv');
    expect(p.path).toBe('payout batch');
    expect(p.opts).toEqual({ file: 'stipends.csv', concurrency: 4 } satisfies PayoutBatchOptions);
    expect(p.args).toEqual({ file: 'stipends.csv' });
  });

  it('every flag maps to its field; --concurrency is a number', async () => {
    const p = await parse(
      'payout',
      'batch',
      'stipends.csv',
      '--batch-id',
      '2026-11-stipends',
      '--concurrency',
      '8',
      '--report',
      'out.jsonl',
      '--dry-run',
      '--allow-duplicates',
      '--acknowledge-missing',
      '--yes',
    );
    expect(p.opts).toEqual({
      file: 'stipends.csv',
      batchId: '2026-11-stipends',
      concurrency: 8,
      report: 'out.jsonl',
      dryRun: true,
      allowDuplicates: true,
      acknowledgeMissing: true,
      yes: true,
    } satisfies PayoutBatchOptions);
  });

  it('-y is --yes; flags may come before the file', async () => {
    const p = await parse('payout', 'batch', '-y', '--concurrency', '1', 'rows.jsonl');
    expect(p.opts).toEqual({ file: 'rows.jsonl', concurrency: 1, yes: true } satisfies PayoutBatchOptions);
  });

  it('--concurrency bounds are inclusive: 1 and 64', async () => {
    expect((await parse('payout', 'batch', 'f.csv', '--concurrency', '1')).opts.concurrency).toBe(1);
    expect((await parse('payout', 'batch', 'f.csv', '--concurrency', '64')).opts.concurrency).toBe(64);
  });

  it('a file named like an option is reachable after --', async () => {
    const p = await parse('payout', 'batch', '--', '--dry-run');
    expect(p.opts).toEqual({ file: '--dry-run', concurrency: 4 } satisfies PayoutBatchOptions);
  });
});

describe('payout batch status', () => {
  it('defaults: the report, concurrency 4', async () => {
    const p = await parse('payout', 'batch', 'status', 'stipends.report.csv');
    expect(p.path).toBe('payout batch status');
    expect(p.opts).toEqual({ report: 'stipends.report.csv', concurrency: 4 } satisfies BatchStatusOptions);
    expect(p.cmd.parent?.name()).toBe('batch');
  });

  it('every flag maps to its field; --concurrency and --wait-timeout are numbers', async () => {
    const p = await parse('payout', 'batch', 'status', 'r.jsonl', '--concurrency', '8', '--wait', '--wait-timeout', '2.5', '--failed-out', 'failed.jsonl');
    expect(p.opts).toEqual({ report: 'r.jsonl', concurrency: 8, wait: true, waitTimeout: 2.5, failedOut: 'failed.jsonl' } satisfies BatchStatusOptions);
  });

  it('flags before the report and global options after the verb', async () => {
    const p = await parse('payout', 'batch', 'status', '--wait', 'r.csv', '--json', '-p', 'prod');
    expect(p.path).toBe('payout batch status');
    expect(p.opts).toEqual({ report: 'r.csv', concurrency: 4, wait: true } satisfies BatchStatusOptions);
    expect(p.globals()).toMatchObject({ profile: 'prod', json: true });
  });

  it('--wait-timeout needs --wait; --concurrency is bounded', async () => {
    expect((await refuse('payout', 'batch', 'status', 'r.csv', '--wait-timeout', '5')).message).toMatch(/--wait-timeout needs --wait/);
    expect((await refuse('payout', 'batch', 'status', 'r.csv', '--concurrency', '0')).code).toBe('commander.invalidArgument');
  });

  it('the report is required', async () => {
    expect((await refuse('payout', 'batch', 'status')).code).toBe('commander.missingArgument');
  });

  it("batch's own options before the verb are refused, not ignored", async () => {
    const r = await refuse('payout', 'batch', '--yes', 'status', 'r.csv');
    expect(r.code).toBe('commander.unknownOption');
    expect(r.message).toBe("--yes is an option of 'batch', not of 'batch status'");
  });

  it('payout batch <file> parses as before; a file named status is sent as ./status', async () => {
    const plain = await parse('payout', 'batch', 'file.csv');
    expect(plain.path).toBe('payout batch');
    expect(plain.opts).toEqual({ file: 'file.csv', concurrency: 4 } satisfies PayoutBatchOptions);
    const named = await parse('payout', 'batch', './status', '--yes', '--concurrency', '2');
    expect(named.path).toBe('payout batch');
    expect(named.opts).toEqual({ file: './status', concurrency: 2, yes: true } satisfies PayoutBatchOptions);
    const after = await parse('payout', 'batch', 'file.csv', '--report', 'status', '--dry-run');
    expect(after.path).toBe('payout batch');
    expect(after.opts).toEqual({ file: 'file.csv', concurrency: 4, report: 'status', dryRun: true } satisfies PayoutBatchOptions);
  });
});

describe('payout get', () => {
  it('the id is the positional argument', async () => {
    const p = await parse('payout', 'get', 'TXN-BOK-FF051A7F00A49EB6AF225D10EA');
    expect(p.path).toBe('payout get');
    expect(p.opts).toEqual({ id: 'TXN-BOK-FF051A7F00A49EB6AF225D10EA' } satisfies PayoutGetOptions);
  });

  it('an id that begins with a dash is reachable after --', async () => {
    const p = await parse('payout', 'get', '--', '-abc');
    expect(p.opts).toEqual({ id: '-abc' } satisfies PayoutGetOptions);
  });
});

describe('payouts list', () => {
  it('defaults: no filters, no limit or page (the command picks 20, or 100 with --all)', async () => {
    const p = await parse('payouts', 'list');
    expect(p.path).toBe('payouts list');
    expect(p.opts).toEqual({} satisfies PayoutsListOptions);
  });

  it('every flag maps to its field; --limit and --page are numbers', async () => {
    const p = await parse(
      'payouts',
      'list',
      '--status',
      'Pending',
      '--wallet',
      '5564222970',
      '--currency',
      'SLE',
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-30T23:59:59Z',
      '--limit',
      '100',
      '--page',
      '3',
      '--all',
      '--csv',
    );
    expect(p.opts).toEqual({
      status: 'Pending',
      wallet: '5564222970',
      currency: 'SLE',
      from: '2026-11-01',
      to: '2026-11-30T23:59:59Z',
      limit: 100,
      page: 3,
      all: true,
      csv: true,
    } satisfies PayoutsListOptions);
  });

  it('--limit 1 and --page 1 are the smallest accepted', async () => {
    const p = await parse('payouts', 'list', '--limit', '1', '--page', '1');
    expect(p.opts).toEqual({ limit: 1, page: 1 } satisfies PayoutsListOptions);
  });
});

describe('history', () => {
  it('defaults: no filters (every profile unless --profile is given)', async () => {
    const p = await parse('history');
    expect(p.path).toBe('history');
    expect(p.opts).toEqual({} satisfies HistoryOptions);
  });

  it('every flag maps to its field; values kept as typed (checked by the run)', async () => {
    const p = await parse('history', '--since', '2026-11-01', '--until', '2026-11-30T23:59:59Z', '--status', 'not-made', '--batch-id', 'oct-stipends', '--csv');
    expect(p.opts).toEqual({
      since: '2026-11-01',
      until: '2026-11-30T23:59:59Z',
      status: 'not-made',
      batchId: 'oct-stipends',
      csv: true,
    } satisfies HistoryOptions);
  });

  it('--profile and --json are the global options, before or after the verb', async () => {
    const p = await parse('history', '--profile', 'staging', '--json', '--status', 'unknown');
    expect(p.opts).toEqual({ status: 'unknown' } satisfies HistoryOptions);
    expect(p.globals()).toMatchObject({ profile: 'staging', json: true });
  });

  it('history reconcile: its own command, with no options of its own', async () => {
    const p = await parse('history', 'reconcile');
    expect(p.path).toBe('history reconcile');
    expect(p.opts).toEqual({});
    expect(p.cmd.parent?.name()).toBe('history');
  });

  it('history reconcile takes the global options (--json, --profile) after the verb', async () => {
    const p = await parse('history', 'reconcile', '--json', '-p', 'prod');
    expect(p.path).toBe('history reconcile');
    expect(p.globals()).toMatchObject({ profile: 'prod', json: true });
  });

  it("history reconcile --help lists the program's global options, not history's filters", async () => {
    const r = await refuse('history', 'reconcile', '--help');
    expect(r.code).toBe('commander.helpDisplayed');
    expect(r.stdout).toContain('--profile <name>');
    expect(r.stdout).not.toContain('--status');
    expect(r.stdout).not.toContain('--since');
  });

  it("history's own filters are not options of reconcile", async () => {
    for (const argv of [
      ['history', 'reconcile', '--status', 'unknown'],
      ['history', '--batch-id', 'b1', 'reconcile'],
    ]) {
      const r = await refuse(...argv);
      expect(r.code).toBe('commander.unknownOption');
      expect(r.message).toMatch(/^--(status|batch-id) is an option of 'history', not of 'history reconcile'$/);
    }
  });
});

describe('summary', () => {
  it('defaults: no filters', async () => {
    const p = await parse('summary');
    expect(p.opts).toEqual({} satisfies SummaryOptions);
  });

  it('--from, --to, --wallet, --currency', async () => {
    const p = await parse('summary', '--from', '2026-11-01', '--to', '2026-11-30', '--wallet', '5564222970', '--currency', 'NGN');
    expect(p.opts).toEqual({ from: '2026-11-01', to: '2026-11-30', wallet: '5564222970', currency: 'NGN' } satisfies SummaryOptions);
  });
});

describe('webhooks listen', () => {
  it('defaults: port 4242 on 127.0.0.1, path /webhooks, no secret', async () => {
    const p = await parse('webhooks', 'listen');
    expect(p.path).toBe('webhooks listen');
    expect(p.opts).toEqual({ port: 4242, host: '127.0.0.1', path: '/webhooks' } satisfies ListenOptions);
  });

  it('every flag maps to its field; --port is a number (0 picks a free one)', async () => {
    const p = await parse(
      'webhooks',
      'listen',
      '--port',
      '0',
      '--host',
      '::1',
      '--path',
      '/hooks/payctl',
      '--secret',
      'whsec_test',
      '--forward-to',
      'http://localhost:3000/webhooks',
    );
    expect(p.opts).toEqual({
      port: 0,
      host: '::1',
      path: '/hooks/payctl',
      secret: 'whsec_test',
      forwardTo: 'http://localhost:3000/webhooks',
    } satisfies ListenOptions);
  });

  it('--secret-stdin', async () => {
    const p = await parse('webhooks', 'listen', '--secret-stdin', '--port', '65535');
    expect(p.opts).toEqual({ port: 65535, host: '127.0.0.1', path: '/webhooks', secretStdin: true } satisfies ListenOptions);
  });
});

describe('config', () => {
  it('list and path: no options or arguments', async () => {
    const list = await parse('config', 'list');
    const path = await parse('config', 'path');
    expect([list.path, list.opts]).toEqual(['config list', {}]);
    expect([path.path, path.opts]).toEqual(['config path', {}]);
  });

  it('get <key>', async () => {
    const p = await parse('config', 'get', 'routes.payoutGet');
    expect([p.path, p.opts]).toEqual(['config get', { key: 'routes.payoutGet' }]);
  });

  it('set <key> <value>: the value is kept as typed, braces included', async () => {
    const p = await parse('config', 'set', 'routes.payoutGet', '/payout/{id}');
    expect([p.path, p.opts]).toEqual(['config set', { key: 'routes.payoutGet', value: '/payout/{id}' }]);
  });

  it('set <key> --stdin: the value left out (read from standard input by the run)', async () => {
    const p = await parse('config', 'set', 'ledger', '--stdin');
    expect([p.path, p.opts]).toEqual(['config set', { key: 'ledger', value: undefined, stdin: true }]);
    const r = await refuse('config', 'set', 'ledger');
    expect(r.stderr).toContain("error: missing required argument 'value'");
  });

  it('set: a value that begins with a dash is reachable after --', async () => {
    const p = await parse('config', 'set', 'webhook-secret', '--', '-s3cret');
    expect(p.opts).toEqual({ key: 'webhook-secret', value: '-s3cret' });
  });

  it('unset <key>', async () => {
    const p = await parse('config', 'unset', 'webhook-secret');
    expect([p.path, p.opts]).toEqual(['config unset', { key: 'webhook-secret' }]);
  });
});

describe('completion', () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    it(`completion ${shell}`, async () => {
      const p = await parse('completion', shell);
      expect(p.path).toBe('completion');
      expect(p.opts.shell).toBe(shell);
    });
  }

  it("hands the command a fresh tree (not this run's parsed one) with every command in it", async () => {
    const p = await parse('completion', 'zsh');
    const tree = (p.opts.tree as () => Command)();
    expect(tree).toBeInstanceOf(Command);
    expect(tree).not.toBe(p.cmd.parent);
    expect(tree.name()).toBe('payctl');
    expect(tree.commands.map((c) => c.name())).toEqual(p.cmd.parent!.commands.map((c) => c.name()));
  });

  it('__complete-profiles (hidden, used by the scripts) takes no options', async () => {
    const p = await parse('__complete-profiles');
    expect([p.path, p.opts]).toEqual(['__complete-profiles', {}]);
  });
});

describe('sandbox', () => {
  it('start defaults: a free port, seed 1, settling after 3 s, no rate limit (no token lifetime: the key is the bearer)', async () => {
    const p = await parse('sandbox', 'start');
    expect(p.path).toBe('sandbox start');
    expect(p.opts).toEqual({ port: 0, seed: 1, settleAfter: 3000, rateLimit: 0 } satisfies StartOptions);
  });

  it('start: every flag maps to its field; numbers are numbers', async () => {
    const p = await parse(
      'sandbox',
      'start',
      '--port',
      '4010',
      '--detach',
      '--api-key',
      'sk_sandbox_test',
      '--seed',
      '7',
      '--state',
      './sandbox-state.json',
      '--settle-after',
      '0',
      '--webhook-url',
      'http://127.0.0.1:4242/webhooks',
      '--webhook-secret',
      'whsec_x',
      '--rate-limit',
      '5',
      '--list-shape',
      'resource',
      '--error-shape',
      'problem',
      '--kyc-status',
      'Pending',
    );
    expect(p.opts).toEqual({
      port: 4010,
      detach: true,
      apiKey: 'sk_sandbox_test',
      seed: 7,
      state: './sandbox-state.json',
      settleAfter: 0,
      webhookUrl: 'http://127.0.0.1:4242/webhooks',
      webhookSecret: 'whsec_x',
      rateLimit: 5,
      listShape: 'resource',
      errorShape: 'problem',
      kycStatus: 'Pending',
    } satisfies StartOptions);
  });

  it('start: --token-ttl is gone (there are no tokens), an unknown --list-shape is refused', async () => {
    expect((await refuse('sandbox', 'start', '--token-ttl', '60')).code).toBe('commander.unknownOption');
    const shape = await refuse('sandbox', 'start', '--list-shape', 'pages');
    expect(shape.code).toBe('commander.invalidArgument');
    expect(shape.message).toContain('--list-shape must be one of paginator, resource, array, items.');
  });

  it('stop and status: no options', async () => {
    const stop = await parse('sandbox', 'stop');
    const status = await parse('sandbox', 'status');
    expect([stop.path, stop.opts]).toEqual(['sandbox stop', {}]);
    expect([status.path, status.opts]).toEqual(['sandbox status', {}]);
  });

  it('`sandbox status` and `status` are different commands', async () => {
    expect((await parse('sandbox', 'status')).path).toBe('sandbox status');
    expect((await parse('status')).path).toBe('status');
  });
});

describe('plan, keys and policy (four eyes)', () => {
  it('plan create: the file, --batch-id and -o/--out', async () => {
    const p = await parse('plan', 'create', 'stipends.csv', '--batch-id', 'oct', '-o', 'oct.plan.json');
    expect(p.path).toBe('plan create');
    expect(p.opts).toEqual({ file: 'stipends.csv', batchId: 'oct', out: 'oct.plan.json' } satisfies PlanCreateOptions);
    covered.add('plan create');
  });

  it('plan show and plan approve take the plan; approve takes -y', async () => {
    expect((await parse('plan', 'show', 'a.plan.json')).opts).toEqual({ plan: 'a.plan.json' } satisfies PlanShowOptions);
    expect((await parse('plan', 'approve', 'a.plan.json', '-y')).opts).toEqual({ plan: 'a.plan.json', yes: true } satisfies PlanApproveOptions);
    covered.add('plan show');
    covered.add('plan approve');
  });

  it('plan merge: the plan, then one copy or more (none: a usage error)', async () => {
    expect((await parse('plan', 'merge', 'a.plan.json', 'b.plan.json', 'c.plan.json')).opts).toEqual({
      plan: 'a.plan.json',
      copy: ['b.plan.json', 'c.plan.json'],
    } satisfies PlanMergeOptions);
    const r = await refuse('plan', 'merge', 'a.plan.json');
    expect(r.stderr).toContain("missing required argument 'copy'");
    covered.add('plan merge');
  });

  it('plan send: the plan, --concurrency (1 to 32), --report, --yes, --acknowledge-missing', async () => {
    const p = await parse('plan', 'send', 'a.plan.json', '--concurrency', '8', '--report', 'r.csv', '--yes', '--acknowledge-missing');
    expect(p.opts).toEqual({ plan: 'a.plan.json', concurrency: 8, report: 'r.csv', yes: true, acknowledgeMissing: true } satisfies PlanSendOptions);
    const r = await refuse('plan', 'send', 'a.plan.json', '--concurrency', '0');
    expect(r.stderr).toContain('--concurrency must be a whole number from 1 to 32');
    covered.add('plan send');
  });

  it('keys create takes --name; keys show nothing', async () => {
    expect((await parse('keys', 'create', '--name', 'Aminata Kamara')).opts).toEqual({ name: 'Aminata Kamara' } satisfies KeysCreateOptions);
    expect((await parse('keys', 'show')).opts).toEqual({});
    covered.add('keys create');
    covered.add('keys show');
  });

  it('ledger status, import and verify: no options or arguments of their own', async () => {
    for (const verb of ['status', 'import', 'verify']) {
      const p = await parse('ledger', verb, '--profile', 'team', '--json');
      expect([p.path, p.opts]).toEqual([`ledger ${verb}`, {}]);
      expect((await refuse('ledger', verb, 'extra')).code).toBe('commander.excessArguments');
      covered.add(`ledger ${verb}`);
    }
  });

  it('policy check: the file and --batch-id', async () => {
    const p = await parse('policy', 'check', 'stipends.csv', '--batch-id', 'oct');
    expect(p.opts).toEqual({ file: 'stipends.csv', batchId: 'oct' } satisfies PolicyCheckOptions);
    covered.add('policy check');
  });

  it('policy propose <file>, policy approve <hash>, policy show: one argument each (show none)', async () => {
    const proposed = await parse('policy', 'propose', 'team-policy.json');
    expect(proposed.opts).toEqual({ file: 'team-policy.json' } satisfies PolicyProposeOptions);
    const approved = await parse('policy', 'approve', '50398ce020a0');
    expect(approved.opts).toEqual({ hash: '50398ce020a0' } satisfies PolicyApproveOptions);
    const shown = await parse('policy', 'show', '--json');
    expect([shown.path, shown.opts]).toEqual(['policy show', {}]);
    expect((await refuse('policy', 'show', 'extra')).code).toBe('commander.excessArguments');
    expect((await refuse('policy', 'approve')).code).toBe('commander.missingArgument');
    for (const verb of ['propose', 'approve', 'show']) covered.add(`policy ${verb}`);
  });
});

describe('groups without a subcommand', () => {
  for (const group of GROUPS) {
    it(`\`payctl ${group}\` alone shows its help on stderr and runs nothing`, async () => {
      const r = await refuse(group);
      expect(r.code).toBe('commander.help');
      expect(r.stderr).toMatch(new RegExp(`^Usage: payctl ${group} \\[options\\] \\[command\\]\\n`));
      expect(r.stdout).toBe('');
      covered.add(group);
    });

    it(`\`payctl ${group} nope\` is an unknown command`, async () => {
      const r = await refuse(group, 'nope');
      expect(r.code).toBe('commander.unknownCommand');
      expect(r.stderr).toBe(`error: unknown command 'nope'\n${usageHint(group)}\n`);
    });
  }
});

describe('the tree', () => {
  it('`payctl` alone shows the program help on stderr and runs nothing', async () => {
    const r = await refuse();
    expect(r.code).toBe('commander.help');
    expect(r.stderr).toMatch(/^Usage: payctl \[options\] \[command\]\n/);
  });

  // Keep this test last: it reads what the tests above parsed.
  it('every command of the tree has a parser test in this file', () => {
    const all = commandPaths();
    const missing = all.filter((p) => !covered.has(p));
    expect(missing, `commands without a parser test in test/parse/commands.test.ts: ${missing.join(', ')}`).toEqual([]);
    expect([...covered].filter((p) => !all.includes(p))).toEqual([]);
  });
});
