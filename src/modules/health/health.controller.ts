import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/auth.decorators';
import { ApiErrors } from '../../common/errors/error-responses';
import { databaseUnavailable } from '../../common/errors/to-api-error';
import { DatabaseHealth } from '../../database/database-health';

export class HealthDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

@ApiTags('Operations')
@Controller('health')
@Public()
export class HealthController {
  constructor(private readonly database: DatabaseHealth) {}

  @Get()
  @ApiOkResponse({ type: HealthDto, description: 'The process is up' })
  live(): HealthDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOkResponse({ type: HealthDto, description: 'The database answers' })
  @ApiErrors(['database_unavailable'])
  async ready(): Promise<HealthDto> {
    try {
      await this.database.ping();
    } catch {
      throw databaseUnavailable();
    }
    return { status: 'ok' };
  }
}
