import { Module } from '@nestjs/common';
import { RateLimitStoreFailures } from '../../common/throttling/rate-limit-store-failures';
import { HttpParserRefusals } from './http-parser-refusals';
import { MetricsListener } from './metrics-listener';
import { MetricsService } from './metrics.service';
import { ServiceLogger } from './service-logger';

@Module({
  providers: [
    MetricsService,
    MetricsListener,
    HttpParserRefusals,
    ServiceLogger,
    {
      provide: RateLimitStoreFailures,
      inject: [MetricsService],
      useFactory: (metrics: MetricsService): RateLimitStoreFailures => ({
        count: () => metrics.countRateLimitStoreError(),
      }),
    },
  ],
  exports: [MetricsService, ServiceLogger, RateLimitStoreFailures],
})
export class ObservabilityModule {}
