/**
 * Issue #28, point 1, at a real terminal (tmux): Ctrl-C typed at the confirmation of
 * `payout create` reaches the prompt (the terminal is in raw mode) as inquirer's
 * ExitPromptError; payctl ends with exit 130 and "Nothing was sent.", and nothing was
 * sent or journaled. The same at other prompts is tested in process in
 * test/commands/operator-points.test.ts. Ctrl-D (the end of input) at the confirmation and at
 * login's hidden key prompt ends the same way (exit 130): it had closed inquirer's readline with
 * the prompt unanswered, and the run exited 0 next to "Error: Interrupted." (probe B53, 1).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, tempConfigDir } from '../helpers/cli.js';
import { payctl as payctlInProcess } from '../helpers/in-process.js';
import { freshWallet, useSandbox } from '../helpers/sandbox.js';
import { startInTerminal, stopTerminalServer, tmuxAvailable, type TerminalSession } from '../helpers/pty.js';

const ctx = useSandbox();

let dir: string;
let cleanup: () => void;
let term: TerminalSession | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = tempConfigDir());
  // The login that sets the test up needs no process of its own.
  const r = await payctlInProcess(['login', '--api-key-stdin', '--base-url', ctx.sb.baseUrl], { dir, input: ctx.sb.apiKey + '\n' });
  expect(r.code, r.stderr).toBe(0);
  ctx.sb.clearRequests();
});

afterEach(() => {
  term?.kill();
  term = undefined;
  cleanup();
});

afterAll(() => stopTerminalServer());

describe.skipIf(!tmuxAvailable())('payout create at a terminal: Ctrl-C or Ctrl-D at the confirmation', () => {
  it.each(['C-c', 'C-d'])('%s: exit 130, "Nothing was sent.", no POST, nothing journaled', async (key) => {
    const walletId = freshWallet(ctx.sb, '5000.00', 'SLE');
    term = startInTerminal(
      [
        process.execPath,
        BIN,
        ...['payout', 'create', '--wallet', walletId, '--amount', '2750.25', '--currency', 'SLE', '--type', 'bank'],
        ...['--name', 'Ibrahim Conteh', '--provider', 'uba', '--account', '5401234567'],
      ],
      { PAYCTL_CONFIG_DIR: dir, HOME: dir, NO_COLOR: '1', LANG: 'C.UTF-8' },
    );
    await term.waitFor(/^\? Send this payout\? \(y\/N\)/m, 15_000);
    term.keys(key);
    const screen = await term.waitFor(/^EXIT:\d+$/m, 15_000);
    expect(screen).toMatch(/^Error: Interrupted\. Nothing was sent\.$/m);
    expect(screen).toMatch(/^EXIT:130$/m);
    expect(screen).not.toContain('bug');
    expect(ctx.sb.requests().filter((r) => r.method === 'POST' && r.path === '/v2/payout')).toEqual([]);
    const journal = join(dir, 'journal');
    expect(existsSync(journal) ? readdirSync(journal).filter((f) => f.endsWith('.json')) : []).toEqual([]);
  });
});

describe.skipIf(!tmuxAvailable())('login at a terminal: Ctrl-D at the hidden key prompt', () => {
  it('exit 130, not 0, nothing saved', async () => {
    term = startInTerminal([process.execPath, BIN, 'login', '--base-url', ctx.sb.baseUrl, '--profile', 'other', '--insecure-storage'], {
      PAYCTL_CONFIG_DIR: dir,
      HOME: dir,
      NO_COLOR: '1',
      LANG: 'C.UTF-8',
    });
    await term.waitFor(/^\? API key/m, 15_000);
    term.keys('C-d');
    const screen = await term.waitFor(/^EXIT:\d+$/m, 15_000);
    expect(screen).toMatch(/^Error: Interrupted\./m);
    expect(screen).toMatch(/^EXIT:130$/m);
    const r = await payctlInProcess(['config', 'list', '--profile', 'other'], { dir });
    expect(r.code).not.toBe(0);
  });
});
