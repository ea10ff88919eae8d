// The bench's PostgreSQL for the shared-ledger case: the tests' throw-away cluster
// (test/helpers/postgres-cluster.ts, compiled here with esbuild, a devDependency), with fsync on
// and its data under the bench's folder on the ordinary disk, as the local ledger's journal is:
// both stores then pay for durable writes.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Starts a durable cluster in a folder under `parent`; the caller stop()s it. */
export async function startBenchPostgres(root, parent) {
  // Beside this file, so that its import of pg resolves to the project's node_modules.
  const out = join(root, 'bench', `.pg-cluster-${process.pid}.mjs`);
  await build({
    entryPoints: [join(root, 'test', 'helpers', 'postgres-cluster.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: out,
    logLevel: 'warning',
  });
  try {
    const { startPostgres } = await import(pathToFileURL(out).href);
    return await startPostgres({ durable: { parent } });
  } finally {
    rmSync(out, { force: true });
  }
}
