import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { RecordWriteDto } from '../../records/record-write.dto';

export class MeetingDto extends EntityEnvelopeDto {
  @ApiProperty({ enum: ['FULL', 'METADATA'], description: "The caller's resolved access level" })
  accessLevel: 'FULL' | 'METADATA';

  @ApiProperty({ enum: ['meeting'] })
  objectType: 'meeting';
}

export class CreateMeetingDto extends RecordWriteDto {
  @ApiPropertyOptional({
    description: 'Create contacts (and an account per new email domain) for attendees outside the workspace',
  })
  autoCreateRecords?: boolean;
}
