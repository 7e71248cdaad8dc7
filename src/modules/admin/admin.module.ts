import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MembersModule } from '../members/members.module';
import { AdminController } from './admin.controller';
import { AdminService } from './admin.service';
import { ObjectTypesAdminController } from './object-types-admin.controller';
import { ObjectTypesAdminService } from './object-types-admin.service';
import { RecordsModule } from '../../records/records.module';

@Module({
  imports: [RecordsModule, MembersModule, AuthModule],
  controllers: [AdminController, ObjectTypesAdminController],
  providers: [AdminService, ObjectTypesAdminService],
  exports: [AdminService],
})
export class AdminModule {}
