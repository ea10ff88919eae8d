// `npm run demo`: a short, real payctl session against the built-in sandbox.
// Starts the sandbox on a free port in a throwaway config folder, logs in, reads
// balances, payouts and the summary, sends a payout, looks it up, and stops the sandbox.
// Piped or redirected (stdout not a terminal), it writes plain text: no bold headers, and
// the payctl it runs gets NO_COLOR (and no FORCE_COLOR), so no escape sequence reaches a file.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/payctl.js', import.meta.url));
const configDir = mkdtempSync(join(tmpdir(), 'payctl-demo-'));
const env = { ...process.env, PAYCTL_CONFIG_DIR: configDir, PAYCTL_PROFILE: 'demo' };
delete env.PAYCTL_API_KEY;
delete env.PAYCTL_TOKEN;
delete env.PAYCTL_BASE_URL;
const plain = !process.stdout.isTTY;
if (plain) {
  env.NO_COLOR = '1';
  delete env.FORCE_COLOR;
}
const bold = (text) => (plain ? text : `\x1b[1m${text}\x1b[0m`);

function payctl(args, { input, show = true, allowFail = false } = {}) {
  if (show) process.stdout.write(`\n${bold(`$ payctl ${args.map((a) => (/[^\w\-.,:/@=+]/.test(a) ? `'${a}'` : a)).join(' ')}`)}\n`);
  const r = spawnSync(process.execPath, [bin, ...args], { env, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  if (show) {
    process.stdout.write(r.stdout);
    process.stdout.write(r.stderr);
  }
  if (r.status !== 0 && !allowFail) throw new Error(`payctl ${args.join(' ')} exited ${r.status}\n${r.stderr}`);
  return r;
}

let started = false;
let code = 0;
try {
  const start = payctl(['sandbox', 'start', '--detach', '--port', '0', '--settle-after', '2000', '--json'], { show: false });
  started = true;
  const sb = JSON.parse(start.stdout);
  process.stdout.write(`${bold('$ payctl sandbox start --detach')}\nSandbox running at ${sb.base_url} (pid ${sb.pid})\nAPI key: ${sb.api_key}\n`);

  // A throwaway sandbox key in a throwaway folder: kept in the 0600 file, so the demo asks
  // nothing of the OS keyring (and prints no notice about one this machine may not have).
  payctl(['login', '--api-key-stdin', '--base-url', sb.base_url, '--insecure-storage'], { input: sb.api_key + '\n' });
  payctl(['status']);
  payctl(['balances']);
  payctl(['payouts', 'list', '--limit', '5']);
  payctl(['summary']);
  const wallets = JSON.parse(payctl(['balances', '--currency', 'SLE', '--json'], { show: false }).stdout).data;
  const payoutId = `demo-${Date.now()}`;
  payctl([
    'payout',
    'create',
    '--wallet',
    wallets[0].wallet_id,
    '--amount',
    '1500.50',
    '--currency',
    'SLE',
    '--type',
    'wallet',
    '--name',
    'Aminata Kamara',
    '--provider',
    'Orange Money',
    '--account',
    '076123456',
    '--phone',
    '+23276123456',
    '--note',
    'October stipend',
    '--payout-id',
    payoutId,
    '--yes',
  ]);
  payctl(['payout', 'get', payoutId]);

  // A small batch: checked, planned against the balances, sent, reported; a rerun sends nothing new.
  const batchFile = join(configDir, 'stipends.csv');
  writeFileSync(
    batchFile,
    'payout_id,wallet_id,amount,currency,type,name,provider,account_number,phone_number,note\n' +
      `stipend-${payoutId}-1,${wallets[0].wallet_id},250.00,SLE,wallet,Fatmata Bangura,orange_money,076000001,+23276000001,November stipend\n` +
      `stipend-${payoutId}-2,${wallets[0].wallet_id},300.50,SLE,wallet,Ibrahim Koroma,afrimoney,077000002,+23277000002,November stipend\n` +
      `stipend-${payoutId}-3,${wallets[1].wallet_id},125.25,SLE,bank,Mariama Conteh,ecobank,0011223344,,November stipend\n`,
  );
  payctl(['payout', 'batch', batchFile, '--dry-run']);
  payctl(['payout', 'batch', batchFile, '--yes']);
  payctl(['payout', 'batch', batchFile, '--yes']);
  payctl(['balances', '--currency', 'SLE']);
} catch (err) {
  process.stderr.write(`\ndemo failed: ${err.message}\n`);
  code = 1;
} finally {
  if (started) payctl(['sandbox', 'stop'], { allowFail: true });
  rmSync(configDir, { recursive: true, force: true });
}
process.exit(code);
