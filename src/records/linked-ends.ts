import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../common/auth/auth-context';
import { ChangeEvents } from './change-events';
import { DefinitionsService } from './definitions.service';
import type { LinkBinding, RelationshipDefinition } from './object-type';
import { RecordEnvelopes, recordChange } from './record-envelopes';
import { RecordLinksRepository } from './record-links.repository';
import { RecordsRepository } from './records.repository';

/** Types whose records are no entities of the change feed: a link to them is no change of theirs. */
const UNRECORDED_TYPES = new Set(['member', 'file']);

/** The same link read from its other end. */
export function otherEnd({ link, side }: LinkBinding): LinkBinding {
  return { link, side: side === 'source' ? 'target' : 'source' };
}

/**
 * The records at the other end of a write's links: a link made or removed changes them too (their
 * `updatedAt` moves, each gets its `updated` event), and a record that may link to one record only
 * leaves the one it was linked to when it is linked to another.
 */
@Injectable()
export class LinkedEnds {
  constructor(
    private readonly definitions: DefinitionsService,
    private readonly records: RecordsRepository,
    private readonly links: RecordLinksRepository,
    private readonly events: ChangeEvents,
    private readonly envelopes: RecordEnvelopes,
  ) {}

  /**
   * The records at the other end of links that `definition` (a relationship of the record that
   * changed) added or removed: each changed through the relationship that reads the link from its
   * end, if its type has one and is an entity of the change feed.
   */
  async touch(caller: AuthContext, definition: RelationshipDefinition, ids: string[]): Promise<void> {
    if (ids.length === 0 || UNRECORDED_TYPES.has(definition.objectType)) return;
    const otherType = await this.definitions.typeOf(caller, definition.objectType);
    const { link, side } = otherEnd(definition.binding);
    const inverse = otherType.relationships.find(
      (relationship) => relationship.binding.link === link && relationship.binding.side === side,
    );
    if (inverse) await this.changed(caller, otherType.slug, ids, [inverse.key]);
  }

  /**
   * Unlinks the records `ids`, about to be linked through `definition` (a writable inverse of a
   * HAS_ONE), from the records of type `slug` they were linked to: those change too. Locking the
   * moved records makes concurrent moves of one record take turns, as its own updates do, so that
   * it never ends up linked twice.
   */
  async moveHere(caller: AuthContext, slug: string, definition: RelationshipDefinition, ids: string[]): Promise<void> {
    await this.records.lock(ids);
    const previous = await this.links.unlinkSources(ids, definition.binding.link);
    if (previous.length > 0) await this.changed(caller, slug, previous, [definition.key]);
  }

  /**
   * The records `ids` of type `slug` changed through their relationships `keys` only: their
   * `updatedAt` moves (unless this transaction made them) and each gets its `updated` event.
   */
  private async changed(caller: AuthContext, slug: string, ids: string[], keys: string[]): Promise<void> {
    const type = await this.definitions.typeOf(caller, slug);
    const madeHere = ids.filter((id) => this.events.createdHere(slug, id));
    const rows = await this.records.touch(caller.workspaceId, type, ids, { updatedAt: new Date(), except: madeHere });
    for (const record of this.envelopes.of(type, rows)) {
      this.events.record(recordChange(caller, slug, record.id, 'updated', record, { fields: [], relationships: keys }));
    }
  }
}
