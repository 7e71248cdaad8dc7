import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { isIdOf, newId } from '../common/ids';
import { WorkspacesRepository } from './workspaces.repository';

/** A workspace and its settings. */
export interface Workspace {
  id: string;
  name: string;
  createdAt: Date;
  requirePreconditions: boolean;
}

export type WorkspaceSettings = Partial<Pick<Workspace, 'requirePreconditions'>>;

/** The workspaces, as the operator API makes and names them (their definitions' version is DefinitionsService's). */
@Injectable()
export class WorkspacesService {
  constructor(private readonly workspaces: WorkspacesRepository) {}

  async create(name: string): Promise<Workspace> {
    const workspace = { id: newId('workspace'), name, createdAt: new Date(), requirePreconditions: false };
    await this.workspaces.insert(workspace);
    return workspace;
  }

  /** Sets the settings given; 404 unless there is a workspace `id`. */
  async updateSettings(id: string, settings: WorkspaceSettings): Promise<Workspace> {
    const workspace = isIdOf('workspace', id) ? await this.workspaces.updateSettings(id, settings) : undefined;
    if (!workspace) throw ApiError.notFound('Workspace');
    return workspace;
  }

  /** 404 unless there is a workspace `id`. */
  async requireExisting(id: string): Promise<void> {
    const exists = isIdOf('workspace', id) && (await this.workspaces.exists(id));
    if (!exists) throw ApiError.notFound('Workspace');
  }
}
