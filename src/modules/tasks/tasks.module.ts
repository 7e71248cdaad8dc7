import { Module } from '@nestjs/common';
import { recordTypeController } from '../../records/record-type.controller';
import { RecordsModule } from '../../records/records.module';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

@Module({
  imports: [RecordsModule, IdempotencyModule],
  controllers: [
    recordTypeController({
      slug: 'task',
      path: 'tasks',
      names: ['Tasks', 'task'],
      scopes: { create: 'tasks:create', update: 'tasks:update' },
    }),
  ],
})
export class TasksModule {}
