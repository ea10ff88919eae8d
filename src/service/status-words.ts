/**
 * Status words as the service writes them, in any case ("successful" in a look-up, "Pending" in a
 * webhook), as payctl's three: Successful, Failed, Pending (docs/service.md, "Status words"). Any
 * other word comes back as it came: it is not settled, and not Pending either. payctl cannot tell
 * what it means, so whether the payout was paid is unknown (`--wait` and `payout batch status`
 * exit 4 on it, as for an answer that never came).
 */
import { visibleWord } from '../words.js';

const STATUS_WORDS: Record<string, string> = {
  successful: 'Successful',
  success: 'Successful',
  succeeded: 'Successful',
  completed: 'Successful',
  paid: 'Successful',
  failed: 'Failed',
  failure: 'Failed',
  rejected: 'Failed',
  declined: 'Failed',
  reversed: 'Failed',
  cancelled: 'Failed',
  canceled: 'Failed',
  pending: 'Pending',
  processing: 'Pending',
  initiated: 'Pending',
  queued: 'Pending',
};

/**
 * One of the three, or a word payctl does not know written so that it cannot pass for one: every
 * character but printable ASCII as a visible escape ("Failed\u0000", "\u202eSuccessful", a
 * Cyrillic letter), since sanitizing for a terminal would otherwise show "Failed\u0000" as Failed
 * in a card, a report's status column, a summary row or a webhook line.
 */
export function normalizeStatus(word: string): string {
  // ASCII white space only: String#trim would also take a BOM, a no-break space or U+2028 off a word
  // payctl then read as one of the three. Scanned from each end (a regex anchored at the end tries
  // every start in a long run of spaces: quadratic on a hostile megabyte).
  const trimmed = asciiTrim(word);
  return STATUS_WORDS[trimmed.toLowerCase()] ?? visibleWord(trimmed);
}

/** `s` without the spaces, tabs and line breaks at its ends; in linear time. */
function asciiTrim(s: string): string {
  const blank = (i: number) => {
    const c = s.charCodeAt(i);
    return c === 32 || c === 9 || c === 10 || c === 13;
  };
  let start = 0;
  let end = s.length;
  while (start < end && blank(start)) start++;
  while (end > start && blank(end - 1)) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/**
 * Whether a normalized status is not one of the three: a word payctl does not know, or none (an
 * answer without a status): either way whether the payout was paid cannot be told from it.
 */
export function isUnknownStatus(status: string): boolean {
  return status !== 'Successful' && status !== 'Failed' && status !== 'Pending';
}

/** How a message names a status that is not one of the three (as normalizeStatus writes it: printable): the word, quoted, or that there was none. */
export function unknownStatusWords(status: string): string {
  return status === '' ? 'no status' : `the status "${status}", a word payctl does not know`;
}
