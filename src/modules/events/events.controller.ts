import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
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
    errors: ['invalid_parameter'],
  })
  @ApiOkResponse({ type: EventPageDto })
  feed(@Caller() caller: AuthContext, @Query() query: EventsQueryDto): Promise<SerializedJson> {
    return this.events.feed(caller, query);
  }
}
