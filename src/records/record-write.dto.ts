import { ApiPropertyOptional } from '@nestjs/swagger';
import { exampleIdOf } from '../common/ids';

/**
 * The documented shape of a record create or update body. Its members depend on the type's
 * definitions (GET …/definitions), so the records core validates it, not class-validator.
 */
export class RecordWriteDto {
  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description:
      'Field key → bare value (string, number, boolean, array of string, Address or FullName); null clears. ' +
      'System fields start with $, custom fields use their bare slug. Required on create; null is the same as absent.',
    example: { name: 'Website relaunch', status: 'Planned' },
  })
  fields?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description:
      'Relationship key → on create an id or array of ids; on update an object with add, remove or replace ' +
      '(an id or array of ids). At most 25 ids per request. null is the same as absent.',
    example: { lead: exampleIdOf('member') },
  })
  relationships?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 255, description: 'Unique per type' })
  externalId?: string | null;
}
