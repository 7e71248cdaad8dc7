import { Module, OnModuleInit } from '@nestjs/common';
import { LinkTargets } from '../../records/link-targets';
import { MembersController } from './members.controller';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { RecordsModule } from '../../records/records.module';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

@Module({
  imports: [RecordsModule, IdempotencyModule],
  controllers: [MembersController],
  providers: [MembersRepository, MembersService],
  exports: [MembersService],
})
export class MembersModule implements OnModuleInit {
  constructor(
    private readonly targets: LinkTargets,
    private readonly members: MembersRepository,
  ) {}

  /** Relationships to members (note `$createdBy`, task `$assignedTo`, …) link to rows of this module's table. */
  onModuleInit(): void {
    this.targets.register('member', this.members);
  }
}
