import { Module } from '@nestjs/common';
import { WorkspacesRepository } from './workspaces.repository';

/** The owner of `workspaces`: the operator API creates them, the definitions version them. */
@Module({ providers: [WorkspacesRepository], exports: [WorkspacesRepository] })
export class WorkspacesModule {}
