import { Global, Module } from '@nestjs/common';
import { RateLimitStoreFailures } from '../../common/throttling/rate-limit-store-failures';
import { HttpParserRefusals } from './http-parser-refusals';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { ServiceLogger } from './service-logger';

@Global()
@Module({
  controllers: [MetricsController],
  providers: [
    MetricsService,
    HttpParserRefusals,
    ServiceLogger,
    {
      provide: RateLimitStoreFailures,
      inject: [MetricsService],
      useFactory: (metrics: MetricsService): RateLimitStoreFailures => ({ count: () => metrics.countRateLimitStoreError() }),
    },
  ],
  exports: [MetricsService, ServiceLogger, RateLimitStoreFailures],
})
export class ObservabilityModule {}
