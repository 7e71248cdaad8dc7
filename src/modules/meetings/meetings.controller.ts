import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { Page, Paginated } from '../../common/pagination/pagination';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { RecordWriteDto } from '../../records/record-write.dto';
import { CreateMeetingDto, MeetingDto } from './meeting.dto';
import { MeetingsService } from './meetings.service';

@ApiTags('Meetings')
@Controller('v1/meetings')
export class MeetingsController {
  constructor(private readonly meetings: MeetingsService) {}

  @Post()
  @Endpoint({
    summary: 'Create a past meeting, optionally with its transcript file',
    category: 'write',
    scopes: ['meetings:create'],
    response: MeetingDto,
    errors: [415, 422],
  })
  @ApiBody({ type: CreateMeetingDto })
  create(@Caller() caller: AuthContext, @Body() body: unknown): Promise<MeetingDto> {
    return this.meetings.create(caller, body);
  }

  @Post(':id')
  @Endpoint({
    summary: 'Change $privacySetting, or replace the transcript',
    category: 'write',
    scopes: ['meetings:update'],
    response: MeetingDto,
    errors: [404, 415, 422],
  })
  @ApiBody({ type: RecordWriteDto })
  update(@Caller() caller: AuthContext, @Param('id') id: string, @Body() body: unknown): Promise<MeetingDto> {
    return this.meetings.update(caller, id, body);
  }

  @Get(':id')
  @Endpoint({
    summary: 'Retrieve a meeting, redacted per the caller’s access',
    category: 'read',
    scopes: ['meetings:read'],
    response: MeetingDto,
    errors: [404],
  })
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<MeetingDto> {
    return this.meetings.get(caller, id);
  }

  @Get()
  @Endpoint({
    summary: 'List every meeting, newest first, redacted per the caller’s access',
    category: 'search',
    scopes: ['meetings:read'],
  })
  @Paginated(MeetingDto, { filters: true })
  list(@Caller() caller: AuthContext, @Page() page: PageRequest): Promise<PageResult<MeetingDto>> {
    return this.meetings.list(caller, page);
  }
}
