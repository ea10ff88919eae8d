// The ledger on SQLite (docs/architecture.md, "The ledger"): the Ledger interface of
// src/payouts/ledger/ledger.ts built a second time, on better-sqlite3, to measure it against the
// local store (bench/ledger.mjs). It does not ship: nothing in src/ imports it, and it is only
// run bundled by bench/ledger.mjs (esbuild resolves its imports of src/). Kept with its numbers
// after SQLite lost, so the measurement can be run again.
//
// One file `<config>/ledger.sqlite` in WAL mode; one row per entry, UNIQUE(base_url, payout_id)
// (the normalized base URL) being the claim: of two processes claiming a payout id, one insert
// wins. Rows are signed with the same key as the local store's entries (mac.ts), since the file
// is as writable by others as the journal folder. Claims made with `log` (a batch) are grouped:
// the claims of the same moment go in one transaction (synchronous=FULL: one fsync of the WAL),
// and so do outcomes (synchronous=NORMAL: durable against the process being killed, not the
// machine, as the local store's outcomes appended to its log). Entries of a journal folder
// written before are not read (a real store would import them first): not counted here.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { journalBase } from '../src/payouts/ledger/base-url.ts';
import { acceptedStands, conflictOf, newEntry, reused, withOutcome } from '../src/payouts/ledger/entries.ts';
import { JournalMac } from '../src/payouts/ledger/mac.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries (
  id INTEGER PRIMARY KEY,
  base_url TEXT NOT NULL,
  payout_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  fingerprint TEXT,
  repeat_key TEXT,
  transaction_id TEXT,
  entry TEXT NOT NULL,
  UNIQUE (base_url, payout_id)
);
CREATE INDEX IF NOT EXISTS entries_fingerprint ON entries (base_url, fingerprint) WHERE fingerprint IS NOT NULL;
CREATE INDEX IF NOT EXISTS entries_repeat ON entries (base_url, repeat_key) WHERE repeat_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS entries_transaction ON entries (base_url, transaction_id) WHERE transaction_id IS NOT NULL;
`;

export class SqliteLedger {
  #db;
  #mac;
  #q;
  #claims = [];
  #outcomes = [];
  #flush;
  #file;
  /** Set by the first grouped claim (a batch run): outcomes are grouped too from then on. */
  #grouping = false;

  /** `Database`: better-sqlite3's export (required by the caller, from the project's node_modules). */
  constructor(configDir, Database) {
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    this.#file = join(configDir, 'ledger.sqlite');
    this.#db = new Database(this.#file);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = FULL');
    this.#db.exec(SCHEMA);
    this.#mac = new JournalMac(configDir, join(configDir, 'journal'));
    const db = this.#db;
    this.#q = {
      insert: db.prepare(
        'INSERT INTO entries (base_url, payout_id, created_at, fingerprint, repeat_key, transaction_id, entry) VALUES (?, ?, ?, ?, ?, NULL, ?) ON CONFLICT (base_url, payout_id) DO NOTHING',
      ),
      update: db.prepare('UPDATE entries SET entry = ?, transaction_id = ? WHERE base_url = ? AND payout_id = ?'),
      get: db.prepare('SELECT entry FROM entries WHERE base_url = ? AND payout_id = ?').pluck(),
      byId: db.prepare('SELECT entry FROM entries WHERE id = ?').pluck(),
      fingerprint: db.prepare('SELECT entry FROM entries WHERE base_url = ? AND fingerprint = ? ORDER BY created_at').pluck(),
      repeat: db.prepare('SELECT entry FROM entries WHERE base_url = ? AND repeat_key = ? ORDER BY created_at').pluck(),
      transaction: db.prepare('SELECT entry FROM entries WHERE base_url = ? AND transaction_id = ? ORDER BY id LIMIT 1').pluck(),
      scan: db.prepare('SELECT id, entry FROM entries'),
    };
  }

  #verified(text) {
    return this.#mac.verified(JSON.parse(text), `${this.#file} (a row)`);
  }

  #row(text) {
    return text === undefined ? undefined : this.#verified(text);
  }

  // The reads of the interface are asynchronous; better-sqlite3's are not, and begin and record
  // use them as they are (#get).
  async get(baseUrl, payoutId) {
    return this.#get(baseUrl, payoutId);
  }

  #get(baseUrl, payoutId) {
    return this.#row(this.#q.get.get(journalBase(baseUrl), payoutId));
  }

  async find(baseUrl, kind, key) {
    return this.#q[kind === 'fingerprint' ? 'fingerprint' : 'repeat'].all(journalBase(baseUrl), key).map((t) => this.#verified(t));
  }

  async byTransactionId(baseUrl, transactionId) {
    return this.#row(this.#q.transaction.get(journalBase(baseUrl), transactionId));
  }

  async transactionOwner(baseUrl, transactionId) {
    return (await this.byTransactionId(baseUrl, transactionId))?.payoutId;
  }

  async *scan() {
    // Read whole first: better-sqlite3 forbids writes while an iterator is open.
    for (const { id, entry } of this.#q.scan.all()) {
      try {
        yield { name: String(id), entry: this.#verified(entry) };
      } catch (error) {
        yield { name: String(id), error };
      }
    }
  }

  async byName(name) {
    return this.#row(this.#q.byId.get(Number(name)));
  }

  conflict(existing, body, idempotencyKey) {
    return conflictOf(existing, body, idempotencyKey);
  }

  async journalGaps() {
    return undefined;
  }

  #insert(e) {
    return this.#q.insert.run(journalBase(e.baseUrl), e.payoutId, e.createdAt, e.fingerprint ?? null, e.repeatKey ?? null, this.#mac.signedJson(e)).changes === 1;
  }

  #update(e) {
    const o = e.outcome;
    this.#q.update.run(this.#mac.signedJson(e), o?.kind === 'accepted' ? (o.transactionId ?? null) : null, journalBase(e.baseUrl), e.payoutId);
  }

  async begin(opts) {
    const existing = opts.absent ? undefined : this.#get(opts.baseUrl, opts.payoutId);
    if (existing) return reused(existing, opts);
    const entry = newEntry(opts);
    if (opts.log) this.#grouping = true;
    const created = opts.log ? await this.#grouped(this.#claims, entry) : this.#db.transaction(() => this.#insert(entry))();
    if (created) return entry;
    return reused(this.#get(opts.baseUrl, opts.payoutId), opts);
  }

  async record(entry, outcome) {
    const stands = acceptedStands(entry, outcome, () => this.#get(entry.baseUrl, entry.payoutId));
    if (stands) return stands;
    const next = withOutcome(entry, outcome);
    if (this.#grouping) await this.#grouped(this.#outcomes, next);
    else this.#db.transaction(() => this.#update(next))();
    return next;
  }

  /** Queued for the group of this moment: one transaction for the claims, one for the outcomes. */
  #grouped(queue, entry) {
    return new Promise((resolve, reject) => {
      queue.push({ entry, resolve, reject });
      this.#flush ??= setImmediate(() => this.#commit());
    });
  }

  #commit() {
    this.#flush = undefined;
    const claims = this.#claims.splice(0);
    const outcomes = this.#outcomes.splice(0);
    for (const [group, sync, write] of [
      [claims, 'FULL', (e) => this.#insert(e)],
      [outcomes, 'NORMAL', (e) => (this.#update(e), true)],
    ]) {
      if (!group.length) continue;
      try {
        this.#db.pragma(`synchronous = ${sync}`);
        const results = this.#db.transaction(() => group.map((g) => write(g.entry)))();
        group.forEach((g, i) => g.resolve(results[i]));
      } catch (err) {
        for (const g of group) g.reject(err);
      } finally {
        this.#db.pragma('synchronous = FULL');
      }
    }
  }

  async closeLog() {
    while (this.#flush !== undefined) await new Promise((r) => setImmediate(r));
  }

  close() {
    this.#db.close();
  }
}
