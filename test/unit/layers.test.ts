/**
 * The layer rule of `npm run lint` (tools/layers.js, docs/architecture.md "Layers"): an import
 * that runs up a layer is refused, naming both layers; one down or within a layer passes; a
 * type-only import does not count; a file of src/ in no layer is refused.
 */
import { Linter } from 'eslint';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- the lint workspace's plain .js entry, without types
import tseslint from '@payctl/lint-typescript';
// @ts-expect-error -- a plain .js ESLint plugin without types
import layers from '../../tools/layers.js';

const ROOT = resolve(__dirname, '../..');
const config = [
  {
    files: ['**/*.ts'],
    languageOptions: { parser: (tseslint as { parser: Linter.Parser }).parser },
    plugins: { payctl: layers as never },
    rules: { 'payctl/layers': 'error' as const },
  },
];

function problems(file: string, code: string): string[] {
  const linter = new Linter({ cwd: ROOT });
  return linter.verify(code, config, { filename: join(ROOT, file) }).map((m) => m.message);
}

describe('payctl/layers', () => {
  it('refuses an import that runs up a layer, naming both', () => {
    expect(problems('src/config/store.ts', "import { renderTable } from '../output/table.js';\n")).toEqual([
      "src/config/store.ts (config) imports src/output/table.ts (output), a layer above it: hand it down from the caller, or move it down (docs/architecture.md, 'Layers').",
    ]);
    expect(problems('src/output/batch.ts', "export { isAlreadyMade } from '../payouts/report.js';\n")).toHaveLength(1);
    expect(problems('src/service/schemas.ts', "const m = () => import('../api/client.js');\n")).toHaveLength(1);
  });

  it('lets an import down or within a layer pass, and a type-only import up', () => {
    expect(problems('src/commands/balances.ts', "import { renderTable } from '../output/table.js';\nimport { Journal } from '../payouts/journal.js';\n")).toEqual([]);
    expect(problems('src/payouts/batch.ts', "import { sendPayout } from './send.js';\nimport { x } from '../plans/policy.js';\n")).toEqual([]);
    expect(problems('src/config/store.ts', "import type { IO } from '../output/io.js';\nimport { type Deps } from '../deps.js';\n")).toEqual([]);
  });

  it('refuses a file of src/ that no layer names', () => {
    expect(problems('src/utils/misc.ts', 'export const x = 1;\n')).toEqual([
      'src/utils/misc.ts is in no layer of tools/layers.js: give it one (docs/architecture.md, "Layers").',
    ]);
  });
});
