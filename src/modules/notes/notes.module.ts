import { Module } from '@nestjs/common';
import { recordTypeController } from '../../records/record-type.controller';
import { RecordsModule } from '../../records/records.module';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

/** Notes: the records core with the note type; the author is the calling key's member. */
@Module({
  imports: [RecordsModule, IdempotencyModule],
  controllers: [
    recordTypeController({
      slug: 'note',
      path: 'notes',
      names: ['Notes', 'note'],
      scopes: { create: 'notes:create', update: 'notes:update' },
    }),
  ],
})
export class NotesModule {}
