/**
 * A Failed payout's reason comes from the service: `payout get --wait` says it on one line, its
 * line breaks and controls removed, so the service cannot add a line of its own making to the
 * error ("FAKE: Successful" under it). A plain node:http server plays the look-up.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { writeProfile } from '../helpers/e2e.js';
import { payctl } from '../helpers/in-process.js';

const KEY = 'bok_live_wait_reason_0123456789';
const TXN = 'TXN-BOK-19D76B26EF9AC60FCC66D7E410';
let server: Server;
let cfg: ReturnType<typeof tempConfigDir>;

beforeAll(async () => {
  server = createServer((req, res) => {
    const record = {
      transaction_id: TXN,
      status: 'failed',
      failure_reason: 'Rejected by the provider.\r\nFAKE: Successful\u001b[2K',
      amount: '10.00',
      currency: 'SLE',
      recipient: { transfer_type: 'bank', account_number: '0011', name: 'X', bank: 'UBA' },
      created_at: '2026-11-27T10:00:00.000000Z',
    };
    if (req.url === `/v2/payout/${TXN}`)
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'Successful', message: 'ok', data: record }));
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cfg = tempConfigDir();
  const port = (server.address() as { port: number }).port;
  writeProfile(cfg.dir, { baseUrl: `http://127.0.0.1:${port}/v2`, apiKey: KEY });
});

afterAll(async () => {
  cfg?.cleanup();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('payout get --wait of a Failed payout', () => {
  it('says the reason on one line: no line of the service making, no escape sequence', async () => {
    const r = await payctl(['payout', 'get', TXN, '--wait'], { dir: cfg.dir });
    expect(r.code, r.stderr).toBe(1);
    const line = r.stderr.split('\n').find((l) => l.startsWith('Error: '));
    expect(line, r.stderr).toMatch(/^Error: Payout .* failed: Rejected by the provider\. ?FAKE: Successful\.?$/);
    expect(r.stderr.split('\n').some((l) => l.startsWith('FAKE'))).toBe(false);
    expect(r.stderr).not.toContain('\u001b');
  });
});
