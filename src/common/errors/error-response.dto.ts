import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODES, ERROR_TYPES } from './error-codes';
import type { ErrorCode, ErrorType } from './error-codes';

export class ErrorDetailDto {
  @ApiProperty({
    enum: Object.values(ERROR_TYPES),
    enumName: 'ErrorType',
    example: 'unprocessable_content',
    description: 'Error class, one per HTTP status',
  })
  type: ErrorType;

  @ApiProperty({
    enum: Object.keys(ERROR_CODES),
    enumName: 'ErrorCode',
    example: 'parameter_missing',
    description: 'Stable machine-readable code; each status allows the codes its response lists',
  })
  code: ErrorCode;

  @ApiProperty({ example: 'fields.$title is required' })
  message: string;

  @ApiPropertyOptional({ example: 'fields.$title', description: 'The offending input, dotted' })
  param?: string;

  @ApiPropertyOptional({
    description: 'Only with `cursor_expired`: the feed’s present end, to go on from once the entities are read again',
  })
  resyncCursor?: string;
}

export class ErrorResponseDto {
  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;
}
