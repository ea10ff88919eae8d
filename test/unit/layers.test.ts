/**
 * The layer rule of `npm run lint` (tools/layers.js, docs/architecture.md "Layers"), run by the
 * real oxlint as the lint runs it: an import that runs up a layer is refused, naming both layers;
 * one down or within a layer passes; a type-only import does not count; a file of src/ in no
 * layer is refused.
 */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../helpers/cleanups.js';

const ROOT = resolve(__dirname, '../..');
const OXLINT = join(ROOT, 'node_modules', '.bin', 'oxlint');
const { configDir } = useCleanups();

/**
 * What the real linter says of `code` as the file `file` of a project whose only rule is
 * payctl/layers (loaded from tools/layers.js, as .oxlintrc.json loads it): its messages.
 */
async function problems(file: string, code: string): Promise<string[]> {
  const root = configDir();
  await mkdir(join(root, dirname(file)), { recursive: true });
  await writeFile(join(root, file), code);
  const config = { categories: { correctness: 'off' }, jsPlugins: [join(ROOT, 'tools', 'layers.js')], rules: { 'payctl/layers': 'error' } };
  await writeFile(join(root, '.oxlintrc.json'), JSON.stringify(config));
  const out = await new Promise<string>((done, fail) => {
    const child = spawn(OXLINT, ['-f', 'json', '-c', '.oxlintrc.json'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', fail);
    child.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
  });
  const report = JSON.parse(out) as { diagnostics: { message: string; filename: string }[]; number_of_files: number };
  expect(report.number_of_files).toBe(1);
  return report.diagnostics.map((d) => d.message);
}

describe('payctl/layers', async () => {
  it('refuses an import that runs up a layer, naming both', async () => {
    expect(await problems('src/config/store.ts', "import { renderTable } from '../output/table.js';\n")).toEqual([
      "src/config/store.ts (config) imports src/output/table.ts (output), a layer above it: hand it down from the caller, or move it down (docs/architecture.md, 'Layers').",
    ]);
    expect(await problems('src/output/batch.ts', "export { isAlreadyMade } from '../payouts/report.js';\n")).toHaveLength(1);
    expect(await problems('src/service/schemas.ts', "const m = () => import('../api/client.js');\n")).toHaveLength(1);
  });

  it('lets an import down or within a layer pass, and a type-only import up', async () => {
    expect(await problems('src/commands/balances.ts', "import { renderTable } from '../output/table.js';\nimport { Journal } from '../payouts/journal.js';\n")).toEqual(
      [],
    );
    expect(await problems('src/payouts/batch.ts', "import { sendPayout } from './send.js';\nimport { x } from '../plans/policy.js';\n")).toEqual([]);
    expect(await problems('src/config/store.ts', "import type { IO } from '../output/io.js';\nimport { type Deps } from '../deps.js';\n")).toEqual([]);
  });

  it('refuses a file of src/ that no layer names', async () => {
    expect(await problems('src/utils/misc.ts', 'export const x = 1;\n')).toEqual([
      'src/utils/misc.ts is in no layer of tools/layers.js: give it one (docs/architecture.md, "Layers").',
    ]);
  });
});
