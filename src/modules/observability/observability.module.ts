import { Global, Module } from '@nestjs/common';
import { HttpParserRefusals } from './http-parser-refusals';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService, HttpParserRefusals], exports: [MetricsService] })
export class ObservabilityModule {}
