/**
 * Demo data: wallets and historic payouts as a pure function of the seed (and of the
 * UTC day the sandbox starts, which anchors "the last weeks"), plus bulk records for
 * list tests and benchmarks.
 */
import { randomBytes } from 'node:crypto';
import { feeFor, type Payout, type Recipient, type Wallet } from './state.js';

/** mulberry32: a tiny, fast, seeded PRNG giving floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;

function int(rand: Rand, min: number, max: number): number {
  return min + Math.floor(rand() * (max - min + 1));
}

function hex(rand: Rand, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(rand() * 16).toString(16);
  return s;
}

function uuid(rand: Rand): string {
  const h = hex(rand, 32);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function pick<T>(rand: Rand, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

/** Minor units between min and max whole units, with cents. */
function amountMinor(rand: Rand, minUnits: number, maxUnits: number, digits = 2): bigint {
  const whole = BigInt(int(rand, minUnits, maxUnits));
  const cents = digits > 0 ? BigInt(int(rand, 0, 10 ** digits - 1)) : 0n;
  return whole * 10n ** BigInt(digits) + cents;
}

const WALLET_PLANS = [
  { name: 'Freetown Operations', currency: 'SLE', min: 400_000, max: 2_500_000 },
  { name: 'Bo Field Payroll', currency: 'SLE', min: 60_000, max: 450_000 },
  { name: 'Lagos Suppliers', currency: 'NGN', min: 4_000_000, max: 45_000_000 },
] as const;

const SLE_PEOPLE = [
  'Aminata Kamara',
  'Mohamed Sesay',
  'Fatmata Bangura',
  'Ibrahim Conteh',
  'Mariama Jalloh',
  'Abdul Koroma',
  'Isatu Turay',
  'Sorie Mansaray',
  'Hawa Kargbo',
  'Alusine Fofanah',
];
const NGN_PEOPLE = ['Chinedu Okafor', 'Ngozi Adeyemi', 'Tunde Balogun', 'Aisha Bello', 'Emeka Nwosu', 'Funmilayo Adebayo'];
const SLE_WALLET_PROVIDERS = ['orange_money', 'afrimoney', 'qmoney'];
const SLE_BANKS = ['ecobank', 'uba', 'skybank', 'rokel_commercial_bank'];
const NGN_WALLET_PROVIDERS = ['opay', 'palmpay'];
const NGN_BANKS = ['access_bank', 'gtbank', 'zenith_bank'];
const NOTES = ['October stipend', 'Field allowance', 'Supplier invoice', 'Transport refund', null];

function recipientFor(rand: Rand, currency: string, failing: boolean): Recipient {
  const sle = currency === 'SLE';
  const name = pick(rand, sle ? SLE_PEOPLE : NGN_PEOPLE);
  const isWallet = rand() < 0.65;
  const provider = pick(rand, isWallet ? (sle ? SLE_WALLET_PROVIDERS : NGN_WALLET_PROVIDERS) : sle ? SLE_BANKS : NGN_BANKS);
  const local = sle ? `0${pick(rand, ['76', '77', '78', '30', '33', '88'])}${String(int(rand, 100000, 999999))}` : `080${String(int(rand, 10000000, 99999999))}`;
  let accountNumber = isWallet ? local : String(int(rand, 1000000000, 9999999999));
  if (failing) accountNumber = accountNumber.slice(0, -4) + '0000';
  const phone = sle ? `+232${local.slice(1)}` : `+234${local.slice(1)}`;
  return {
    type: isWallet ? 'wallet' : 'bank',
    accountDetails: {
      name,
      provider,
      accountNumber,
      phoneNumber: isWallet ? phone : null,
      note: pick(rand, NOTES),
    },
  };
}

export interface DemoData {
  wallets: Wallet[];
  payouts: Payout[];
}

const DAY_MS = 86_400_000;

/**
 * The demo wallets and (with `withPayouts`) about 25 historic payouts in every status,
 * spread over the four weeks before `anchorMs`'s UTC day. Same seed and day, same data.
 */
