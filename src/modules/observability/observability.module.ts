import { Global, Module } from '@nestjs/common';
import { HttpParserRefusals } from './http-parser-refusals';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { ServiceLogger } from './service-logger';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, HttpParserRefusals, ServiceLogger],
  exports: [MetricsService, ServiceLogger],
})
export class ObservabilityModule {}
