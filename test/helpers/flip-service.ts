/**
 * A plain node:http server that plays the service for `payout batch status` tests whose look-ups
 * answer a payout one status, then another (batch-status-contradicted.test.ts: Successful, then
 * Failed; batch-status-read-failed.test.ts: Failed, then Successful): `/auth/user`, the wallets,
 * `POST /payout` (each recorded in `posts`), `GET /payout/list` (one page: the payouts made, as
 * last read, and `listed`, records of other wallets a test adds), and `GET /payout/{transaction id}`
 * answering `statusOf(account, n)` at the payout's `n`th read (0 first). A config folder with a
 * profile for it is made (`profile`, default when not given); `close` ends both.
 */
import { createServer } from 'node:http';
import { tempConfigDir } from './cli.js';
import { writeProfile } from './e2e.js';

export interface FlipService {
  cfg: ReturnType<typeof tempConfigDir>;
  posts: Array<{ account: string; payoutId: string }>;
  /** Each payout made, by its transaction id. */
  sent: Map<string, { amount: number; currency: string; account: string; name: string; payoutId: string; walletId: string; createdAt: string }>;
  /** Records `GET /payout/list` answers besides the payouts made (as the service words a record). */
  listed: unknown[];
  close(): Promise<void>;
}

export const FLIP_WALLET = '6643665465';

export async function startFlipService(o: { key: string; statusOf: (account: string, n: number) => string; profile?: string }): Promise<FlipService> {
  const posts: FlipService['posts'] = [];
  const sent: FlipService['sent'] = new Map();
  const reads = new Map<string, number>();
  const listed: unknown[] = [];
  /** The list's record of a payout made, with the status its last read gave (the first read's, before any). */
  const recordOf = (txn: string, p: FlipService['sent'] extends Map<string, infer V> ? V : never) => ({
    transaction_id: txn,
    wallet_id: p.walletId,
    status: o.statusOf(p.account, Math.max(0, (reads.get(txn) ?? 1) - 1)),
    amount: p.amount.toFixed(2),
    currency: p.currency,
    recipient: { transfer_type: 'bank', account_number: p.account, name: p.name, bank: 'ECOBANK' },
    created_at: p.createdAt,
  });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const ts = '2026-11-28T20:48:13.046000Z';
      const reply = (code: number, data: unknown, message = 'ok') =>
        res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify({ status: code < 300 ? 'Successful' : 'Failed', message, data, timestamp: ts }));
      const path = (req.url ?? '').replace(/^\/v2/, '');
      if (path === '/auth/user')
        return reply(200, {
          walletId: FLIP_WALLET,
          email: 'a@b.test',
          firstName: 'A',
          lastName: 'B',
          status: 'ACTIVE',
          kycStatus: 'Verified',
          businessName: 'Fake Ltd',
          country: 'SL',
        });
      if (path === '/wallets/balances') return reply(200, [{ wallet_id: FLIP_WALLET, wallet_name: 'Ops', currency: 'SLE', balance: 405720.27, updated_at: ts }]);
      if (path.startsWith('/payout/list')) {
        const page = Number(new URL(req.url ?? '', 'http://x').searchParams.get('page') ?? '1');
        return reply(200, page > 1 ? [] : [...[...sent].map(([txn, p]) => recordOf(txn, p)), ...listed]);
      }
      if (path === '/payout' && req.method === 'POST') {
        const j = JSON.parse(body);
        const account = j.recipient.accountDetails.accountNumber;
        const txn = `TXN-BOK-${(posts.length + 1).toString(16).toUpperCase().padStart(26, 'A')}`;
        posts.push({ account, payoutId: j.payoutId });
        const createdAt = new Date().toISOString();
        sent.set(txn, {
          amount: Number(j.amount),
          currency: j.currency,
          account,
          name: j.recipient.accountDetails.name,
          payoutId: j.payoutId,
          walletId: j.walletId,
          createdAt,
        });
        return reply(
          201,
          { transaction_id: txn, amount: j.amount, fee: 0.25, currency: j.currency, provider_response: { status: 'Pending' }, payout_id: j.payoutId, created_at: ts },
          'Transfer initiated successfully',
        );
      }
      const txn = /^\/payout\/(TXN-BOK-[0-9A-F]+)$/.exec(path)?.[1];
      const p = txn ? sent.get(txn) : undefined;
      if (txn && p && req.method === 'GET') {
        const n = reads.get(txn) ?? 0;
        reads.set(txn, n + 1);
        const status = o.statusOf(p.account, n);
        return reply(200, {
          transaction_id: txn,
          payout_id: p.payoutId,
          status,
          amount: p.amount.toFixed(2),
          currency: p.currency,
          fee: '0.25',
          recipient: { transfer_type: 'bank', account_number: p.account, name: p.name, bank: 'ECOBANK' },
          failure_reason: status === 'failed' ? 'flip' : null,
          created_at: ts,
          updated_at: n === 0 ? '2026-11-28T20:48:13.046000Z' : '2026-11-28T21:00:00.000000Z',
        });
      }
      reply(404, null, 'Not found');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const cfg = tempConfigDir();
  const port = (server.address() as { port: number }).port;
  writeProfile(cfg.dir, { baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: o.key }, ...(o.profile ? [o.profile] : []));
  return {
    cfg,
    posts,
    sent,
    listed,
    close: async () => {
      cfg.cleanup();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