export function demoData(seed: number, anchorMs: number, withPayouts: boolean): DemoData {
  const rand = prng(seed);
  const dayStart = Math.floor(anchorMs / DAY_MS) * DAY_MS;
  const wallets: Wallet[] = WALLET_PLANS.map((plan) => ({
    id: String(int(rand, 1_000_000_000, 9_999_999_999)),
    name: plan.name,
    currency: plan.currency,
    balance: amountMinor(rand, plan.min, plan.max),
    updatedUs: (dayStart - int(rand, 1, 6 * 3600) * 1000) * 1000,
  }));
  const payouts: Payout[] = [];
  if (!withPayouts) return { wallets, payouts };
  const count = 24 + int(rand, 0, 3);
  for (let i = 0; i < count; i++) {
    const wallet = wallets[i % wallets.length]!;
    // The first three cover every status; then mostly Successful.
    const r = rand();
    const status = i < 3 ? (['Successful', 'Failed', 'Pending'] as const)[i]! : r < 0.6 ? 'Successful' : r < 0.8 ? 'Failed' : 'Pending';
    const failing = status === 'Failed';
    const amount = wallet.currency === 'NGN' ? amountMinor(rand, 15_000, 650_000) : amountMinor(rand, 50, 6_000);
    const createdMs = dayStart - int(rand, 1, 28) * DAY_MS + int(rand, 6 * 3600, 20 * 3600) * 1000;
    const createdUs = createdMs * 1000 + int(rand, 0, 999);
    const updatedUs = status === 'Pending' ? createdUs : createdUs + int(rand, 2, 600) * 1_000_000;
    payouts.push({
      transactionId: 'TXN-BOK-' + hex(rand, 26).toUpperCase(),
      payoutId: uuid(rand),
      walletId: wallet.id,
      amount,
      fee: feeFor(amount),
      currency: wallet.currency,
      status,
      failureReason: failing ? 'Recipient account rejected by the provider (account not found).' : null,
      recipient: recipientFor(rand, wallet.currency, failing),
      orderId: 'ORD-' + hex(rand, 16).toUpperCase(),
      idempotencyKey: uuid(rand),
      metadata: rand() < 0.5 ? { batch: `demo-${String(int(rand, 1, 9))}` } : null,
      createdUs,
      updatedUs,
      autoSettle: false,
    });
  }
  return { wallets, payouts };
}

/**
 * `count` bulk payout records over the 90 days before `nowMs`, evenly spaced, for list
 * tests and benchmarks. Recipients come from a small shared pool so 100,000 records stay
 * small in memory (about 0.7 kB each). Wallets are used in turn unless one is given;
 * statuses cycle Successful, Pending, Failed (per round of wallets) unless one is
 * given. Generated records do not settle.
 */
export function generatedPayouts(count: number, wallets: readonly Wallet[], nowMs: number, status?: string): Payout[] {
  if (wallets.length === 0) throw new RangeError('no wallet to generate payouts for');
  const rand = prng(count ^ (nowMs & 0x7fffffff));
  const run = randomBytes(6).toString('hex').toUpperCase();
  const pools = new Map<string, Recipient[]>();
  for (const w of wallets) {
    if (!pools.has(w.currency))
      pools.set(
        w.currency,
        Array.from({ length: 32 }, (_, i) => recipientFor(rand, w.currency, i % 8 === 7)),
      );
  }
  const cycle = ['Successful', 'Pending', 'Failed'];
  const spanUs = 90 * DAY_MS * 1000;
  const endUs = nowMs * 1000 - 1_000_000;
  const step = Math.max(1, Math.floor(spanUs / Math.max(1, count)));
  const out = new Array<Payout>(count);
  for (let i = 0; i < count; i++) {
    const wallet = wallets[i % wallets.length]!;
    const st = status ?? cycle[Math.floor(i / wallets.length) % 3]!;
    const amount = wallet.currency === 'NGN' ? amountMinor(rand, 1_000, 500_000) : amountMinor(rand, 10, 5_000);
    const pool = pools.get(wallet.currency)!;
    const recipient = st === 'Failed' ? pool[7]! : pool[i % 32 === 7 ? 0 : i % 32]!;
    const counter = i.toString(16).toUpperCase().padStart(14, '0');
    const idPattern = `${run.slice(0, 8)}-${run.slice(8, 12)}-4000-%-${counter.slice(2)}`.toLowerCase();
    const createdUs = endUs - (count - 1 - i) * step;
    out[i] = {
      transactionId: `TXN-BOK-${run}${counter}`,
      payoutId: idPattern.replace('%', '8000'),
      walletId: wallet.id,
      amount,
      fee: feeFor(amount),
      currency: wallet.currency,
      status: st,
      failureReason: st === 'Failed' ? 'Recipient account rejected by the provider (account not found).' : null,
      recipient,
      orderId: `ORD-${run.slice(0, 8)}${counter.slice(6)}`,
      idempotencyKey: idPattern.replace('%', '9000'),
      metadata: null,
      createdUs,
      updatedUs: createdUs,
      autoSettle: false,
    };
  }
  return out;
}
