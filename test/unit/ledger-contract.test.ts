/**
 * The stores of the ledger against the Ledger contract (test/helpers/ledger-contract.ts): what
 * any store must do, run on files in a fresh config folder per test (the local store) and on a
 * fresh database of the suite's PostgreSQL per test (the PostgreSQL store; two opens in one test
 * are two machines on the same database; it dates its claims by the database's clock, so entries
 * of other times are imported there).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe } from 'vitest';
import { LocalLedger } from '../../src/payouts/ledger/local.js';
import { newEntry } from '../../src/payouts/ledger/entries.js';
import { openPostgresLedger, type PostgresLedger } from '../../src/payouts/ledger/postgres/index.js';
import { ledgerContract } from '../helpers/ledger-contract.js';
import { sharedPostgres } from '../helpers/postgres.js';

describe('local', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'payctl-ledger-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  ledgerContract('the local store', () => new LocalLedger(root));
});

describe('PostgreSQL', () => {
  let url: string;
  beforeEach(async () => {
    url = await (await sharedPostgres()).freshDatabase('contract');
  });

  // It dates a claim by the database's clock: an entry of another time is put there as `ledger import` puts one.
  ledgerContract('the PostgreSQL store', () => openPostgresLedger(url, { env: {} }), {
    writeAt: async (ledger, opts) => {
      const entry = newEntry(opts);
      const [written] = await (ledger as PostgresLedger).insertEntries([entry]);
      if (!written?.inserted) throw new Error(`payout ${opts.payoutId} was there already`);
      return entry;
    },
  });
});
