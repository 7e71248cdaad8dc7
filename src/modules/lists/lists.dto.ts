import type { Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { ApiPropertyOptions } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, Matches, ValidateBy } from 'class-validator';
import { exampleIdOf } from '../../common/ids';
import { NestedDto } from '../../common/validation/dto-shape';
import { FieldValueDto } from '../../records/entity-envelope';
import { LIST_MEMBER_TYPES } from '../../database/entities/list.entity';

export const MAX_LIST_NAME_LENGTH = 10_000;
/** `account` or its `$account` alias (docs/api.md §7), and so on. */
const OBJECT_TYPE_NAMES = [...LIST_MEMBER_TYPES, ...LIST_MEMBER_TYPES.map((type) => `$${type}`)];
const NAME_RULE = `fields.$name must be 1 to ${MAX_LIST_NAME_LENGTH} characters, not all blank`;

/** At most `max` characters, counted in code points as PostgreSQL counts them. */
function MaxCharacters(max: number, message: string): PropertyDecorator {
  return ValidateBy({
    name: 'maxCharacters',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && [...value].length <= max,
      defaultMessage: () => message,
    },
  });
}

const ID_OR_IDS = {
  oneOf: [
    { type: 'string', nullable: true },
    { type: 'array', items: { type: 'string' } },
  ],
};

/** A body of `type`, or null (the same as absent), in a request schema. */
function bodyOrNull(type: () => Type<unknown>) {
  return { oneOf: [{ $ref: getSchemaPath(type()) }, { type: 'object', nullable: true, enum: [null] }] };
}

/** The member keys, one per member type; a list takes only the one of its `$objectType`. */
function relationshipsSchema(value: object): ApiPropertyOptions {
  return {
    type: 'object',
    nullable: true,
    additionalProperties: false,
    description:
      'The members, under the key of the list’s $objectType; null, here or for the key, is the same as absent.',
    properties: { $accounts: value, $contacts: value, $opportunities: value },
  };
}

/** A list's member key on update: ids to remove, then ids to add (docs/api.md §7). */
export class ListMembershipChangeDto {
  @ApiPropertyOptional({ ...ID_OR_IDS, description: 'Ids to add; re-adding a member keeps its position' })
  @IsOptional()
  @IsString({ each: true, message: '$property must be an id or an array of ids' })
  add?: string | string[];

  @ApiPropertyOptional({ ...ID_OR_IDS, description: 'Ids to remove; an id that is not a member changes nothing' })
  @IsOptional()
  @IsString({ each: true, message: '$property must be an id or an array of ids' })
  remove?: string | string[];
}

export class CreateListFieldsDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_LIST_NAME_LENGTH })
  @IsString()
  @Matches(/\S/, { message: NAME_RULE })
  @MaxCharacters(MAX_LIST_NAME_LENGTH, NAME_RULE)
  $name: string;

  @ApiProperty({
    enum: OBJECT_TYPE_NAMES,
    description: 'The members’ type, fixed after create; read back bare (`account`)',
  })
  @IsIn(OBJECT_TYPE_NAMES, { message: `fields.$objectType must be one of ${LIST_MEMBER_TYPES.join(', ')}` })
  $objectType: string;
}

/** The fields an update may change; `$name: null` is missing, as nulling a required record field is. */
export class UpdateListFieldsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: MAX_LIST_NAME_LENGTH })
  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: NAME_RULE })
  @MaxCharacters(MAX_LIST_NAME_LENGTH, NAME_RULE)
  $name?: string;
}

export class CreateListDto {
  // Absent or null, `fields` reads as empty: what is then missing is `fields.$name`.
  @ApiProperty({ type: CreateListFieldsDto })
  @NestedDto(() => CreateListFieldsDto)
  fields: CreateListFieldsDto = new CreateListFieldsDto();

  @ApiPropertyOptional(relationshipsSchema(ID_OR_IDS))
  @IsOptional()
  @IsObject()
  relationships?: Record<string, unknown>;
}

/**
 * `fields` and the member key's change are validated by their classes once the service has
 * answered what only it can: a changed `$objectType` (422 read_only_field), a null `$name` (422
 * parameter_missing), a key of another member type (422 object_type_mismatch) or of none (400
 * unknown_relationship), an operation lists do not have (400 invalid_operation).
 */
@ApiExtraModels(UpdateListFieldsDto, ListMembershipChangeDto)
export class UpdateListDto {
  @ApiPropertyOptional(bodyOrNull(() => UpdateListFieldsDto))
  @IsOptional()
  @IsObject()
  fields?: Record<string, unknown>;

  @ApiPropertyOptional(relationshipsSchema(bodyOrNull(() => ListMembershipChangeDto)))
  @IsOptional()
  @IsObject()
  relationships?: Record<string, unknown>;
}

@ApiExtraModels(FieldValueDto)
export class ListDto {
  @ApiProperty({ example: exampleIdOf('list') })
  id: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({
    type: 'object',
    description: '$name (TEXT) and $objectType (SINGLE_SELECT: account, contact or opportunity)',
    additionalProperties: { $ref: getSchemaPath(FieldValueDto) },
    example: {
      $name: { value: 'Key accounts', valueType: 'TEXT' },
      $objectType: { value: 'account', valueType: 'SINGLE_SELECT' },
    },
  })
  fields: Record<string, FieldValueDto>;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    example: 1,
    description: 'How many changes (of its name or members) the list has had; its ETag is `"v<version>"`',
  })
  version: number;

  @ApiProperty({ type: 'string', nullable: true })
  httpLink: string | null;
}
