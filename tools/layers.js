// The layers of src/ (docs/architecture.md, "Layers"), as a lint rule in ESLint's rule API, which
// oxlint loads as a JavaScript plugin (.oxlintrc.json): an import points down the list, or stays
// in its own layer, never up. Type-only imports do not count (they vanish from the build);
// static imports, re-exports and import() with a literal path do. A file of src/ that no layer
// names is an error too, so a new folder gets its place on purpose.
import { dirname, relative, resolve } from 'node:path';

/** Top to bottom. A prefix ending in '/' is a folder; anything else one file. */
export const LAYERS = [
  ['cli', ['src/cli.ts']],
  ['program', ['src/program.ts']],
  ['commands', ['src/commands/', 'src/completion/', 'src/deps.ts']],
  ['payouts, plans, webhooks', ['src/payouts/', 'src/plans/', 'src/webhooks/']],
  ['api, sandbox', ['src/api/', 'src/sandbox/']],
  ['output', ['src/output/']],
  ['config', ['src/config/']],
  ['service', ['src/service/']],
  ['base', ['src/money/', 'src/errors.ts', 'src/clock.ts', 'src/host.ts', 'src/zod.ts', 'src/words.ts', 'src/types/']],
];

const layerOf = (file) => LAYERS.findIndex(([, places]) => places.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));

/** Whether a declaration imports nothing but types (`import type`, or every name marked `type`). */
function typeOnly(node) {
  if (node.importKind === 'type' || node.exportKind === 'type') return true;
  const names = node.specifiers ?? [];
  return names.length > 0 && names.every((s) => s.importKind === 'type' || s.exportKind === 'type');
}

const layers = {
  meta: {
    type: 'problem',
    docs: { description: 'imports in src/ point down the layers of docs/architecture.md' },
    schema: [],
    messages: {
      up: "{{from}} ({{fromLayer}}) imports {{to}} ({{toLayer}}), a layer above it: hand it down from the caller, or move it down (docs/architecture.md, 'Layers').",
      unplaced: '{{file}} is in no layer of tools/layers.js: give it one (docs/architecture.md, "Layers").',
    },
  },
  create(context) {
    const root = context.cwd;
    const file = relative(root, context.filename).split('\\').join('/');
    if (!file.startsWith('src/')) return {};
    const mine = layerOf(file);
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = relative(root, resolve(dirname(context.filename), source.replace(/\.js$/, '.ts')))
        .split('\\')
        .join('/');
      const theirs = layerOf(target);
      if (theirs >= 0 && theirs < mine) {
        context.report({ node, messageId: 'up', data: { from: file, fromLayer: LAYERS[mine][0], to: target, toLayer: LAYERS[theirs][0] } });
      }
    };
    return {
      Program(node) {
        if (mine < 0) context.report({ node, messageId: 'unplaced', data: { file } });
      },
      ImportDeclaration(node) {
        if (!typeOnly(node)) check(node, node.source.value);
      },
      ExportNamedDeclaration(node) {
        if (node.source && !typeOnly(node)) check(node, node.source.value);
      },
      ExportAllDeclaration(node) {
        if (node.exportKind !== 'type') check(node, node.source.value);
      },
      ImportExpression(node) {
        if (node.source.type === 'Literal') check(node, node.source.value);
      },
    };
  },
};

export default { meta: { name: 'payctl' }, rules: { layers } };
