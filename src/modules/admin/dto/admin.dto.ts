import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  Length,
  MaxLength,
} from 'class-validator';
import { ALL_SCOPES, SCOPES } from '../../../common/auth/scopes';
import { exampleIdOf } from '../../../common/ids';
import { MEMBER_ROLES } from '../../../database/entities/member.entity';
import type { MemberRole } from '../../../database/entities/member.entity';

export class CreateWorkspaceDto {
  @ApiProperty({ example: 'Acme', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  name: string;
}

export class WorkspaceDto {
  @ApiProperty({ example: exampleIdOf('workspace') })
  id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({
    description:
      'An update, upsert or delete without If-Match (an upsert: nor If-None-Match) is 428 precondition_required',
  })
  requirePreconditions: boolean;
}

export class UpdateWorkspaceSettingsDto {
  @ApiPropertyOptional({
    description:
      'Require a precondition of every write that could overwrite another’s change: updates, upserts (If-Match or If-None-Match) and deletes (If-Match), batch inputs included',
  })
  @IsOptional()
  @IsBoolean()
  requirePreconditions?: boolean;
}

export class CreateMemberDto {
  @ApiProperty({ format: 'email', example: 'ada@example.com', maxLength: 320 })
  @IsString()
  @MaxLength(320)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  firstName?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  lastName?: string;

  @ApiPropertyOptional({ enum: MEMBER_ROLES, default: 'member' })
  @IsOptional()
  @IsIn(MEMBER_ROLES, { message: `role must be one of ${MEMBER_ROLES.join(', ')}` })
  role?: MemberRole;
}

export const GRANTABLE_SCOPES = [ALL_SCOPES, ...SCOPES];

export class CreateApiKeyDto {
  @ApiProperty({ example: exampleIdOf('member') })
  @IsString()
  memberId: string;

  @ApiProperty({ type: [String], enum: GRANTABLE_SCOPES, example: ['notes:read', 'notes:create'] })
  @IsArray()
  @ArrayMaxSize(GRANTABLE_SCOPES.length)
  @IsIn(GRANTABLE_SCOPES, { each: true, message: 'each scope must be a known scope or *' })
  scopes: string[];

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;
}

export class CreatedApiKeyDto {
  @ApiProperty({ example: exampleIdOf('apiKey') })
  id: string;

  @ApiProperty({ description: 'The secret: shown once, never again', example: 'sk_…' })
  key: string;

  @ApiProperty({ type: [String] })
  scopes: string[];

  @ApiProperty({ example: exampleIdOf('member') })
  memberId: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class RevokedApiKeyDto {
  @ApiProperty({ example: exampleIdOf('apiKey') })
  id: string;

  @ApiProperty({ format: 'date-time' })
  revokedAt: string;
}
