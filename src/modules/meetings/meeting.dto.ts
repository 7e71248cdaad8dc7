import { ApiProperty } from '@nestjs/swagger';
import { EntityEnvelopeDto } from '../../records/entity-envelope';

export class MeetingDto extends EntityEnvelopeDto {
  @ApiProperty({ enum: ['FULL', 'METADATA'], description: "The caller's resolved access level" })
  accessLevel: 'FULL' | 'METADATA';

  @ApiProperty({ enum: ['meeting'] })
  objectType: 'meeting';
}
