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

/** `payctl login` of profile "other" at a terminal (tmux), once its hidden API key prompt is shown (`term`: afterEach ends it). */
async function loginAtKeyPrompt(): Promise<TerminalSession> {
  const t = (term = startInTerminal([process.execPath, BIN, 'login', '--base-url', ctx.sb.baseUrl, '--profile', 'other', '--insecure-storage'], {
    PAYCTL_CONFIG_DIR: dir,
    HOME: dir,
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
  }));
  await t.waitFor(/^\? API key/m, 15_000);
  return t;
}

describe.skipIf(!tmuxAvailable())('login at a terminal: Ctrl-D at the hidden key prompt', () => {
  it('exit 130, not 0, nothing saved', async () => {
    term = await loginAtKeyPrompt();
    term.keys('C-d');
    const screen = await term.waitFor(/^EXIT:\d+$/m, 15_000);
    expect(screen).toMatch(/^Error: Interrupted\./m);
    expect(screen).toMatch(/^EXIT:130$/m);
    const r = await payctlInProcess(['config', 'list', '--profile', 'other'], { dir });
    expect(r.code).not.toBe(0);
  });
});

/**
 * Ctrl-Z at the hidden key prompt where no shell does job control (a command run by tmux, as by
 * `ssh -t host payctl login` or `docker run -it`; probe E54, finding 2): readline takes the
 * terminal out of raw mode and stops the process, but the kernel discards a stop signal to a
 * process group no shell controls, so payctl went on reading with the terminal's echo on: the rest
 * of the key was shown in clear, and accepted. The prompt keeps the terminal as it was.
 */
describe.skipIf(!tmuxAvailable())('login at a terminal no shell controls: Ctrl-Z at the hidden key prompt', () => {
  it('the rest of the key is never shown; the key typed is taken whole', async () => {
    term = await loginAtKeyPrompt();
    const key = ctx.sb.apiKey;
    const [head, rest] = [key.slice(0, 11), key.slice(11)];
    term.type(head);
    term.keys('C-z');
    // The rest typed once Ctrl-Z has been read (an idle prompt reads a key at once): typed with it,
    // both would be read before the terminal's mode changed, and nothing would show either way.
    await new Promise((r) => setTimeout(r, 300));
    term.type(rest);
    term.keys('Enter');
    // The screen with its history: what was ever shown.
    const screen = await term.waitFor(/^EXIT:\d+$/m, 15_000);
    expect(screen).not.toContain(rest.slice(-12));
    expect(screen).toMatch(/^EXIT:0$/m);
    const r = await payctlInProcess(['config', 'list', '--profile', 'other', '--json'], { dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(key.slice(-4));
  });
});
