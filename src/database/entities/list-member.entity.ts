import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A record in a list; a list's members page newest `added_at` first. */
@Entity('list_members')
export class ListMemberEntity {
  @PrimaryColumn('text', { name: 'list_id' })
  listId: string;

  @PrimaryColumn('text', { name: 'record_id' })
  recordId: string;

  @Column('timestamptz', { name: 'added_at' })
  addedAt: Date;
}
