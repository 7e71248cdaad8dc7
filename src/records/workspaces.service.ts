import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { isIdOf, newId } from '../common/ids';
import { WorkspacesRepository } from './workspaces.repository';

/** A workspace as it was created. */
export interface CreatedWorkspace {
  id: string;
  name: string;
  createdAt: Date;
}

/** The workspaces, as the operator API makes and names them (their definitions' version is DefinitionsService's). */
@Injectable()
export class WorkspacesService {
  constructor(private readonly workspaces: WorkspacesRepository) {}

  async create(name: string): Promise<CreatedWorkspace> {
    const workspace = { id: newId('workspace'), name, createdAt: new Date() };
    await this.workspaces.insert(workspace);
    return workspace;
  }

  /** 404 unless there is a workspace `id`. */
  async requireExisting(id: string): Promise<void> {
    const exists = isIdOf('workspace', id) && (await this.workspaces.exists(id));
    if (!exists) throw ApiError.notFound('Workspace');
  }
}
