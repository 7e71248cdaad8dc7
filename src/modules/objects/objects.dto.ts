import { ApiProperty } from '@nestjs/swagger';

export class ObjectTypeSummaryDto {
  @ApiProperty({ example: 'Project' })
  label: string;

  @ApiProperty({ example: 'project', description: 'The slug used as {entitySlug}' })
  objectType: string;
}

export class ObjectTypeListDto {
  @ApiProperty({ type: [ObjectTypeSummaryDto] })
  data: ObjectTypeSummaryDto[];
}
