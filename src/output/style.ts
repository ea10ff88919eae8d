/**
 * Colour for people, decided once from the io flags: never on --json, --no-color,
 * NO_COLOR or a non-terminal (unless FORCE_COLOR). chalk is loaded only when colour is
 * on (loadColor, from the entry); plain output needs no library.
 */
type Paint = (text: string) => string;

export interface Style {
  bold: Paint;
  dim: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
}

const same: Paint = (t) => t;
const PLAIN: Style = { bold: same, dim: same, red: same, green: same, yellow: same };

let chalk: typeof import('chalk') | undefined;

/** Loads chalk; call before makeStyle(true). */
export async function loadColor(): Promise<void> {
  chalk ??= await import('chalk');
}

export function makeStyle(color: boolean): Style {
  if (!color) return PLAIN;
  if (!chalk) throw new Error('makeStyle(true) before loadColor()');
  const c = new chalk.Chalk({ level: 1 });
  return { bold: (t) => c.bold(t), dim: (t) => c.dim(t), red: (t) => c.red(t), green: (t) => c.green(t), yellow: (t) => c.yellow(t) };
}

/** The colour decision (README.md "Output, scripting and exit codes"): --no-color and NO_COLOR win, then FORCE_COLOR, then isTTY. */
export function wantsColor(opts: { flag: boolean; json: boolean; isTTY: boolean; env: NodeJS.ProcessEnv }): boolean {
  if (!opts.flag || opts.json) return false;
  if (opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== '') return false;
  const force = opts.env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force === 'false');
  return opts.isTTY && opts.env.TERM !== 'dumb';
}

/** The colour of a payout status: Pending yellow, Successful green, Failed red, others plain. */
export function paintFor(style: Style, status: string): Paint {
  switch (status) {
    case 'Pending':
      return style.yellow;
    case 'Successful':
      return style.green;
    case 'Failed':
      return style.red;
    default:
      return same;
  }
}

export function statusColor(style: Style, status: string): string {
  return paintFor(style, status)(status);
}
