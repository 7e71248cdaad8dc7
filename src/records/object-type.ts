import type { Scope } from '../common/auth/scopes';
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

/** What an update may do to a relationship; a type may allow fewer (`updateOperations`). */
export const RELATIONSHIP_OPERATIONS = ['add', 'remove', 'replace'] as const;
export type RelationshipOperation = (typeof RELATIONSHIP_OPERATIONS)[number];

/**
 * Where a relationship's links live: every link is one `record_links` row named `link`, read from
 * its source as the relationship and from its target as the inverse.
 */
export interface LinkBinding {
  link: string;
  side: 'source' | 'target';
}

export interface RelationshipDefinition {
  key: string;
  label: string;
  cardinality: Cardinality;
  /** Slug of the related type. */
  objectType: string;
  description: string | null;
  /** Not writable through the API at all (inverse sides, system-managed links). */
  readOnly: boolean;
  required: boolean;
  /** Writable on create only (task `$createdBy`); an update is 422 `read_only_field`. */
  createOnly?: boolean;
  /** On create, when absent, links the calling key's member (note `$createdBy`, task `$createdBy`). */
  defaultsToCaller?: boolean;
  binding: LinkBinding;
  /** On a writable inverse (account `$contact`): the source side holds one id, so adding moves it. */
  inverseOfHasOne?: boolean;
  id?: string;
}

/** What the records core knows of a type: the same shape for system, custom and member types. */
export interface ObjectTypeDefinition {
  slug: string;
  label: string;
  fields: FieldDefinition[];
  relationships: RelationshipDefinition[];
  /** A workspace-defined type, served under `/v1/objects/{entitySlug}`. */
  custom?: boolean;
  /**
   * The scope that reads its records, on its routes, in the event feed, in webhook bodies and in
   * search: declared once here so that none of them can grant or hide what another does not.
   * Every system type has one (`SystemRecordType`); a custom type's is `objects:read`.
   */
  readScope?: Scope;
  /** Operations an update may use on relationships (notes: add and remove only). */
  updateOperations?: readonly RelationshipOperation[];
  /**
   * Its custom fields read null to some callers (a meeting at METADATA access), so none may be
   * `unique`: refusing a duplicate would tell such a caller the hidden value.
   */
  hidesCustomFields?: boolean;
}

/** The scope that reads records of `type`: its own, or `objects:read` for a custom type. */
export function readScopeOf(type: ObjectTypeDefinition): Scope {
  return (type.custom ? undefined : type.readScope) ?? 'objects:read';
}
