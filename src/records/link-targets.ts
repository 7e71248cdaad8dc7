import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { isRecordIdOf } from './record-ids';
import { RecordsRepository } from './records.repository';

/** The owner of a table whose rows are link targets without being records (members, files). */
export interface LinkTargetOwner {
  /** Which of `ids` are rows of the workspace. */
  existingIds(workspaceId: string, ids: string[]): Promise<string[]>;
}

/** The refusal of an id that is not an `objectType` of the workspace, or that the caller may not know of. */
export function relationshipEntityMissing(objectType: string, id: string, param: string): ApiError {
  return new ApiError(422, 'relationship_entity_missing', `No ${objectType} ${id} in this workspace`, param);
}

/**
 * The one check that link targets exist (docs/api.md §7), for records, lists and meetings alike.
 * Most targets are records; the modules whose own rows are targets register their repository
 * here (members, files), so the records core asks them without importing them.
 */
@Injectable()
export class LinkTargets {
  /** By object type slug, which a workspace may choose (`constructor` included): a Map. */
  private readonly owners = new Map<string, LinkTargetOwner>();

  constructor(private readonly records: RecordsRepository) {}

  register(objectType: string, owner: LinkTargetOwner): void {
    this.owners.set(objectType, owner);
  }

  /**
   * Every one of `ids` must be an `objectType` of the workspace: a malformed, unknown or foreign id
   * is 422 `relationship_entity_missing` at `param`, checked by shape before any query.
   */
  async verify(workspaceId: string, objectType: string, ids: string[], param: string): Promise<void> {
    if (ids.length === 0) return;
    const missing = (id: string) => relationshipEntityMissing(objectType, id, param);
    const malformed = ids.find((id) => !isRecordIdOf(objectType, id));
    if (malformed !== undefined) throw missing(malformed);
    const found = await this.existing(workspaceId, objectType, ids);
    const absent = ids.find((id) => !found.has(id));
    if (absent !== undefined) throw missing(absent);
  }

  /** Which of `ids` (each of the type's shape) are `objectType`s of the workspace, in one query. */
  async existing(workspaceId: string, objectType: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const owner = this.owners.get(objectType);
    return new Set(
      owner ? await owner.existingIds(workspaceId, ids) : await this.records.existingIds(workspaceId, objectType, ids),
    );
  }
}
