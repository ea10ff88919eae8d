/**
 * A plan's signatures, made and checked in this one place (docs/architecture.md, "Where each
 * rule lives": plan hashes and signatures). The maker signs makerMessage(hash); each approver
 * signs approvalMessage(hash, name, public_key, signed_at). Both messages are canonical JSON
 * (canonical.ts) with a purpose, so a maker's signature is never an approval and neither is a
 * signature over anything else. A key is written in a plan with its fingerprint, and the
 * fingerprint must be that key's (keys.ts): a name or fingerprint alone proves nothing.
 */
import { canonicalJson } from './canonical.js';
import { fingerprintOf, signText, verifyText, type SigningKey } from './keys.js';

export interface Approval {
  name: string;
  public_key: string;
  fingerprint: string;
  signed_at: string;
  /** Ed25519 over approvalMessage(hash, name, public_key, signed_at), base64. */
  signature: string;
}

/** What the maker signs: the plan's hash. */
export function makerMessage(hash: string): string {
  return canonicalJson({ purpose: 'payctl-plan-maker-v1', hash });
}

/** What an approver signs: the plan's hash, with their name, key and the time. */
export function approvalMessage(hash: string, a: Pick<Approval, 'name' | 'public_key' | 'signed_at'>): string {
  return canonicalJson({ purpose: 'payctl-plan-approval-v1', hash, name: a.name, public_key: a.public_key, signed_at: a.signed_at });
}

/** The maker's signature of a plan's hash, base64. */
export function makerSignature(key: SigningKey, hash: string): string {
  return signText(key, makerMessage(hash));
}

/** This key's approval of the plan whose hash this is, signed at `signedAt` (ISO time). */
export function signApproval(key: SigningKey, hash: string, signedAt: string): Approval {
  const approval = { name: key.name, public_key: key.publicKey, fingerprint: key.fingerprint, signed_at: signedAt };
  return { ...approval, signature: signText(key, approvalMessage(hash, approval)) };
}

/** Whether a key as a plan writes it carries its own fingerprint (not one copied from another key). */
export function fingerprintHolds(k: { public_key: string; fingerprint: string }): boolean {
  const fp = fingerprintOf(k.public_key);
  return fp !== undefined && fp === k.fingerprint;
}

/** Whether the maker's signature is over this hash, by the maker's key. */
export function makerSignatureHolds(plan: { hash: string; maker: { public_key: string }; maker_signature: string }): boolean {
  return verifyText(plan.maker.public_key, makerMessage(plan.hash), plan.maker_signature);
}

/** Whether an approval's signature is over this hash (and its name, key and time), by its key. */
export function approvalSignatureHolds(hash: string, a: Approval): boolean {
  return verifyText(a.public_key, approvalMessage(hash, a), a.signature);
}

/**
 * Whether an approval is a signature of this plan by the key whose fingerprint it gives: its
 * fingerprint is its key's and its signature holds. One that does not is nobody's approval: it
 * is never "your approval already", and the shared ledger lets its key's owner store theirs in
 * its place (ledger/postgres/plans.ts).
 */
export function approvalHolds(hash: string, a: Approval): boolean {
  return fingerprintHolds(a) && approvalSignatureHolds(hash, a);
}
