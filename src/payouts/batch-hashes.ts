/**
 * The 64-bit hashes pass 1 of a batch's loading keeps of each row (batch-load.ts checkBatch):
 * 8 bytes a value, sorted to find the values present more than once.
 */
/** A growable array of 64-bit values and the row that gave each. */
export class Hashes {
  #values = new BigUint64Array(1024);
  #length = 0;
  push(v: bigint): void {
    if (this.#length === this.#values.length) {
      const next = new BigUint64Array(this.#values.length * 2);
      next.set(this.#values);
      this.#values = next;
    }
    this.#values[this.#length++] = v;
  }
  /** The values, sorted, to be searched (Hashes is not pushed to afterwards). */
  sorted(): BigUint64Array {
    return this.#values.subarray(0, this.#length).sort();
  }
  /** Values present more than once. */
  repeated(): Set<bigint> {
    const sorted = this.sorted();
    const out = new Set<bigint>();
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) out.add(sorted[i]!);
    return out;
  }
}

/** A fingerprint's first 64 bits, as a number to sort. */
export function fingerprint64(fingerprint: string): bigint {
  return BigInt(`0x${fingerprint.slice(0, 16)}`);
}
