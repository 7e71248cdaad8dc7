import { Controller, createParamDecorator, ExecutionContext, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { ParsedUrlQuery } from 'node:querystring';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { queryOf } from '../../common/http/http-server';
import { QueryParameters } from '../../common/http/query-parameters';
import { SerializedJson } from '../../common/http/json-response';
import { EventPageDto } from './event.dto';
import { EventsService } from './events.service';
import { MAX_EVENTS_PAGE } from './feed-cursor';

/** Handler parameter: the request's query parameters, which the feed checks itself. */
// eslint-disable-next-line no-useless-assignment -- applied as a parameter decorator (@Query()), which the rule does not see
const Query = createParamDecorator((_data: unknown, context: ExecutionContext): ParsedUrlQuery =>
  queryOf(context.switchToHttp().getRequest<Request>()),
);

@ApiTags('Events')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @Endpoint({
    summary: 'The change feed: what changed in the workspace, oldest first',
    category: 'search',
    scopes: ['events:read'],
    errors: ['invalid_parameter'],
  })
  @QueryParameters(
    { name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_EVENTS_PAGE, default: 25 } },
    {
      name: 'cursor',
      required: false,
      schema: { type: 'string' },
      description:
        'The `nextCursor` of a previous page, unchanged: the page starts after the events that page ended with. It carries ' +
        'its `types` and `limit`; given beside it, they must be its own. Leave it out to read from the oldest event kept.',
    },
    {
      name: 'types',
      required: false,
      schema: { type: 'string', example: 'note.created,note.updated' },
      description: 'Comma-separated event types to read (default: every type the key may read)',
    },
  )
  @ApiOkResponse({ type: EventPageDto })
  feed(@Caller() caller: AuthContext, @Query() query: ParsedUrlQuery): Promise<SerializedJson> {
    return this.events.feed(caller, query);
  }
}
