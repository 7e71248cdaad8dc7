import { Module } from '@nestjs/common';
import { ListsController } from './lists.controller';
import { ListsRepository } from './lists.repository';
import { ListsService } from './lists.service';
import { RecordsModule } from '../../records/records.module';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

@Module({
  imports: [RecordsModule, IdempotencyModule],
  controllers: [ListsController],
  providers: [ListsRepository, ListsService],
})
export class ListsModule {}
