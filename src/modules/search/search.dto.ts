import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { QueryCursor, QueryNameList, QueryText, TextThat } from '../../common/http/query-parameters';
import { PageLimit } from '../../common/pagination/page-query.dto';
import { storable } from '../../common/validation/storable-text';
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

export const MAX_QUERY_LENGTH = 200;

const Q_LENGTH = `q must be 1 to ${MAX_QUERY_LENGTH} characters, leading and trailing spaces aside`;

/** The query of a search: what to look for, in which types, how many hits (SearchService checks the types and the cursor). */
export class SearchQueryDto {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @QueryText(Q_LENGTH, {
    required: true,
    // Checked once trimmed: around the text, spaces count for neither bound.
    bounds: { minLength: 1, maxLength: MAX_QUERY_LENGTH, pattern: /\S/ },
    // No record can hold such text, and PostgreSQL refuses it as a parameter.
    checks: [TextThat('storable', storable, 'q contains NUL or unpaired surrogate characters')],
    example: 'zoe mull',
    description:
      'What to look for, 1 to 200 characters once trimmed; also beside a cursor, where it must be the cursor’s own. ' +
      'Words match accent- and case-insensitively, the last one as a prefix; names and titles also with a typo; ' +
      'emails, URL hosts and telephone numbers (6 or more digits) by fragment.',
  })
  q: string;

  @QueryNameList('record types', {
    example: 'contact,account',
    description:
      'Comma-separated record types to search (default: every type the key may read). Each needs its read scope ' +
      '(`contacts:read`, …; `objects:read` for custom types): naming one the key may not read is 403.',
  })
  types?: string[];

  @PageLimit()
  limit?: number;

  @QueryCursor({
    description:
      'The `nextCursor` of a previous page, unchanged. It carries its `q`, `types` and `limit`; given beside it, they must be its own.',
  })
  cursor?: string;
}
