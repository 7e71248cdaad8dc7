import { Controller, createParamDecorator, ExecutionContext, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { ParsedUrlQuery } from 'node:querystring';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { queryOf } from '../../common/http/http-server';
import { QueryParameters } from '../../common/http/query-parameters';
import { MAX_PAGE_SIZE } from '../../common/pagination/pagination';
import { SearchPageDto } from './search.dto';
import { MAX_QUERY_LENGTH, SearchService } from './search.service';

/** Handler parameter: the request's query parameters, which the search checks itself. */
// eslint-disable-next-line no-useless-assignment -- applied as a parameter decorator (@Query()), which the rule does not see
const Query = createParamDecorator((_data: unknown, context: ExecutionContext): ParsedUrlQuery =>
  queryOf(context.switchToHttp().getRequest<Request>()),
);

@ApiTags('Search')
@Controller('v1/search')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get()
  @Endpoint({
    summary: 'Search records of every type, best match first',
    category: 'search',
    // The scopes depend on the types searched: the read scope of each (see the description of types).
    errors: ['invalid_parameter', 'insufficient_scope'],
  })
  @QueryParameters(
    {
      name: 'q',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH, example: 'zoe mull' },
      description:
        'What to look for, 1 to 200 characters once trimmed; required without a cursor. Words match accent- and ' +
        'case-insensitively, the last one as a prefix; names and titles also with a typo; emails, URL hosts and ' +
        'telephone numbers (6 or more digits) by fragment.',
    },
    {
      name: 'types',
      required: false,
      schema: { type: 'string', example: 'contact,account' },
      description:
        'Comma-separated record types to search (default: every type the key may read). Each needs its read scope ' +
        '(`contacts:read`, …; `objects:read` for custom types): naming one the key may not read is 403.',
    },
    {
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: MAX_PAGE_SIZE },
    },
    {
      name: 'cursor',
      required: false,
      schema: { type: 'string' },
      description:
        'The `nextCursor` of a previous page, unchanged. It carries its `q`, `types` and `limit`; given beside it, they must be its own.',
    },
  )
  @ApiOkResponse({ type: SearchPageDto })
  find(@Caller() caller: AuthContext, @Query() query: ParsedUrlQuery): Promise<SearchPageDto> {
    return this.search.search(caller, query);
  }
}
