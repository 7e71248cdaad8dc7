import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { exampleIdOf } from '../../common/ids';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { MeetingDto } from '../meetings/meeting.dto';

export class SearchMatchDto {
  @ApiProperty({ example: '$name', description: 'The key of a field that matched' })
  field: string;

  @ApiProperty({
    example: 'Zoë Müller',
    description: 'Its text around what matched, as the caller reads the field (never what its view hides)',
  })
  snippet: string;
}

@ApiExtraModels(EntityEnvelopeDto, MeetingDto)
export class SearchResultDto {
  @ApiProperty({ enum: ['search_result'] })
  object: 'search_result';

  @ApiProperty({
    example: 'contact',
    description: '`note`, `task`, `meeting`, `account`, `contact`, `opportunity` or a custom type’s slug',
  })
  entityType: string;

  @ApiProperty({ example: exampleIdOf('contact') })
  entityId: string;

  @ApiProperty({
    type: 'number',
    example: 1.2,
    minimum: 0,
    description: 'Relevance: higher is better; comparable within one query only',
  })
  score: number;

  @ApiProperty({ type: [SearchMatchDto], description: 'The fields that matched, with a snippet of each' })
  matches: SearchMatchDto[];

  @ApiProperty({
    description: 'The record as its GET returns it to this caller (a meeting redacted by the caller’s access)',
    anyOf: [{ $ref: getSchemaPath(EntityEnvelopeDto) }, { $ref: getSchemaPath(MeetingDto) }],
  })
  data: object;
}

export class SearchPageDto {
  @ApiProperty({ enum: ['list'] })
  object: 'list';

  @ApiProperty({ type: [SearchResultDto], description: 'Results, best first' })
  data: SearchResultDto[];

  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many matches were ranked (at most 300: see docs §14)' })
  totalCount: number;

  @ApiProperty({ type: 'string', nullable: true, description: 'The `cursor` of the next page; null on the last page' })
  nextCursor: string | null;
}
