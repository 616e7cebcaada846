/** The §9 page wrapper (C: Responses, the one exception to bare lists): `page` ≥ 1, `perPage` 1–1000. */
import { badQuery } from '../../http/errors';
import { PAGE_RULES } from './model';

export const DEFAULT_PER_PAGE = 100;
export const MAX_PER_PAGE = 1000;

export interface LogPaging {
  page: number;
  perPage: number;
}

export function logPageOf(query: { page?: string; perPage?: string }): LogPaging {
  const page = query.page === undefined ? 1 : Number(query.page);
  if (page < 1) throw badQuery('/page', PAGE_RULES.page);
  const perPage = query.perPage === undefined ? DEFAULT_PER_PAGE : Number(query.perPage);
  if (perPage < 1 || perPage > MAX_PER_PAGE) {
    throw badQuery('/perPage', PAGE_RULES.perPage);
  }
  return { page, perPage };
}

/** Totals of a page; `totalPages` is at least 1, as the page-based clients expect. */
export function pageTotals(paging: LogPaging, total: number) {
  return {
    page: paging.page,
    perPage: paging.perPage,
    totalPages: Math.max(1, Math.ceil(total / paging.perPage)),
    totalLogs: total,
  };
}

/** `%`, `_` and `\` escaped for `LIKE … ESCAPE '\'`. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
