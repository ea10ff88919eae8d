/**
 * The transaction ids of a whole list read (commands/payouts/pages.ts listPages, and history
 * reconcile's candidate search: lookup.ts), kept small: a payout sent again on any
 * later page is told by its id, and `payouts list --all` reads 100,000 payouts and more in
 * little memory. An id of the documented form (`TXN-BOK-` and 26 upper-case hex digits:
 * docs/service.md) is kept as its 104 bits in four 32-bit words of one typed array, whatever its
 * case and the spaces around it; any other id as its exact string. Beside each id, two words of
 * what its first copy said (`copyWords`: its amount by value, its currency, its status), so a
 * later copy that says otherwise is told (`differingFields`) instead of silently dropped: 24
 * bytes an id, against some 60 for the string alone in a Set.
 */
import { toDecimal } from '../money/amount.js';
import { normalizeStatus, TRANSACTION_ID, type PayoutRecord } from '../service/schemas.js';

/** What a copy of a payout said, in two words: its amount's hash; its currency (15 bits) and its status (17 bits). */
export type CopyWords = readonly [number, number];

/** FNV-1a of a text, 32 bits. */
function textHash(text: string): number {
  let h = 0x811c_9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x0100_0193);
  return h >>> 0;
}

/** An amount's value as one text: "10.000", "10.00", "010" and 10 are "10". */
function amountValue(v: number | string): string {
  let s = toDecimal(v);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s.replace(/^(-?)0+(?=\d)/, '$1');
}

const STATUS_CODES: Record<string, number> = { Successful: 1, Failed: 2, Pending: 3 };

/**
 * What a record says that a second copy of it must say too: its amount (by value), its currency
 * (three letters: service/schemas.ts, packed exactly) and its status (normalized; another word
 * by its hash). Two copies differ in a field when its words do (an amount told apart by a 32-bit
 * hash: one pair in four billion passes for the same).
 */
export function copyWords(r: Pick<PayoutRecord, 'amount' | 'currency' | 'status'>): CopyWords {
  let currency = 0;
  for (let i = 0; i < 3; i++) currency = currency * 32 + ((r.currency.charCodeAt(i) - 64) & 31);
  const word = r.status ? normalizeStatus(r.status) : '';
  const status = word === '' ? 0 : (STATUS_CODES[word] ?? 4 + (textHash(word) & 0x1_fff));
  return [textHash(amountValue(r.amount)), ((status << 15) | currency) >>> 0];
}

/** The fields in which two copies differ: "amount", "currency", "status" (none: the same). */
export function differingFields(a: CopyWords, b: CopyWords): string[] {
  const fields: string[] = [];
  if (a[0] !== b[0]) fields.push('amount');
  if ((a[1] & 0x7fff) !== (b[1] & 0x7fff)) fields.push('currency');
  if (a[1] >>> 15 !== b[1] >>> 15) fields.push('status');
  return fields;
}

const NO_COPY: CopyWords = [0, 0];

/** Words a slot takes: three of 7 hex digits, one of 5 with the slot's in-use bit, two of the first copy (CopyWords). */
const WORDS = 6;
const IN_USE = 0x8000_0000;

export class ListedIds {
  #slots = new Uint32Array(1024 * WORDS);
  #count = 0;
  readonly #others = new Map<string, CopyWords>();

  /** Adds `id`; whether it was there before. */
  addSeen(given: string): boolean {
    return this.add(given, NO_COPY) !== undefined;
  }

  /** Adds `id` with what its copy says; undefined when it is new, else what its first copy said. */
  add(given: string, copy: CopyWords): CopyWords | undefined {
    // Written in lower case or with spaces around it, a documented id is the same transaction, as
    // `payout get` reads a typed one: a repeat in another case is not a second payout in a total.
    // The documented form as sent (nearly every id): tested once, nothing made for it.
    let id = given;
    if (!TRANSACTION_ID.test(id)) {
      id = given.trim().toUpperCase();
      if (!TRANSACTION_ID.test(id)) {
        const first = this.#others.get(given);
        if (first === undefined) this.#others.set(given, copy);
        return first;
      }
    }
    const hex = id.slice(8);
    const w0 = parseInt(hex.slice(0, 7), 16);
    const w1 = parseInt(hex.slice(7, 14), 16);
    const w2 = parseInt(hex.slice(14, 21), 16);
    const w3 = (parseInt(hex.slice(21), 16) | IN_USE) >>> 0;
    const at = this.#find(w0, w1, w2, w3);
    if (at !== undefined) return [this.#slots[at + 4]!, this.#slots[at + 5]!];
    // Grown at nine tenths full: 100,000 ids in 2.4 MB, a free slot still a few probes away.
    if ((this.#count + 1) * 10 > (this.#slots.length / WORDS) * 9) this.#grow();
    this.#put(this.#slots, [w0, w1, w2, w3, copy[0], copy[1]]);
    this.#count++;
    return undefined;
  }

  /** Where the id's words are (the index of the slot's first word): linear probing from their hash, to the first free slot. */
  #find(w0: number, w1: number, w2: number, w3: number): number | undefined {
    const s = this.#slots;
    const mask = s.length / WORDS - 1;
    for (let i = hash(w0, w1, w2, w3) & mask; s[i * WORDS + 3] !== 0; i = (i + 1) & mask) {
      const at = i * WORDS;
      if (s[at] === w0 && s[at + 1] === w1 && s[at + 2] === w2 && s[at + 3] === w3) return at;
    }
    return undefined;
  }

  #put(s: Uint32Array, words: ArrayLike<number>): void {
    const mask = s.length / WORDS - 1;
    let i = hash(words[0]!, words[1]!, words[2]!, words[3]!) & mask;
    while (s[i * WORDS + 3] !== 0) i = (i + 1) & mask;
    for (let k = 0; k < WORDS; k++) s[i * WORDS + k] = words[k]!;
  }

  #grow(): void {
    const old = this.#slots;
    const s = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += WORDS) if (old[at + 3] !== 0) this.#put(s, old.subarray(at, at + WORDS));
    this.#slots = s;
  }
}

function hash(w0: number, w1: number, w2: number, w3: number): number {
  let h = Math.imul(w0 ^ 0x9e37_79b9, 0x85eb_ca6b);
  h = Math.imul(h ^ w1 ^ (h >>> 15), 0xc2b2_ae35);
  h = Math.imul(h ^ w2 ^ (h >>> 13), 0x85eb_ca6b);
  h = Math.imul(h ^ w3 ^ (h >>> 16), 0xc2b2_ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
