import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { QueryCursor, QueryInteger, QueryNameList } from '../../common/http/query-parameters';
import { exampleIdOf } from '../../common/ids';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { FileDto } from '../files/dto/file.dto';
import { ListDto } from '../lists/lists.dto';
import { MeetingDto } from '../meetings/meeting.dto';
import { MAX_EVENTS_PAGE } from './feed-cursor';
import { MAX_FEED_WAIT_SECONDS } from './feed-waits';

export class EventChangesDto {
  @ApiProperty({ type: [String], example: ['$title'], description: 'Keys of the fields whose values changed' })
  fields: string[];

  @ApiProperty({
    type: [String],
    example: [],
    description: 'Keys of the relationships whose links changed, including from their other end',
  })
  relationships: string[];
}

@ApiExtraModels(EntityEnvelopeDto, MeetingDto, ListDto, FileDto)
export class EventDto {
  @ApiProperty({ example: exampleIdOf('event') })
  id: string;

  @ApiProperty({ enum: ['event'] })
  object: 'event';

  @ApiProperty({
    example: 'note.updated',
    description:
      '`<entityType>.created` and `<entityType>.updated` (records, custom records, meetings, lists); ' +
      '`list.member_added`, `list.member_removed`; `file.completed`, `file.cancelled`, `file.expired`',
  })
  type: string;

  @ApiProperty({ format: 'date-time', description: 'When the change committed (milliseconds)' })
  occurredAt: string;

  @ApiProperty({
    example: 'note',
    description:
      '`note`, `task`, `meeting`, `account`, `contact`, `opportunity`, `list`, `file`, or a custom type’s slug',
  })
  entityType: string;

  @ApiProperty({ example: exampleIdOf('note') })
  entityId: string;

  @ApiProperty({
    description:
      'The entity as a read of it returned it right after the change: an entity envelope, a meeting (redacted for the ' +
      'reader by its access when the event is read), a list, or a file',
    // anyOf, not oneOf: the shapes overlap (an envelope has every member a list has, a meeting is an envelope), so
    // one entity matches more than one of them and oneOf would refuse every event.
    anyOf: [
      { $ref: getSchemaPath(EntityEnvelopeDto) },
      { $ref: getSchemaPath(MeetingDto) },
      { $ref: getSchemaPath(ListDto) },
      { $ref: getSchemaPath(FileDto) },
    ],
  })
  data: object;

  @ApiPropertyOptional({ type: EventChangesDto, description: '`updated` events only: what changed' })
  changes?: EventChangesDto;

  @ApiPropertyOptional({
    example: exampleIdOf('account'),
    description: '`list.member_added` and `list.member_removed` only: the record that joined or left',
  })
  memberId?: string;
}

export class EventPageDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ type: [EventDto], description: 'Events, oldest first' })
  data: EventDto[];

  @ApiProperty({
    description:
      'Always present: pass it as `cursor` for the events after these. A page holds `limit` events unless it reached ' +
      'the end of the feed: poll with it when the page was not full.',
  })
  nextCursor: string;
}

export const DEFAULT_EVENTS_PAGE = 25;

/** The query of the feed: where to start, how many events, of which types (EventsService checks the types and the cursor). */
export class EventsQueryDto {
  @QueryInteger(1, MAX_EVENTS_PAGE, { default: DEFAULT_EVENTS_PAGE })
  limit?: number;

  @QueryCursor({
    description:
      'The `nextCursor` of a previous page, unchanged: the page starts after the events that page ended with. It carries ' +
      'its `types` and `limit`; given beside it, they must be its own. Leave it out to read from the oldest event kept.',
  })
  cursor?: string;

  @QueryNameList('event types', {
    example: 'note.created,note.updated',
    description: 'Comma-separated event types to read (default: every type the key may read)',
  })
  types?: string[];

  @QueryInteger(0, MAX_FEED_WAIT_SECONDS, {
    default: 0,
    description:
      'Seconds a page that would be empty waits for an event this key may read (a long poll): it answers as soon as ' +
      'one commits, on any instance, or empty when the time is up. Not part of the cursor: any value beside one.',
  })
  wait?: number;
}
