import { ApiKeyEntity } from './api-key.entity';
import { MemberEntity } from './member.entity';
import { WorkspaceEntity } from './workspace.entity';

export { ApiKeyEntity, MemberEntity, WorkspaceEntity };
export const ENTITIES = [WorkspaceEntity, MemberEntity, ApiKeyEntity];
