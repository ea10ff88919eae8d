/**
 * Help text fitted to the terminal (help.ts adds it after commander's own lists, which
 * commander wraps): a spec's help and examples, written once at about 100 columns, wrapped
 * at the width help is shown at, words whole, examples split between their words as a shell
 * reads them.
 */
import { displayWidth, wrapText } from '../output/table.js';

/** A line ends a sentence, and the next starts one: a line break a help text means to keep. */
const SENTENCE_END = /[.:!?][)"'`]*$/;
const SENTENCE_START = /^[A-Z`"'(-]/;

/**
 * Help text fitted to `width` columns, no word broken (only a single word wider than a line
 * is). The specs write their help as lines of about 100 columns: what fits is kept as it is;
 * a paragraph with a line too wide is joined and wrapped again (a line break after the end
 * of a sentence, before a new one, is kept); an example (`  $ payctl ...`) is wrapped between
 * its words as a shell reads it, continued with ` \` (never inside quotes; a `# comment` that
 * does not fit goes on a line of its own); any other indented line is preformatted (a sample
 * of a file) and kept as written, to be copied as it is.
 */
export function fitHelpText(s: string, width: number): string {
  const lines = s.split('\n');
  const fits = (ls: string[]) => ls.every((l) => displayWidth(l) <= width);
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    let j = i + 1;
    if (line.startsWith('  $ ')) {
      while (lines[j - 1]!.endsWith(' \\') && j < lines.length && /^\s+\S/.test(lines[j]!)) j++;
      const block = lines.slice(i, j);
      out.push(...(fits(block) ? block : wrapExample(block.map((l, k) => (k === 0 ? l.slice(4) : l.trim()).replace(/\s*\\$/, '')).join(' '), width)));
    } else if (line.trim() === '') {
      out.push(line);
    } else if (/^\s/.test(line)) {
      // Preformatted (a sample of a file): shown as written, to be copied as it is.
      out.push(line);
    } else {
      while (j < lines.length && lines[j]!.trim() !== '' && !/^\s/.test(lines[j]!) && !(SENTENCE_END.test(lines[j - 1]!) && SENTENCE_START.test(lines[j]!))) j++;
      const block = lines.slice(i, j);
      out.push(...(fits(block) ? block : wrapText(block.join(' '), width).split('\n')));
    }
    i = j;
  }
  return out.join('\n');
}

/** The words of a command line as a shell splits them (quotes kept, never split), and its `# comment`. */
function shellWords(command: string): { words: string[]; comment?: string } {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      word += ch;
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"') word += command[++i] ?? '';
    } else if (ch === ' ') {
      if (word) words.push(word);
      word = '';
    } else if (ch === '#' && word === '') {
      return { words, comment: command.slice(i) };
    } else {
      word += ch;
      if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '\\') word += command[++i] ?? '';
    }
  }
  if (word) words.push(word);
  return { words };
}

/** An option and its value (`--amount 1500.50`), a redirection and its file (`> november.csv`): kept on one line when they fit on one. */
function units(words: string[], room: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    const next = words[k + 1];
    const joins = /^--?[A-Za-z][\w-]*$/.test(w) || /^\d?(>>?|<)$/.test(w);
    const pair = next !== undefined && joins && !/^(-|[|&;<>])/.test(next) ? `${w} ${next}` : undefined;
    if (pair !== undefined && displayWidth(pair) <= room) {
      out.push(pair);
      k++;
    } else out.push(w);
  }
  return out;
}

/** An example's command line as lines of at most `width` columns: `  $ ` first, then continued lines. */
function wrapExample(command: string, width: number): string[] {
  const { words, comment } = shellWords(command);
  const more = '      ';
  const lines: string[] = [];
  let line = `  $ ${words[0] ?? ''}`;
  const rest = units(words.slice(1), width - more.length - 2);
  for (const [k, w] of rest.entries()) {
    // Room for " \\" unless this is the last word.
    const last = k === rest.length - 1;
    if (displayWidth(line) + 1 + displayWidth(w) + (last ? 0 : 2) <= width) line += ` ${w}`;
    else {
      lines.push(`${line} \\`);
      line = more + w;
    }
  }
  if (comment !== undefined) {
    if (displayWidth(line) + 2 + displayWidth(comment) <= width) line += `  ${comment}`;
    else {
      lines.push(line);
      line = '';
      for (const c of wrapText(comment.replace(/^#\s*/, ''), Math.max(1, width - more.length - 2)).split('\n')) lines.push(`${more}# ${c}`);
    }
  }
  if (line) lines.push(line);
  return lines;
}
