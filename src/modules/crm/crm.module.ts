import { Module } from '@nestjs/common';
import { recordTypeController } from '../../records/record-type.controller';
import { RecordsModule } from '../../records/records.module';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

/** Accounts, contacts and opportunities: the member types of lists and targets of links. */
@Module({
  imports: [RecordsModule, IdempotencyModule],
  controllers: [
    recordTypeController({
      slug: 'account',
      path: 'accounts',
      names: ['Accounts', 'account'],
      scopes: { create: 'accounts:create', update: 'accounts:update' },
    }),
    recordTypeController({
      slug: 'contact',
      path: 'contacts',
      names: ['Contacts', 'contact'],
      scopes: { create: 'contacts:create', update: 'contacts:update' },
    }),
    recordTypeController({
      slug: 'opportunity',
      path: 'opportunities',
      names: ['Opportunities', 'opportunity'],
      scopes: { create: 'opportunities:create', update: 'opportunities:update' },
    }),
  ],
})
export class CrmModule {}
