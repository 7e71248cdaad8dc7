import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ErrorDetailDto {
  @ApiProperty({ example: 'unprocessable_content', description: 'Error class, one per HTTP status' })
  type: string;

  @ApiProperty({ example: 'parameter_missing', description: 'Stable machine-readable code' })
  code: string;

  @ApiProperty({ example: 'fields.$title is required' })
  message: string;

  @ApiPropertyOptional({ example: 'fields.$title', description: 'The offending input, dotted' })
  param?: string;
}

export class ErrorResponseDto {
  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;
}
