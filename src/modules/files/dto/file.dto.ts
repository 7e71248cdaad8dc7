import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { exampleIdOf } from '../../../common/ids';
import { WithoutControlCharacters } from '../../../common/validation/control-characters';
import { FILE_PURPOSES, MAX_FILE_BYTES, MIME_TYPE_PATTERN } from '../file-purposes';
import type { FilePurpose } from '../file-purposes';

export const FILE_STATUSES = ['PENDING', 'COMPLETED', 'CANCELLED', 'EXPIRED'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

export class CreateFileDto {
  @ApiProperty({
    example: 'call.vtt',
    minLength: 1,
    maxLength: 255,
    description: 'Original filename; no control characters (C0, DEL, C1: U+0000–U+001F, U+007F–U+009F)',
  })
  @IsString()
  @Length(1, 255)
  @WithoutControlCharacters()
  filename: string;

  @ApiProperty({ example: 'text/vtt', pattern: MIME_TYPE_PATTERN.source, description: 'type/subtype, no parameters' })
  @IsString()
  @Matches(MIME_TYPE_PATTERN, { message: 'mimeType must be a MIME type of the form type/subtype, e.g. text/plain' })
  mimeType: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_FILE_BYTES, example: 1024 })
  @IsInt()
  @Min(1)
  @Max(MAX_FILE_BYTES)
  sizeBytes: number;

  @ApiPropertyOptional({
    enum: FILE_PURPOSES,
    description:
      'meeting_transcript: text/plain, text/vtt, text/markdown, application/json, application/x-subrip, ≤ 50 MiB. ' +
      'knowledge_user, knowledge_workspace (admin members only): text/*, application/pdf, application/json, ' +
      'Office and OpenDocument documents, ≤ 100 MiB. Not stored, not returned.',
  })
  @IsOptional()
  @IsIn(FILE_PURPOSES, { message: `purpose must be one of ${FILE_PURPOSES.join(', ')}` })
  purpose?: FilePurpose;
}

export class CompleteFileDto {
  @ApiPropertyOptional({ pattern: '^[0-9a-f]{32}$', description: 'MD5 of the uploaded bytes, 32 lowercase hex digits' })
  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-f]{32}$/, { message: 'md5 must be 32 lowercase hexadecimal digits' })
  md5?: string;
}

/** `POST /v1/files/{id}/cancel` takes no members: an empty object or no body. */
export class CancelFileDto {}

export class FileDto {
  @ApiProperty({ example: exampleIdOf('file') })
  id: string;

  @ApiProperty({ format: 'date-time', description: 'When the session was created' })
  createdAt: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the upload completed; null until COMPLETED',
  })
  completedAt: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the upload session expires; null once COMPLETED, CANCELLED or EXPIRED',
  })
  expiresAt: string | null;

  @ApiProperty()
  filename: string;

  @ApiProperty({ example: 'text/vtt' })
  mimeType: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  sizeBytes: number;

  @ApiProperty({ enum: FILE_STATUSES })
  status: FileStatus;
}

export class CreatedFileDto extends FileDto {
  @ApiProperty({
    format: 'uri',
    description: 'PUT the bytes here, with exactly uploadHeaders and no Authorization header, before expiresAt',
  })
  uploadUrl: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { 'content-type': 'text/vtt' },
    description: 'Headers to send with the upload',
  })
  uploadHeaders: Record<string, string>;
}

export class FileUrlDto {
  @ApiProperty({ format: 'uri', description: 'Temporary download URL, no Authorization header needed' })
  url: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;
}
