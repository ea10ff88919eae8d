/**
 * The transaction ids of a whole list read (commands/payouts/pages.ts listPages, and history
 * reconcile's candidate search: lookup.ts), kept small: a payout sent again on any
 * later page is told by its id, and `payouts list --all` reads 100,000 payouts and more in
 * little memory. An id of the documented form (`TXN-BOK-` and 26 upper-case hex digits:
 * docs/service.md) is kept as its 104 bits in four 32-bit words of one typed array (16 bytes,
 * against some 60 for the string in a Set), whatever its case and the spaces around it; any
 * other id as its exact string.
 */
import { TRANSACTION_ID } from '../service/schemas.js';

/** Words a slot takes: three of 7 hex digits, one of 5 with the slot's in-use bit. */
const WORDS = 4;
const IN_USE = 0x8000_0000;

export class ListedIds {
  #slots = new Uint32Array(1024 * WORDS);
  #count = 0;
  readonly #others = new Set<string>();

  /** Adds `id`; whether it was there before. */
  addSeen(given: string): boolean {
    // Written in lower case or with spaces around it, a documented id is the same transaction, as
    // `payout get` reads a typed one: a repeat in another case is not a second payout in a total.
    // The documented form as sent (nearly every id): tested once, nothing made for it.
    let id = given;
    if (!TRANSACTION_ID.test(id)) {
      id = given.trim().toUpperCase();
      if (!TRANSACTION_ID.test(id)) {
        if (this.#others.has(given)) return true;
        this.#others.add(given);
        return false;
      }
    }
    const hex = id.slice(8);
    const w0 = parseInt(hex.slice(0, 7), 16);
    const w1 = parseInt(hex.slice(7, 14), 16);
    const w2 = parseInt(hex.slice(14, 21), 16);
    const w3 = (parseInt(hex.slice(21), 16) | IN_USE) >>> 0;
    if (this.#find(w0, w1, w2, w3)) return true;
    // Grown at nine tenths full: 100,000 ids in 2 MB, a free slot still a few probes away.
    if ((this.#count + 1) * 10 > (this.#slots.length / WORDS) * 9) this.#grow();
    this.#put(this.#slots, w0, w1, w2, w3);
    this.#count++;
    return false;
  }

  /** Whether the words are in a slot: linear probing from their hash, to the first free slot. */
  #find(w0: number, w1: number, w2: number, w3: number): boolean {
    const s = this.#slots;
    const mask = s.length / WORDS - 1;
    for (let i = hash(w0, w1, w2, w3) & mask; s[i * WORDS + 3] !== 0; i = (i + 1) & mask) {
      const at = i * WORDS;
      if (s[at] === w0 && s[at + 1] === w1 && s[at + 2] === w2 && s[at + 3] === w3) return true;
    }
    return false;
  }

  #put(s: Uint32Array, w0: number, w1: number, w2: number, w3: number): void {
    const mask = s.length / WORDS - 1;
    let i = hash(w0, w1, w2, w3) & mask;
    while (s[i * WORDS + 3] !== 0) i = (i + 1) & mask;
    const at = i * WORDS;
    s[at] = w0;
    s[at + 1] = w1;
    s[at + 2] = w2;
    s[at + 3] = w3;
  }

  #grow(): void {
    const old = this.#slots;
    const s = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += WORDS) if (old[at + 3] !== 0) this.#put(s, old[at]!, old[at + 1]!, old[at + 2]!, old[at + 3]!);
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
