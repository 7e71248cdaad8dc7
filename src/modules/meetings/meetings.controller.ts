import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiExtraModels, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Preconditions, type WriteCondition } from '../../common/http/entity-tags';
import { Endpoint } from '../../common/auth/auth.decorators';
import { Page, Paginated } from '../../common/pagination/pagination';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { ApiJsonBody } from '../../common/openapi/api-json-body';
import { RECORD_WRITE_ERRORS } from '../../records/record-write';
import { listFilterExample, recordWriteExample, recordWriteSchema } from '../../records/record-write.schema';
import { SYSTEM_RECORD_TYPES } from '../../records/system-types';
import { MeetingCreateOptionsDto, MeetingDto, UpdateMeetingDto } from './meeting.dto';
import { MeetingsService } from './meetings.service';

const MEETING = SYSTEM_RECORD_TYPES.find((type) => type.slug === 'meeting')!;
const CREATE_SCHEMA = recordWriteSchema(MEETING, true);
/** The meeting record body, and the create options beside its members. */
const CREATE_MEETING_SCHEMA = {
  ...CREATE_SCHEMA,
  properties: {
    ...(CREATE_SCHEMA.properties as object),
    autoCreateRecords: { $ref: `${getSchemaPath(MeetingCreateOptionsDto)}/properties/autoCreateRecords` },
  },
};
/** An hour-long past meeting: the type's examples give the start and end the same instant. */
const CREATE_MEETING_EXAMPLE = recordWriteExample(MEETING, true, {
  $startDate: '2026-01-02T09:00:00Z',
  $endDate: '2026-01-02T10:00:00Z',
});
const UPDATE_MEETING_EXAMPLE = {
  summary: 'Show only the metadata to others',
  value: { fields: { $privacySetting: 'METADATA' } },
};
@ApiTags('Meetings')
@ApiExtraModels(MeetingCreateOptionsDto)
@Controller('v1/meetings')
export class MeetingsController {
  constructor(private readonly meetings: MeetingsService) {}

  @Post()
  @Endpoint({
    summary: 'Create a past meeting, optionally with its transcript file',
    category: 'write',
    scopes: ['meetings:create'],
    response: MeetingDto,
    errors: RECORD_WRITE_ERRORS,
    conditional: 'create',
  })
  @ApiJsonBody(CREATE_MEETING_SCHEMA, CREATE_MEETING_EXAMPLE)
  // A record body: its keys are the type's, and `constructor` is a valid custom field key, which a
  // static body would refuse; the service validates the create options with their DTO.
  create(@Caller() caller: AuthContext, @Body() body: unknown): Promise<MeetingDto> {
    return this.meetings.create(caller, body);
  }

  @Post(':id')
  @Endpoint({
    summary: 'Change $privacySetting, or replace the transcript',
    category: 'write',
    scopes: ['meetings:update'],
    response: MeetingDto,
    errors: [...RECORD_WRITE_ERRORS, 'not_permitted'],
    conditional: 'update',
  })
  @ApiJsonBody(UpdateMeetingDto, UPDATE_MEETING_EXAMPLE)
  update(
    @Caller() caller: AuthContext,
    @Param('id') id: string,
    @Body() body: UpdateMeetingDto,
    @Preconditions() condition: WriteCondition | undefined,
  ): Promise<MeetingDto> {
    return this.meetings.update(caller, id, body, condition);
  }

  @Get(':id')
  @Endpoint({
    summary: 'Retrieve a meeting, redacted per the caller’s access',
    category: 'read',
    scopes: ['meetings:read'],
    response: MeetingDto,
    conditional: 'read',
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
  @Paginated(MeetingDto, { filters: listFilterExample(MEETING) })
  list(@Caller() caller: AuthContext, @Page() page: PageRequest): Promise<PageResult<MeetingDto>> {
    return this.meetings.list(caller, page);
  }
}
