import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { QueryCursor, QueryInteger } from '../http/query-parameters';

export const MAX_PAGE_SIZE = 25;

/** `limit` of a list whose pages hold at most MAX_PAGE_SIZE items (25 unless asked). */
export function PageLimit(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: MAX_PAGE_SIZE }),
    QueryInteger(1, MAX_PAGE_SIZE),
  );
}

/** The paging parameters of a paged list (docs/api.md §3); its filters are the other parameters (parsePageRequest). */
export class PageQueryDto {
  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0 })
  @QueryInteger(0)
  offset?: number;

  @ApiPropertyOptional({
    type: 'string',
    description:
      'The `nextCursor` of the page before: the next page in the same order, however many records were created ' +
      'since. It carries its list, filters and limit: send it alone (a limit or filters beside it must be its own), ' +
      'and without `offset`.',
  })
  @QueryCursor()
  cursor?: string;
}
