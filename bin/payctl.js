#!/usr/bin/env node
// Entry point: enable the compile cache where Node has it, run, flush, exit with the code.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/cli.js');
const code = await main(process);
// Let stdout and stderr drain (pipes are asynchronous) before exiting.
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write('', resolve))));
process.exit(code);
