// typescript-eslint for eslint.config.js. This folder is an npm workspace so that
// typescript-eslint and its parser sit in tools/lint/node_modules beside TypeScript 5.9
// (their peer range is >=4.8.4 <6.0.0) and load it, not payctl's own TypeScript 7, whose
// package has no JS API. `tsc` (npm run typecheck) stays on TypeScript 7. The root
// package.json's "overrides" pins every `typescript` below this workspace to 5.9, so a
// dependency such as ts-api-utils (peer: typescript >=4.8.4) is not hoisted next to 7.
export { default } from 'typescript-eslint';
