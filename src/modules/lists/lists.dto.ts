import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { FieldValueDto } from '../../records/entity-envelope';

@ApiExtraModels(FieldValueDto)
export class ListDto {
  @ApiProperty({ example: 'lst_01JD6Y3Z8Q0N5V4W7X2C9B1A3E' })
  id: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({
    type: 'object',
    description: '$name (TEXT) and $objectType (SINGLE_SELECT: account, contact or opportunity)',
    additionalProperties: { $ref: getSchemaPath(FieldValueDto) },
  })
  fields: Record<string, FieldValueDto>;

  @ApiProperty({ type: 'string', nullable: true })
  httpLink: string | null;
}

export class ListWriteDto {
  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    description:
      'Create: { $name (required), $objectType (required: account | contact | opportunity) }. Update: { $name }. ' +
      'null, here or for the whole member, is the same as absent.',
    additionalProperties: true,
  })
  fields?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    description:
      'One of $accounts, $contacts, $opportunities, matching $objectType. Create: an id or array of ids. ' +
      'Update: { add?, remove? } with an id or array of ids. null, for any of these, is the same as absent.',
    additionalProperties: true,
  })
  relationships?: Record<string, unknown>;
}
