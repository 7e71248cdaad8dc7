import { Controller, Get } from '@nestjs/common';
import { ApiProperty, ApiTags } from '@nestjs/swagger';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { SCOPES } from '../../common/auth/scopes';

export class KeyValidationDto {
  @ApiProperty({ example: true })
  active: boolean;

  @ApiProperty({ type: [String], enum: SCOPES, description: 'Every granted public scope' })
  scopes: string[];

  @ApiProperty({ enum: ['user'] })
  subjectType: 'user';

  @ApiProperty({ enum: ['api_key'] })
  tokenType: 'api_key';
}

@ApiTags('Key validation')
@Controller('v1/auth')
export class AuthController {
  @Get('validate')
  @Endpoint({
    summary: 'Check that the API key is active and read its scopes',
    category: 'read',
    response: KeyValidationDto,
  })
  validate(@Caller() caller: AuthContext): KeyValidationDto {
    return { active: true, scopes: [...caller.scopes], subjectType: 'user', tokenType: 'api_key' };
  }
}
