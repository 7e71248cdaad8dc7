import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth-context';
import { AppConfig } from '../config/app-config';
import type { Change, EventChanges } from './change-events';
import { EntityEnvelopeDto, StoredEntity, toEntityEnvelope } from './entity-envelope';
import type { ObjectTypeDefinition } from './object-type';
import type { RecordRow } from './records.repository';

/** The change a record write records: the record as a read returns it right after. */
export function recordChange(
  caller: AuthContext,
  slug: string,
  id: string,
  action: 'created' | 'updated',
  data: EntityEnvelopeDto,
  changes?: EventChanges,
): Change {
  return { workspaceId: caller.workspaceId, entityType: slug, entityId: id, action, data, changes };
}

/** Records' rows as the API answers them: their links grouped by the type's relationships. */
@Injectable()
export class RecordEnvelopes {
  constructor(private readonly config: AppConfig) {}

  of(type: ObjectTypeDefinition, rows: RecordRow[]): EntityEnvelopeDto[] {
    const keyOf = new Map(type.relationships.map((r) => [`${r.binding.side}|${r.binding.link}`, r.key]));
    return rows.map((row) => {
      const links = new Map<string, string[]>();
      for (const [side, link, other] of row.links) {
        const key = keyOf.get(`${side}|${link}`)!;
        const ids = links.get(key);
        if (ids) ids.push(other);
        else links.set(key, [other]);
      }
      const entity: StoredEntity = {
        id: row.id,
        // Rows that come through json_agg carry timestamps as text.
        createdAt: new Date(row.created_at),
        updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
        version: row.version,
        externalId: row.external_id,
        fields: row.fields,
        links,
      };
      return toEntityEnvelope(type, entity, this.config.publicAppUrl);
    });
  }
}
