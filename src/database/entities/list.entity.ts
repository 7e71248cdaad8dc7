import { Column, Entity, PrimaryColumn } from 'typeorm';

export const LIST_MEMBER_TYPES = ['account', 'contact', 'opportunity'] as const;
export type ListMemberType = (typeof LIST_MEMBER_TYPES)[number];

@Entity('lists')
export class ListEntity {
  @PrimaryColumn('text')
  id: string;

  @PrimaryColumn('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text')
  name: string;

  /** The type of the records the list holds. */
  @Column('text', { name: 'object_type' })
  objectType: ListMemberType;

  /** In milliseconds (a JS Date), the precision the API shows and pages order by. */
  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at', nullable: true })
  updatedAt: Date | null;

  /** Counts the list's changes (name, members): its ETag (docs/api.md, "Conditional requests"). */
  @Column('integer', { default: 1 })
  version: number;
}
