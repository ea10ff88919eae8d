/**
 * Colour for people, decided once from the io flags: never on --json, --no-color,
 * NO_COLOR or a non-terminal (unless FORCE_COLOR).
 */
import { Chalk, type ChalkInstance } from 'chalk';

export type Style = ChalkInstance;

export function makeStyle(color: boolean): Style {
  return new Chalk({ level: color ? 1 : 0 });
}

/** The colour decision (cli.md): --no-color and NO_COLOR win, then FORCE_COLOR, then isTTY. */
export function wantsColor(opts: { flag: boolean; json: boolean; isTTY: boolean; env: NodeJS.ProcessEnv }): boolean {
  if (!opts.flag || opts.json) return false;
  if (opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== '') return false;
  const force = opts.env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force === 'false');
  return opts.isTTY && opts.env.TERM !== 'dumb';
}

export function statusColor(style: Style, status: string): string {
  switch (status) {
    case 'Pending':
      return style.yellow(status);
    case 'Successful':
      return style.green(status);
    case 'Failed':
      return style.red(status);
    default:
      return status;
  }
}
