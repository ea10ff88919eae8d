#!/usr/bin/env node
// Entry point: enable the compile cache where Node has it, run, flush, exit with the code.
import module from 'node:module';
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // The version needs nothing else: answer before loading the CLI.
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else {
  // A reader that went away (`payctl payouts list --all | head`) ends the run quietly, as in
  // any pipeline; anything payctl had to record was journaled before it printed.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  process.stderr.on('error', () => {});
  module.enableCompileCache?.();
  const { main } = await import('../dist/cli.js');
  const code = await main(process);
  // Let stdout and stderr drain (pipes are asynchronous) before exiting.
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write('', resolve))));
  process.exit(code);
}
