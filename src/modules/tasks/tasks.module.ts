import { Module } from '@nestjs/common';
import { recordTypeController } from '../../records/record-type.controller';

@Module({
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
