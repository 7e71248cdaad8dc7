import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { SerializedJson } from '../../common/http/json-response';
import { EventPageDto, EventsQueryDto } from './event.dto';
import { EventsService } from './events.service';

@ApiTags('Events')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @Endpoint({
    summary: 'The change feed: what changed in the workspace, oldest first',
    category: 'search',
    scopes: ['events:read'],
    errors: ['invalid_parameter', 'cursor_expired', 'too_many_waiters', 'database_unavailable'],
  })
  @ApiOkResponse({ type: EventPageDto })
  feed(
    @Caller() caller: AuthContext,
    @Query() query: EventsQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SerializedJson> {
    // A long poll stops waiting for a caller that went away (a response closed before it finished).
    const gone = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) gone.abort();
    });
    return this.events.feed(caller, query, gone.signal);
  }
}
