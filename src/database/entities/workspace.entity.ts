import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('workspaces')
export class WorkspaceEntity {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;
}
