/**
 * One page of GET /payout/list in whichever of the four shapes docs/service.md lists it came
 * (the list's schema, apart from schemas.ts, which re-exports it; built when first used).
 */
import * as z from 'zod/mini';
import '../zod.js';

const opt = z.optional;

/** One page of GET /payout/list in whichever shape it came. */
export interface PayoutPage {
  items: unknown[];
  /** The service says there is a next page (true), none (false), or nothing either way (undefined). */
  hasMore: boolean | undefined;
  /** The next page's URL as the service gave it (Laravel `next_page_url`, `links.next`). */
  nextUrl: string | undefined;
  currentPage: number | undefined;
  lastPage: number | undefined;
  perPage: number | undefined;
  total: number | undefined;
}

/**
 * A list answer, from the whole envelope (a resource collection keeps its paging beside `data`):
 * a Laravel paginator in `data`; `data` an array with `links.next` and `meta` beside it; `data`
 * an array alone; `data.{items | payouts | results}` with `has_more` / `total` / `page`.
 */
export const payoutPageSchema = z.lazy(() => {
  const count = opt(z.nullable(z.union([z.number(), z.string().check(z.regex(/^\d+$/))])));
  const url = opt(z.nullable(z.string()));
  const paginator = z.looseObject({
    current_page: count,
    data: z.array(z.unknown()),
    last_page: count,
    next_page_url: url,
    per_page: count,
    total: count,
  });
  const other = z.looseObject({
    items: opt(z.array(z.unknown())),
    payouts: opt(z.array(z.unknown())),
    results: opt(z.array(z.unknown())),
    total: count,
    page: count,
    has_more: opt(z.nullable(z.boolean())),
    next_page_url: url,
  });
  const envelope = z.looseObject({
    data: z.union([z.array(z.unknown()), paginator, other]),
    links: opt(z.nullable(z.union([z.looseObject({ next: url }), z.array(z.unknown())]))),
    meta: opt(z.nullable(z.looseObject({ current_page: count, last_page: count, per_page: count, total: count }))),
  });
  const num = (v: number | string | null | undefined): number | undefined => (v === null || v === undefined ? undefined : Number(v));
  return z.pipe(
    envelope,
    z.transform((e, ctx): PayoutPage => {
      const d = e.data;
      if (Array.isArray(d)) {
        const links = e.links && !Array.isArray(e.links) ? e.links : undefined;
        const meta = e.meta ?? undefined;
        const currentPage = num(meta?.current_page);
        const lastPage = num(meta?.last_page);
        const nextUrl = links?.next ?? undefined;
        let hasMore: boolean | undefined;
        if (links && 'next' in links) hasMore = !!links.next;
        else if (currentPage !== undefined && lastPage !== undefined) hasMore = currentPage < lastPage;
        return { items: d, hasMore, nextUrl, currentPage, lastPage, perPage: num(meta?.per_page), total: num(meta?.total) };
      }
      if ('current_page' in d || ('data' in d && Array.isArray(d.data))) {
        const p = d as z.infer<typeof paginator>;
        const currentPage = num(p.current_page);
        const lastPage = num(p.last_page);
        const nextUrl = p.next_page_url ?? undefined;
        const hasMore = 'next_page_url' in p ? !!p.next_page_url : currentPage !== undefined && lastPage !== undefined ? currentPage < lastPage : undefined;
        return { items: p.data, hasMore, nextUrl, currentPage, lastPage, perPage: num(p.per_page), total: num(p.total) };
      }
      const o = d as z.infer<typeof other>;
      const items = o.items ?? o.payouts ?? o.results;
      if (!items) {
        ctx.issues.push({ code: 'custom', message: 'no list of payouts (expected data to be an array, a paginator, or data.items)', input: d });
        return z.NEVER;
      }
      const hasMore = o.has_more ?? (o.next_page_url !== undefined ? !!o.next_page_url : undefined);
      return { items, hasMore, nextUrl: o.next_page_url ?? undefined, currentPage: num(o.page), lastPage: undefined, perPage: undefined, total: num(o.total) };
    }),
  );
});

/**
 * Where a list answer (its envelope, as parsed) holds its records, as the schema above reads it:
 * `data`, a paginator's `data.data`, or `data.items` / `payouts` / `results` (the first given);
 * undefined when it holds none. For the records' text as the service wrote it (raw-json.ts).
 */
export function itemsPath(envelope: { data?: unknown }): string[] | undefined {
  const d = envelope.data;
  if (Array.isArray(d)) return ['data'];
  if (typeof d !== 'object' || d === null) return undefined;
  const o = d as Record<string, unknown>;
  if ('current_page' in o || Array.isArray(o.data)) return ['data', 'data'];
  const key = ['items', 'payouts', 'results'].find((k) => o[k] !== undefined && o[k] !== null);
  return key === undefined ? undefined : ['data', key];
}
