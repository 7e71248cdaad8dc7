import { QueryCursor, QueryInteger } from '../http/query-parameters';

export const MAX_PAGE_SIZE = 25;

/** `limit` of a list whose pages hold at most MAX_PAGE_SIZE items (25 unless asked). */
export function PageLimit(): PropertyDecorator {
  return QueryInteger(1, MAX_PAGE_SIZE, { default: MAX_PAGE_SIZE });
}

/** The paging parameters of a paged list (docs/api.md §3); its filters are the other parameters (parsePageRequest). */
export class PageQueryDto {
  @PageLimit()
  limit?: number;

  @QueryInteger(0, Number.MAX_SAFE_INTEGER, { default: 0 })
  offset?: number;

  @QueryCursor({
    description:
      'The `nextCursor` of the page before: the next page in the same order, however many records were created ' +
      'since. It carries its list, filters and limit: send it alone (a limit or filters beside it must be its own), ' +
      'and without `offset`.',
  })
  cursor?: string;
}
