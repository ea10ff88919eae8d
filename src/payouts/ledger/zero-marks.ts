/**
 * The local ledger's zero markers kept whole (docs/architecture.md, "The ledger"): a look-up by
 * zero key (identity.ts zeroKey) finds an entry whose account has leading zeros through its zero
 * marker (markers.ts), which a payctl before zero keys (28 November and earlier) never made. So the
 * entries such a payctl journaled are marked by this one: every entry, once, in a journal it
 * finds without `days/zeros.complete`; after that, those whose line in the journal's index
 * (gaps.ts) does not say `z` (a payctl before zero keys, run again in the same config folder after
 * this one: a downgrade and back, or two versions side by side). `zeros.complete` holds how far the
 * index was read so; each run that looks up by zero key reads it on from there, once. Before,
 * it said only "marked once", and a payout an older payctl sent afterwards to `000777001` was paid
 * again when typed as `777001` (probe Z59 finding 1). Where marking fails, every look-up by zero
 * key of the process reads every entry instead (`unmarked`).
 */
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { sep } from 'node:path';
import { readRegular } from '../../config/regular-file.js';
import { entryZeroKey } from '../sent-body.js';
import type { JournalEntry, ScanItem } from './ledger.js';
import type { EntryNames } from './names.js';

/** The file, beside the day markers' `complete`, that says how far the index was read for entries without their zero marker. */
const ZEROS_CHECKED = 'zeros.complete';

/** What reads the journal's entries: all of them, and those of some names (local.ts). */
export interface EntryReads {
  entries(): Iterable<ScanItem>;
  named(names: string[]): Iterable<ScanItem>;
}

/** What of the journal's index this reads (gaps.ts JournalIndex). */
export interface ZeroIndex {
  unzeroedFrom(from: number): { end: number; names: string[] } | undefined;
}

/**
 * The zero key an entry is marked under, when it is not its repeat key: an entry whose account has
 * no leading zero (or is not all digits) is found by its repeat marker, which a look-up by zero key
 * reads too (markers.ts leadsOf), and needs no marker more.
 */
export function zeroMarked(e: JournalEntry): string | undefined {
  const key = entryZeroKey(e);
  return key !== e.repeatKey ? key : undefined;
}

export class ZeroMarks {
  #checked = false;
  /** The markers could not be made: a look-up by zero key reads every entry (markers.ts leads answers `damaged`). */
  unmarked = false;

  constructor(
    private readonly names: EntryNames,
    private readonly index: ZeroIndex | undefined,
    private readonly mark: (e: JournalEntry, name: string, target: string) => void,
  ) {}

  /** Marks what is not marked yet (the file's comment), once a process, before the first look-up by zero key. */
  ensure(reads: EntryReads): void {
    if (this.#checked) return;
    this.#checked = true;
    try {
      if (!lstatSync(this.names.in(''), { throwIfNoEntry: false })) return;
      const said = readRegular(this.names.in(`days${sep}${ZEROS_CHECKED}`), 64)
        ?.toString('utf8')
        .trim();
      if (said === undefined) {
        // Read before the entries: lines appended meanwhile are read next time.
        const end = this.index ? this.index.unzeroedFrom(0)?.end : 0;
        if (end === undefined) throw new Error('the index cannot be read');
        this.#markAll(reads.entries());
        return this.said(end);
      }
      if (!this.index) return;
      const from = /^[0-9]{1,15}$/.test(said) ? Number(said) : 0;
      const tail = this.index.unzeroedFrom(from);
      if (!tail) throw new Error('the index cannot be read');
      this.#markAll(reads.named(tail.names));
      if (tail.end !== from) this.said(tail.end);
    } catch {
      this.unmarked = true;
    }
  }

  #markAll(items: Iterable<ScanItem>): void {
    for (const it of items) if ('entry' in it && zeroMarked(it.entry)) this.mark(it.entry, it.name, this.names.in(it.name));
  }

  /**
   * Says every entry whose index line ends before `end` has its zero marker (a journal just made:
   * 0; one marked from its entries, or an index made again). Where it cannot be written it is left
   * unsaid: the next run marks again.
   */
  said(end: number): void {
    try {
      mkdirSync(this.names.in('days'), { recursive: true, mode: 0o700 });
      writeFileSync(this.names.in(`days${sep}${ZEROS_CHECKED}`), `${end}\n`, { mode: 0o600 });
    } catch {
      // left unsaid
    }
  }
}
