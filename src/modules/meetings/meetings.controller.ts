import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { Page, Paginated } from '../../common/pagination/pagination';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { recordWriteSchema } from '../../records/record-write.schema';
import { SYSTEM_RECORD_TYPES } from '../../records/system-types';
import { MeetingDto } from './meeting.dto';

const MEETING = SYSTEM_RECORD_TYPES.find((type) => type.slug === 'meeting')!;
const CREATE_SCHEMA = recordWriteSchema(MEETING, true);
const CREATE_MEETING_SCHEMA = {
  ...CREATE_SCHEMA,
  properties: {
    ...(CREATE_SCHEMA.properties as object),
    autoCreateRecords: {
      type: 'boolean',
      nullable: true,
      description:
        'Create contacts (and an account per new email domain, unless one has a website on it) for attendees outside ' +
        'the workspace. Records the workspace requires more fields of are skipped; the meeting is never refused for them.',
    },
  },
};
/** Only `$privacySetting` and `$transcript.replace` may change; `null` members change nothing. */
const UPDATE_MEETING_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    fields: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      properties: {
        $privacySetting: {
          type: 'string',
          nullable: true,
          enum: ['FULL', 'METADATA', null],
          description: 'null clears the setting: the meeting is then FULL, the default',
        },
      },
    },
    relationships: {
      type: 'object',
      nullable: true,
      additionalProperties: false,
      properties: {
        $transcript: {
          type: 'object',
          additionalProperties: false,
          required: ['replace'],
          properties: { replace: { type: 'string', description: 'A COMPLETED file id' } },
        },
      },
    },
  },
};
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
  @ApiBody({ schema: CREATE_MEETING_SCHEMA })
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
  @ApiBody({ schema: UPDATE_MEETING_SCHEMA })
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
