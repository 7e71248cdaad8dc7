import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { SearchPageDto, SearchQueryDto } from './search.dto';
import { SearchService } from './search.service';

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
  @ApiOkResponse({ type: SearchPageDto })
  find(@Caller() caller: AuthContext, @Query() query: SearchQueryDto): Promise<SearchPageDto> {
    return this.search.search(caller, query);
  }
}
