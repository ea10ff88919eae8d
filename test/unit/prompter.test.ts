/**
 * The inquirer-backed prompter (output/prompter.ts), driven directly: in-memory streams
 * that say they are terminals, keystrokes written to stdin as a person would type them,
 * the rendered prompt read back from stdout. Ctrl-C (the run's abort signal) at a prompt
 * becomes InterruptedError.
 */
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createPrompter, type Prompter } from '../../src/output/prompter.js';
import { InterruptedError } from '../../src/errors.js';
import type { IO } from '../../src/output/io.js';

class Screen extends Writable {
  isTTY = true;
  columns = 100;
  rows = 40;
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
  /** What was drawn, without escape sequences. */
  plain(): string {
    return this.text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  }
}

interface Terminal {
  prompter: Prompter;
  screen: Screen;
  /** Types keys once the prompt has drawn itself (and after each earlier key is handled). */
  type(...keys: string[]): Promise<void>;
  abort(): void;
  /** Waits until `check()` holds (the prompt redrew). */
  settle(check: () => boolean): Promise<void>;
}

const open: PassThrough[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.destroy();
});

async function terminal(): Promise<Terminal> {
  const stdin = Object.assign(new PassThrough(), { isTTY: true, isRaw: false, setRawMode: () => stdin });
  open.push(stdin);
  const screen = new Screen();
  const controller = new AbortController();
  const io = {
    stdin,
    stdout: screen,
    stderr: screen,
    stdinIsTTY: true,
    stdoutIsTTY: true,
    stderrIsTTY: true,
    color: false,
    stderrColor: false,
    interactive: true,
  } as unknown as IO;
  const prompter = await createPrompter(io, controller.signal);
  const tick = () => new Promise((r) => setTimeout(r, 15));
  return {
    prompter,
    screen,
    abort: () => controller.abort(),
    async settle(check) {
      const deadline = Date.now() + 3000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`the prompt did not redraw as expected:\n${screen.plain()}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async type(...keys) {
      for (const k of keys) {
        await tick();
        stdin.write(k);
      }
    },
  };
}

const ENTER = '\r';
const DOWN = '\u001b[B';

describe('createPrompter (inquirer, on in-memory terminals)', () => {
  it('confirm: "y" then Enter is yes, "n" is no, Enter alone takes the default', async () => {
    const t = await terminal();
    const yes = t.prompter.confirm({ message: 'Send 3 payouts?', default: false });
    await t.type('y', ENTER);
    expect(await yes).toBe(true);
    expect(t.screen.plain()).toContain('Send 3 payouts?');

    const no = t.prompter.confirm({ message: 'Really?', default: true });
    await t.type('n', ENTER);
    expect(await no).toBe(false);

    const dflt = t.prompter.confirm({ message: 'Default?', default: true });
    await t.type(ENTER);
    expect(await dflt).toBe(true);
  });

  it('input: typed text is returned; validate refuses until the text passes', async () => {
    const t = await terminal();
    const answer = t.prompter.input({ message: 'Base URL:', validate: (v) => (v.startsWith('https://') ? true : 'must start with https://') });
    await t.type('http://x', ENTER);
    await new Promise((r) => setTimeout(r, 30));
    expect(t.screen.plain()).toContain('must start with https://');
    // Erase what was typed and type a good value.
    await t.type('\u007f'.repeat(8), 'https://api.example.com/v2', ENTER);
    expect(await answer).toBe('https://api.example.com/v2');
  });

  it('input: Enter on an empty line takes the default', async () => {
    const t = await terminal();
    const answer = t.prompter.input({ message: 'Profile:', default: 'default' });
    await t.type(ENTER);
    expect(await answer).toBe('default');
  });

  it('password: returns what was typed and never draws it', async () => {
    const t = await terminal();
    const answer = t.prompter.password({ message: 'API key:' });
    await t.type('sk_live_secret_1234', ENTER);
    expect(await answer).toBe('sk_live_secret_1234');
    expect(t.screen.text).toContain('API key:');
    expect(t.screen.text).not.toContain('sk_live_secret');
  });

  it('select: arrow down and Enter picks the second choice; the default is preselected', async () => {
    const t = await terminal();
    const choices = [
      { name: 'SLE wallet', value: 'wal_sle' },
      { name: 'NGN wallet', value: 'wal_ngn' },
      { name: 'JPY wallet', value: 'wal_jpy' },
    ];
    const second = t.prompter.select({ message: 'Wallet:', choices });
    await t.type(DOWN, ENTER);
    expect(await second).toBe('wal_ngn');
    expect(t.screen.plain()).toContain('JPY wallet');

    const preset = t.prompter.select({ message: 'Wallet:', choices, default: 'wal_jpy' });
    await t.type(ENTER);
    expect(await preset).toBe('wal_jpy');
  });

  it('suggest: Enter takes the best suggestion for what was typed (normalized)', async () => {
    const t = await terminal();
    const suggestions = ['orange_money', 'afrimoney', 'qmoney'];
    const best = t.prompter.suggest({ message: 'Provider:', suggestions, normalize: (s) => s.toLowerCase().replace(/\s+/g, '_') });
    await t.type('Orange M');
    await t.settle(() => t.screen.plain().includes('❯ orange_money\n  Orange M (as typed)'));
    await t.type(ENTER);
    expect(await best).toBe('orange_money');
  });

  it('suggest: text no suggestion holds is offered as typed, and validated', async () => {
    const t = await terminal();
    const suggestions = ['orange_money', 'afrimoney', 'qmoney'];
    const checked: string[] = [];
    const typed = t.prompter.suggest({
      message: 'Provider:',
      suggestions,
      validate: (v) => {
        checked.push(v);
        return true;
      },
    });
    await t.type('mpesa');
    await t.settle(() => t.screen.plain().includes('❯ mpesa (as typed)'));
    await t.type(ENTER);
    expect(await typed).toBe('mpesa');
    expect(checked).toEqual(['mpesa']);
  });

  it('Ctrl-C at a prompt (the run aborted) rejects with InterruptedError', async () => {
    const t = await terminal();
    const pending = t.prompter.confirm({ message: 'Send?', default: false });
    await new Promise((r) => setTimeout(r, 15));
    t.abort();
    await expect(pending).rejects.toBeInstanceOf(InterruptedError);
  });

  it('other failures pass through unchanged (no choice to select is not an interruption)', async () => {
    const t = await terminal();
    const err = await t.prompter.select({ message: 'Wallet:', choices: [] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(InterruptedError);
    expect((err as Error).message).toMatch(/no selectable choices/i);
  });
});
