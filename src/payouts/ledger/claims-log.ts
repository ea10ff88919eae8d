/**
 * The local ledger's claims through this process's batch log (docs/architecture.md, "The
 * ledger"; log.ts for the file): a batch run's rows are created as lines of its log and claimed
 * by hard links of the log's claim file, their outcomes appended to it, and the log compacted
 * when the run ends. local.ts gives it the rooms it shares (the folder, names, signatures,
 * markers, the index).
 */
import { linkSync } from 'node:fs';
import type { JournalFolder } from './atomic-files.js';
import type { JournalIndex } from './gaps.js';
import type { JournalEntry } from './ledger.js';
import { LogWriter } from './log.js';
import type { JournalMac } from './mac.js';
import type { Markers } from './markers.js';
import type { EntryNames } from './names.js';

export class ClaimsLog {
  /** This process's log (batch runs: begin with `log`), made on first use. */
  #log: LogWriter | undefined;
  /** Names of the entries this process claimed in its log: their outcomes are appended there. */
  readonly #logged = new Set<string>();
  /** Entries being created in the log now: close waits for them (a claim may follow its line). */
  readonly #creating = new Set<Promise<boolean>>();

  constructor(
    readonly dir: string,
    readonly rooms: { folder: JournalFolder; names: EntryNames; mac: JournalMac; markers: Markers; index: JournalIndex },
  ) {}

  /** Whether entry `name` was claimed in this process's log (its outcome then goes there). */
  has(name: string): boolean {
    return this.#log !== undefined && this.#logged.has(name);
  }

  /** An outcome of an entry claimed here: written at once, durable with the log's next fsync (LogWriter.appendNow). */
  appendNow(name: string, entryJson: string): Promise<void> {
    return this.#log!.appendNow(name, entryJson);
  }

  /**
   * Creates the entry in this process's log if none exists for its payout id: its line
   * appended and durable (shared with the lines of the same moment), then the exclusive
   * claim, a hard link of the log's claim file under the entry's name (and the markers,
   * links too), then the folder synced, shared likewise. Returns false when another was
   * first: its entry is the one to send (this one's line is never read).
   */
  async create(entry: JournalEntry): Promise<boolean> {
    const creating = this.#claim(entry);
    this.#creating.add(creating);
    try {
      return await creating;
    } finally {
      this.#creating.delete(creating);
    }
  }

  async #claim(entry: JournalEntry): Promise<boolean> {
    const { folder, names, mac, markers } = this.rooms;
    await folder.ensure();
    const log = (this.#log ??= this.#open());
    const name = names.of(entry.baseUrl, entry.payoutId);
    // The claim file is made (the first time) while the line is written: both are durable before a name links to it.
    // Links to it: the claim, and a marker a look-up key (the day's marker is one a claim file, markers.ts).
    const claimed = log.claimFile(1 + (entry.fingerprint ? 1 : 0) + (entry.repeatKey ? 1 : 0) + (entry.zeroKey && entry.zeroKey !== entry.repeatKey ? 1 : 0));
    claimed.catch(() => {}); // awaited below
    await log.append(name, mac.signedJson(entry));
    const claim = await claimed;
    markers.mark(entry, name, claim);
    try {
      linkSync(claim, names.in(name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    this.#logged.add(name);
    await folder.sync();
    return true;
  }

  /** This process's log, made on the first claim in it: the folder and the index are then held open until close. */
  #open(): LogWriter {
    this.rooms.folder.holdOpen = true;
    this.rooms.index.holdOpen = true;
    return new LogWriter(this.dir);
  }

  /**
   * At the end of a batch run: the log rewritten with the latest line of each entry this
   * process claimed (compacted), after every append. A failure leaves the log as it was:
   * still whole, only longer.
   */
  async close(): Promise<void> {
    const log = this.#log;
    if (!log) return;
    await Promise.allSettled([...this.#creating]);
    try {
      await log.compact(this.#logged);
    } finally {
      await this.rooms.folder.release();
      this.rooms.index.close();
    }
  }
}
