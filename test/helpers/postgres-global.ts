/**
 * vitest's globalSetup (vitest.config.ts): the suite's shared PostgreSQL cluster, started when
 * the first test file asks for it, in this (vitest's main) process, and stopped after the last.
 * Setup only makes the state folder and tells the workers where it is
 * (provide('payctlPostgres')): a run whose files do not use PostgreSQL spends nothing on it
 * (initdb alone is a second of CPU, on two cores shared with the tests). sharedPostgres()
 * (test/helpers/postgres.ts) writes WANTED there and waits for READY (the cluster's address, once
 * it accepts connections) or FAILED (why it could not start); meanwhile the other workers go on
 * with their files. The folder also keeps the cluster initdb made, never started (template/),
 * which privatePostgres() copies: a cluster of a test's own without another initdb.
 *
 * Teardown runs after the last test file, failed or not: a start still under way is aborted, the
 * server stopped, both folders removed. A run killed before its teardown leaves them behind for
 * the next run's sweepStale().
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { FAILED, READY, WANTED, initCluster, makeDir, startPostgres, sweepStale, writeAtomically, type PostgresCluster, type SharedState } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared cluster's state folder (test/helpers/postgres-global.ts). */
    payctlPostgres: string;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  sweepStale();
  const state = makeDir();
  project.provide('payctlPostgres', state);
  const abort = new AbortController();
  let started: Promise<PostgresCluster | undefined> | undefined;

  const start = async (): Promise<PostgresCluster> => {
    const t0 = performance.now();
    const template = join(state, 'template');
    await initCluster(template, abort.signal);
    const initdbMs = Math.round(performance.now() - t0);
    const cluster = await startPostgres({ template, signal: abort.signal });
    const { host, port, superuserUrl, url, user, password, database, dir } = cluster;
    const timing = { initdbMs, startMs: Math.round(performance.now() - t0) };
    const ready: SharedState = { host, port, superuserUrl, url, user, password, database, dir, template, timing };
    writeAtomically(join(state, READY), JSON.stringify(ready));
    return cluster;
  };

  // A file's existence checked every 25 ms (unreferenced: it keeps nothing alive), rather than
  // fs.watch, which some file systems do not support.
  const asked = setInterval(() => {
    if (!existsSync(join(state, WANTED))) return;
    clearInterval(asked);
    started = start().catch((err: unknown) => {
      if (!abort.signal.aborted) writeAtomically(join(state, FAILED), err instanceof Error ? (err.stack ?? err.message) : String(err));
      return undefined;
    });
  }, 25);
  asked.unref();

  return async () => {
    clearInterval(asked);
    abort.abort(new Error('the test run ended'));
    const cluster = await started;
    try {
      await cluster?.stop();
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  };
}
