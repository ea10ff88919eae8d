/**
 * The names of the answer shapes the sandbox can serve where the documentation is silent
 * (docs/service.md): how GET /payout/list pages and how errors are written. Kept apart,
 * without imports, so `payctl sandbox start`'s option spec can check them without loading
 * the sandbox. paging.ts and respond.ts write the shapes.
 */
export const LIST_SHAPES = ['paginator', 'resource', 'array', 'items'] as const;
export type ListShape = (typeof LIST_SHAPES)[number];

export const ERROR_SHAPES = ['laravel', 'envelope', 'error', 'problem'] as const;
export type ErrorShape = (typeof ERROR_SHAPES)[number];
