import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsObject, IsOptional } from 'class-validator';
import { exampleIdOf } from '../../common/ids';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { PRIVACY_SETTINGS } from '../../records/system-types';

export class MeetingDto extends EntityEnvelopeDto {
  @ApiProperty({ example: exampleIdOf('meeting') })
  declare id: string;

  @ApiProperty({ enum: ['FULL', 'METADATA'], description: "The caller's resolved access level" })
  accessLevel: 'FULL' | 'METADATA';

  @ApiProperty({ enum: ['meeting'] })
  objectType: 'meeting';
}

/**
 * The one member of a create body that is not part of the meeting record. The rest of the body is
 * a record body, which the field-type registry validates against the workspace's definitions.
 */
export class MeetingCreateOptionsDto {
  @ApiPropertyOptional({
    type: 'boolean',
    nullable: true,
    description:
      'Create contacts (and an account per new email domain, unless one has a website on it) for attendees outside ' +
      'the workspace. Records the workspace requires more fields of are skipped; the meeting is never refused for them.',
  })
  @IsOptional()
  @IsBoolean()
  autoCreateRecords?: boolean;
}

/**
 * An update body: only `$privacySetting` and `$transcript.replace` may change. The keys inside
 * `fields` and `relationships` are the meeting type's, custom ones included; the service answers
 * those the update may not change (422 `read_only_field`) or the type does not have.
 */
export class UpdateMeetingDto {
  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: false,
    properties: {
      $privacySetting: {
        type: 'string',
        nullable: true,
        enum: [...PRIVACY_SETTINGS, null],
        description: 'null clears the setting: the meeting is then FULL, the default',
      },
    },
  })
  @IsOptional()
  @IsObject()
  fields?: Record<string, unknown>;

  @ApiPropertyOptional({
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
  })
  @IsOptional()
  @IsObject()
  relationships?: Record<string, unknown>;
}
