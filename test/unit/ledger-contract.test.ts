/**
 * The local store of the ledger against the Ledger contract (test/helpers/ledger-contract.ts):
 * what any store must do, run here on files in a fresh config folder per test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { LocalLedger } from '../../src/payouts/ledger/local.js';
import { ledgerContract } from '../helpers/ledger-contract.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'payctl-ledger-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

ledgerContract('the local store', () => new LocalLedger(root));
