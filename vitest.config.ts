import { accessSync, constants } from 'node:fs';
import { defineConfig } from 'vitest/config';

// Temp folders (config folders, journals, batch files) in memory where the machine has a tmpfs:
// the journal fsyncs every entry, and on a disk those waits were a tenth of the suite's time.
// Still real folders and real files; an explicit TMPDIR wins.
if (!process.env.TMPDIR) {
  try {
    accessSync('/dev/shm', constants.W_OK);
    process.env.TMPDIR = '/dev/shm';
  } catch {
    // no tmpfs here: the system's temp folder
  }
}

// The processes the tests start (the built binary, a detached sandbox, the workers themselves)
// start as on a user's machine: an inherited NODE_EXTRA_CA_CERTS (the development machine sets
// it for its package registry) makes every Node start parse a bundle of CAs, about 45 ms of CPU
// and 70 ms of waiting each (`payctl --help`: 0.11 s against 0.04 s). Nothing here talks beyond
// loopback; the proxy and certificate tests set their own (test/e2e/proxy*.test.ts).
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    // The shared PostgreSQL cluster (test/helpers/postgres-global.ts), started when a test file
    // first asks for it (sharedPostgres()): only such files wait for it, only such runs start it.
    globalSetup: ['test/helpers/postgres-global.ts'],
    pool: 'forks',
    // Test files share their worker's loaded modules instead of importing payctl afresh for each
    // file (that import was a fifth of the suite's CPU). Tests must not depend on a module's
    // first-load state; where one does (style.test.ts), it loads a fresh copy itself.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Six files at a time on two cores: many tests wait on real time (hangs, spawned binaries,
    // a sandbox holding a request). Measured on this machine, vitest alone, 4,570 tests: four
    // workers 110.5-117.4 s with 22% of the cores idle, six 91.8-97.0 s with 7% idle, eight
    // 94.9 s (each worker imports payctl once more). Timing bounds on pure computation use CPU
    // time (test/helpers/cpu.ts), which this load does not inflate.
    maxWorkers: 6,
  },
});
