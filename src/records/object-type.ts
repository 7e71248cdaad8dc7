import type { ValueType } from './value-types';

export type Cardinality = 'HAS_ONE' | 'HAS_MANY';

export interface SelectOption {
  id: string;
  label: string;
  description?: string | null;
}

export interface TypeConfiguration {
  currency?: string;
  handleService?: 'TWITTER' | 'LINKEDIN' | 'FACEBOOK' | 'INSTAGRAM';
  multipleValues?: boolean;
  options?: SelectOption[];
  unique?: boolean;
}

export interface FieldDefinition {
  key: string;
  label: string;
  valueType: ValueType;
  description: string | null;
  typeConfiguration: TypeConfiguration;
  readOnly: boolean;
  required: boolean;
  id?: string;
}

export interface RelationshipDefinition {
  key: string;
  label: string;
  cardinality: Cardinality;
  /** Slug of the related type. */
  objectType: string;
  description: string | null;
  readOnly: boolean;
  required: boolean;
  id?: string;
}

/** What the records core knows of a type: the same shape for system, custom and member types. */
export interface ObjectTypeDefinition {
  slug: string;
  label: string;
  fields: FieldDefinition[];
  relationships: RelationshipDefinition[];
}
