/**
 * Status words as the service writes them, in any case ("successful" in a look-up, "Pending" in a
 * webhook), as payctl's three: Successful, Failed, Pending (docs/service.md, "Status words"). Any
 * other word comes back as it came: it is not settled, and not Pending either. payctl cannot tell
 * what it means, so whether the payout was paid is unknown (`--wait` and `payout batch status`
 * exit 4 on it, as for an answer that never came).
 */
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

export function normalizeStatus(word: string): string {
  return STATUS_WORDS[word.trim().toLowerCase()] ?? word;
}

/** Whether a normalized status is a word payctl does not know ('' is no word: a record without a status). */
export function isUnknownStatus(status: string): boolean {
  return status !== '' && status !== 'Successful' && status !== 'Failed' && status !== 'Pending';
}
