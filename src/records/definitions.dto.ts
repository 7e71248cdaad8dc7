import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { exampleIdOf } from '../common/ids';
import type { ObjectTypeDefinition } from './object-type';
import { VALUE_TYPES } from './value-types';
import type { ValueType } from './value-types';

export class SelectOptionDto {
  @ApiProperty({ example: exampleIdOf('option'), description: 'Generated (opt_…) unless the operator gave one' })
  id: string;

  @ApiProperty()
  label: string;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  description?: string | null;
}

@ApiExtraModels(SelectOptionDto)
export class TypeConfigurationDto {
  @ApiPropertyOptional({ description: 'ISO 4217 code' })
  currency?: string;

  @ApiPropertyOptional({ enum: ['TWITTER', 'LINKEDIN', 'FACEBOOK', 'INSTAGRAM'] })
  handleService?: string;

  @ApiPropertyOptional()
  multipleValues?: boolean;

  @ApiPropertyOptional({ type: [SelectOptionDto] })
  options?: SelectOptionDto[];

  @ApiPropertyOptional()
  unique?: boolean;
}

export class FieldDefinitionDto {
  @ApiPropertyOptional({ example: exampleIdOf('field'), description: 'Custom fields only' })
  id?: string;

  @ApiProperty()
  label: string;

  @ApiProperty({ type: 'string', nullable: true })
  description: string | null;

  @ApiProperty({ enum: VALUE_TYPES })
  valueType: ValueType;

  @ApiProperty({ type: TypeConfigurationDto })
  typeConfiguration: TypeConfigurationDto;

  @ApiProperty()
  readOnly: boolean;

  @ApiProperty()
  required: boolean;
}

export class RelationshipDefinitionDto {
  @ApiPropertyOptional({ example: exampleIdOf('relationship'), description: 'Custom relationships only' })
  id?: string;

  @ApiProperty()
  label: string;

  @ApiProperty({ type: 'string', nullable: true })
  description: string | null;

  @ApiProperty({ enum: ['HAS_ONE', 'HAS_MANY'] })
  cardinality: 'HAS_ONE' | 'HAS_MANY';

  @ApiProperty()
  objectType: string;

  @ApiProperty()
  readOnly: boolean;

  @ApiProperty()
  required: boolean;
}

@ApiExtraModels(FieldDefinitionDto, RelationshipDefinitionDto)
export class DefinitionsDto {
  @ApiProperty()
  objectType: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(FieldDefinitionDto) },
    example: {
      $title: {
        label: 'Title',
        description: null,
        valueType: 'TEXT',
        typeConfiguration: {},
        readOnly: false,
        required: true,
      },
    },
  })
  fieldDefinitions: Record<string, FieldDefinitionDto>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(RelationshipDefinitionDto) },
    example: {
      $account: {
        label: 'Accounts',
        description: null,
        cardinality: 'HAS_MANY',
        objectType: 'account',
        readOnly: false,
        required: false,
      },
    },
  })
  relationshipDefinitions: Record<string, RelationshipDefinitionDto>;
}

/** The definitions response of a type (spec: Definitions response), built from its definitions. */
export function toDefinitionsDto(type: ObjectTypeDefinition): DefinitionsDto {
  return {
    objectType: type.slug,
    fieldDefinitions: Object.fromEntries(
      type.fields.map((field) => [
        field.key,
        {
          ...(field.id && { id: field.id }),
          label: field.label,
          description: field.description,
          valueType: field.valueType,
          typeConfiguration: field.typeConfiguration,
          readOnly: field.readOnly,
          required: field.required,
        },
      ]),
    ),
    relationshipDefinitions: Object.fromEntries(
      type.relationships.map((relationship) => [
        relationship.key,
        {
          ...(relationship.id && { id: relationship.id }),
          label: relationship.label,
          description: relationship.description,
          cardinality: relationship.cardinality,
          objectType: relationship.objectType,
          readOnly: relationship.readOnly,
          required: relationship.required,
        },
      ]),
    ),
  };
}
