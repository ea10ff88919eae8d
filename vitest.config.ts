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
    // Four files at a time on two cores: many tests wait on real time (hangs, spawned binaries,
    // a sandbox holding a request), so two workers left the CPU idle half the time. Timing bounds
    // on pure computation use CPU time (test/helpers/cpu.ts), which this load does not inflate.
    maxWorkers: 4,
  },
});
