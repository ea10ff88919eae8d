import { describe, expect, it } from 'vitest';
import { fingerprintOf, IDEMPOTENCY_TTL_MS, IdempotencyStore } from '../../src/sandbox/idempotency.js';

describe('IdempotencyStore', () => {
  it('forgets a key after 24 hours: the key then runs afresh', () => {
    let now = 1_000_000;
    const store = new IdempotencyStore(() => now);
    expect(store.begin('k', fingerprintOf('{"a":1}'))).toEqual({ kind: 'new' });
    store.finish('k', { status: 201, body: 'first' });
    now += IDEMPOTENCY_TTL_MS - 1;
    expect(store.begin('k', fingerprintOf('{"a":1}'))).toEqual({ kind: 'replay', answer: { status: 201, body: 'first' } });
    expect(store.begin('k', fingerprintOf('{"a":2}'))).toEqual({ kind: 'reused' });
    now += 1;
    expect(store.begin('k', fingerprintOf('{"a":2}'))).toEqual({ kind: 'new' });
  });

  it('releases a key on a 5xx answer and keeps it locked while in progress', () => {
    const store = new IdempotencyStore();
    expect(store.begin('k', fingerprintOf('{}')).kind).toBe('new');
    expect(store.begin('k', fingerprintOf('{}')).kind).toBe('in-progress');
    expect(store.begin('k', fingerprintOf('{"other":1}')).kind).toBe('in-progress');
    store.finish('k', { status: 503, body: 'x' });
    expect(store.begin('k', fingerprintOf('{}')).kind).toBe('new');
    store.release('k');
    expect(store.begin('k', fingerprintOf('{}')).kind).toBe('new');
  });

  it('compares non-JSON bodies as raw text', () => {
    const store = new IdempotencyStore();
    store.begin('k', fingerprintOf('{oops'));
    store.finish('k', { status: 400, body: 'bad' });
    expect(store.begin('k', fingerprintOf('{oops')).kind).toBe('replay');
    expect(store.begin('k', fingerprintOf('{oops ')).kind).toBe('reused');
    expect(store.begin('k', fingerprintOf('{}')).kind).toBe('reused');
  });
});
