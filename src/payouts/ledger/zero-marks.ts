/**
 * The local ledger's zero markers kept whole (docs/architecture.md, "The ledger"): a look-up by
 * zero key (identity.ts zeroKey) finds an entry whose account has leading zeros through its zero
 * marker (markers.ts), which a payctl before zero keys (28 November and earlier) never made. So the
 * entries such a payctl journaled are marked by this one: every entry, once, in a journal it
 * finds without `days/zeros.complete`; after that, those whose line in the journal's index
 * (gaps.ts, index-tail.ts) does not say, signed, `z` (a payctl before zero keys run again in the
 * same config folder after this one: a downgrade and back, or two versions side by side, even at
 * the same moment). `zeros.complete` holds where the index was read to (a byte and the HMAC of the
 * line ending there, signed with the journal key); before every look-up by zero key whose index
 * changed since, it is read on from there. Before, it said only "marked once", and a payout an
 * older payctl sent afterwards to `000777001` was paid again when typed as `777001` (probes Z59,
 * R60, R62). Where marking fails, every look-up by zero key of the process reads every entry
 * instead (`unmarked`).
 */
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { sep } from 'node:path';
import { readRegular } from '../../config/regular-file.js';
import { entryZeroKey } from '../sent-body.js';
import type { JournalEntry, ScanItem } from './ledger.js';
import type { EntryNames } from './names.js';
import type { IndexPlace } from './index-tail.js';

/** The file, beside the day markers' `complete`, that says where the index was read to for entries without their zero marker (index-tail.ts IndexPlace: its byte and that line's HMAC). */
const ZEROS_CHECKED = 'zeros.complete';

/** What reads the journal's entries: all of them, and those of some names (local.ts). */
export interface EntryReads {
  entries(): Iterable<ScanItem>;
  named(names: string[]): Iterable<ScanItem>;
}

/** What of the journal's index this reads (gaps.ts JournalIndex): its lines on from a place, and what tells it changed (size, time, inode). */
export interface ZeroIndex {
  unzeroed(from: IndexPlace): { place: IndexPlace; names: string[] } | undefined;
  stamp(): string | undefined;
  signPlace(place: IndexPlace): string;
  placeHolds(place: IndexPlace, signature: string): boolean;
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
  /** Where this process last read the index to, and the index's stamp then: read on only when it changed. */
  #read: { place: IndexPlace; stamp: string | undefined } | undefined;
  /** The markers could not be made: a look-up by zero key reads every entry (markers.ts leads answers `damaged`). */
  unmarked = false;

  constructor(
    private readonly names: EntryNames,
    private readonly index: ZeroIndex | undefined,
    private readonly mark: (e: JournalEntry, name: string, target: string) => void,
  ) {}

  /**
   * Marks what is not marked yet (the file's comment) before every look-up by zero key: the
   * index is read on from where the last read ended whenever it changed since, so that a payout
   * an older payctl journals while this run waits for the wallet's lock is found when the repeat
   * guard looks again under it (probe R60 finding 2). A stat when nothing changed.
   */
  ensure(reads: EntryReads): void {
    if (this.unmarked || !this.index) return;
    try {
      const stamp = this.index.stamp();
      if (this.#read && this.#read.stamp === stamp) return;
      if (!lstatSync(this.names.in(''), { throwIfNoEntry: false })) return;
      const said = this.#read?.place ?? this.#said(this.index);
      if (said === undefined) {
        // Read before the entries: lines appended meanwhile are read next time.
        const all = this.index.unzeroed({ end: 0 });
        if (!all) throw new Error('the index cannot be read');
        this.#markAll(reads.entries());
        this.#read = { place: all.place, stamp };
        return this.said(all.place);
      }
      const tail = this.index.unzeroed(said);
      if (!tail) throw new Error('the index cannot be read');
      this.#markAll(reads.named(tail.names));
      this.#read = { place: tail.place, stamp };
      if (tail.place.end !== said.end || tail.place.mac !== said.mac) this.said(tail.place);
    } catch {
      this.unmarked = true;
    }
  }

  #markAll(items: Iterable<ScanItem>): void {
    for (const it of items) if ('entry' in it && zeroMarked(it.entry)) this.mark(it.entry, it.name, this.names.in(it.name));
  }

  /**
   * Where zeros.complete says the index was read to, when its HMAC under the journal key holds
   * (else the start: a place copied from the index's own lines hid an older payctl's payouts,
   * probe R62 finding 1); undefined when there is no such file (a journal before zero keys).
   */
  #said(index: ZeroIndex): IndexPlace | undefined {
    const text = readRegular(this.names.in(`days${sep}${ZEROS_CHECKED}`), 256)
      ?.toString('utf8')
      .trim();
    if (text === undefined) return undefined;
    const [end, mac, signature] = text.split(' ');
    const place = { end: Number(end), mac: mac ?? '' };
    return /^[0-9]{1,15}$/.test(end ?? '') && signature && index.placeHolds(place, signature) ? place : { end: 0 };
  }

  /**
   * Says every entry whose index line ends before `place` has its zero marker (a journal just
   * made: its start; one marked from its entries, or an index made again). Where it cannot be
   * written it is left unsaid: the next run reads on from an earlier place, or marks again.
   */
  said(place: IndexPlace): void {
    try {
      mkdirSync(this.names.in('days'), { recursive: true, mode: 0o700 });
      const signed = place.mac && this.index ? `${place.end} ${place.mac} ${this.index.signPlace({ end: place.end, mac: place.mac })}\n` : '0\n';
      writeFileSync(this.names.in(`days${sep}${ZEROS_CHECKED}`), signed, { mode: 0o600 });
    } catch {
      // left unsaid
    }
  }
}
