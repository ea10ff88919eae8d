/**
 * The answer of GET /payout/list in each shape a client must tolerate (docs/service.md
 * "Payout list"), the first being what the sandbox serves by default:
 *
 * - `paginator`: a Laravel LengthAwarePaginator in `data` (`current_page`, `data`,
 *   `first_page_url`, `from`, `last_page`, `last_page_url`, `links`, `next_page_url`, `path`,
 *   `per_page`, `prev_page_url`, `to`, `total`), its `links` built as Laravel's UrlWindow
 *   does (three pages on each side, "..." gaps);
 * - `resource`: a Laravel resource collection: `data` is the array, `links` and `meta` beside it;
 * - `array`: `data` is the page's array alone;
 * - `items`: `data: {items, has_more, total, page}`.
 *
 * Page URLs are absolute, on the origin the request was made to (api.ts), with `per_page`
 * carried when it is not the default (before `page`, as Laravel's `appends` writes it).
 */
import type { ListShape } from './shapes.js';
import { DEFAULT_PER_PAGE } from './validation.js';

export interface Page {
  records: unknown[];
  page: number;
  perPage: number;
  total: number;
  /** Absolute URL of the list without a query: http://127.0.0.1:4010/v2/payout/list */
  path: string;
}

interface Link {
  url: string | null;
  label: string;
  active: boolean;
}

const ON_EACH_SIDE = 3;

/** `data` and the envelope's extra members (`links`, `meta` of a resource collection). */
export function listAnswer(p: Page, shape: ListShape): { data: unknown; extra?: Record<string, unknown> } {
  const lastPage = Math.max(Math.ceil(p.total / p.perPage), 1);
  const url = (n: number) => `${p.path}?${p.perPage === DEFAULT_PER_PAGE ? '' : `per_page=${p.perPage}&`}page=${n}`;
  const from = p.records.length ? (p.page - 1) * p.perPage + 1 : null;
  const to = from === null ? null : from + p.records.length - 1;
  const next = p.page < lastPage ? url(p.page + 1) : null;
  const prev = p.page > 1 ? url(p.page - 1) : null;
  switch (shape) {
    case 'paginator':
      return {
        data: {
          current_page: p.page,
          data: p.records,
          first_page_url: url(1),
          from,
          last_page: lastPage,
          last_page_url: url(lastPage),
          links: [{ url: prev, label: '&laquo; Previous', active: false }, ...pageLinks(p.page, lastPage, url), { url: next, label: 'Next &raquo;', active: false }],
          next_page_url: next,
          path: p.path,
          per_page: p.perPage,
          prev_page_url: prev,
          to,
          total: p.total,
        },
      };
    case 'resource':
      return {
        data: p.records,
        extra: {
          links: { first: url(1), last: url(lastPage), prev, next },
          meta: { current_page: p.page, from, last_page: lastPage, path: p.path, per_page: p.perPage, to, total: p.total },
        },
      };
    case 'array':
      return { data: p.records };
    case 'items':
      return { data: { items: p.records, has_more: p.page < lastPage, total: p.total, page: p.page } };
  }
}

/** The numbered links of Laravel's UrlWindow: every page up to 13, else windows with "..." gaps. */
function pageLinks(current: number, last: number, url: (n: number) => string): Link[] {
  const range = (a: number, b: number): Link[] => {
    const out: Link[] = [];
    for (let n = a; n <= b; n++) out.push({ url: url(n), label: String(n), active: n === current });
    return out;
  };
  const gap: Link = { url: null, label: '...', active: false };
  if (last < ON_EACH_SIDE * 2 + 8) return range(1, last);
  const window = ON_EACH_SIDE + 4;
  if (current <= window) return [...range(1, window + ON_EACH_SIDE), gap, ...range(last - 1, last)];
  if (current > last - window) return [...range(1, 2), gap, ...range(last - (window + (ON_EACH_SIDE - 1)), last)];
  return [...range(1, 2), gap, ...range(current - ON_EACH_SIDE, current + ON_EACH_SIDE), gap, ...range(last - 1, last)];
}
