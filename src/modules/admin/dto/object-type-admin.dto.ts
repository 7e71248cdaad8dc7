import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath, OmitType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  NotContains,
} from 'class-validator';
import { DtoMap, NestedDto } from '../../../common/validation/dto-shape';
import { VALUE_TYPES } from '../../../records/value-types';
import type { ValueType } from '../../../records/value-types';

/** Custom keys (docs/api.md §6): no `$`, and not a paging parameter. */
export const CUSTOM_KEY_PATTERN = /^(?!(limit|offset)$)[a-z][a-zA-Z0-9_]{0,62}$/;
const CUSTOM_KEY_MESSAGE = 'key must match ^[a-z][a-zA-Z0-9_]{0,62}$ and not be limit or offset';

export class OptionInputDto {
  @ApiPropertyOptional({ description: 'Generated (opt_…) when absent' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'option id must be 1-64 letters, digits, _ or -' })
  id?: string;

  @ApiProperty()
  @IsString()
  @Length(1, 200)
  label: string;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;
}

export class TypeConfigurationInputDto {
  @ApiPropertyOptional({ example: 'EUR' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code such as EUR' })
  currency?: string;

  @ApiPropertyOptional({ enum: ['TWITTER', 'LINKEDIN', 'FACEBOOK', 'INSTAGRAM'] })
  @IsOptional()
  @IsIn(['TWITTER', 'LINKEDIN', 'FACEBOOK', 'INSTAGRAM'])
  handleService?: 'TWITTER' | 'LINKEDIN' | 'FACEBOOK' | 'INSTAGRAM';

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  multipleValues?: boolean;

  @ApiPropertyOptional({ type: [OptionInputDto] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @NestedDto(() => OptionInputDto, { each: true })
  options?: OptionInputDto[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  unique?: boolean;
}

export class AddFieldDto {
  @ApiProperty({ example: 'priority' })
  @IsString()
  @Matches(CUSTOM_KEY_PATTERN, { message: CUSTOM_KEY_MESSAGE })
  key: string;

  @ApiProperty({ example: 'Priority' })
  @IsString()
  @Length(1, 200)
  label: string;

  @ApiProperty({ enum: VALUE_TYPES })
  @IsIn(VALUE_TYPES)
  valueType: ValueType;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiPropertyOptional({ type: TypeConfigurationInputDto })
  @IsOptional()
  @NestedDto(() => TypeConfigurationInputDto)
  typeConfiguration?: TypeConfigurationInputDto;

  @ApiPropertyOptional({ description: 'Required on create' })
  @IsOptional()
  @IsBoolean()
  required?: boolean;

  @ApiPropertyOptional({ description: 'Same as typeConfiguration.unique' })
  @IsOptional()
  @IsBoolean()
  unique?: boolean;
}

export class AddRelationshipDto {
  @ApiProperty({ example: 'reviewer' })
  @IsString()
  @Matches(CUSTOM_KEY_PATTERN, { message: CUSTOM_KEY_MESSAGE })
  key: string;

  @ApiProperty({ example: 'Reviewer' })
  @IsString()
  @Length(1, 200)
  label: string;

  @ApiProperty({ enum: ['HAS_ONE', 'HAS_MANY'] })
  @IsIn(['HAS_ONE', 'HAS_MANY'])
  cardinality: 'HAS_ONE' | 'HAS_MANY';

  @ApiProperty({ example: 'contact', description: 'Slug of the related type, or member' })
  @IsString()
  @NotContains(' ')
  objectType: string;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiPropertyOptional({ description: 'Key of the read-only inverse on the related type; default <type>_<key>' })
  @IsOptional()
  @IsString()
  @Matches(CUSTOM_KEY_PATTERN, { message: CUSTOM_KEY_MESSAGE })
  inverseKey?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 200)
  inverseLabel?: string;
}

/** A field of a create-type body's map: its key is the map's (documentation only; AddFieldDto validates). */
export class TypeFieldDto extends OmitType(AddFieldDto, ['key']) {}

/** A relationship of a create-type body's map, keyed by the map. */
export class TypeRelationshipDto extends OmitType(AddRelationshipDto, ['key']) {}

@ApiExtraModels(TypeFieldDto, TypeRelationshipDto)
export class CreateObjectTypeDto {
  @ApiProperty({ example: 'project', description: 'Matches ^[a-z][a-z0-9_]{1,62}$; not a system type' })
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{1,62}$/, { message: 'slug must match ^[a-z][a-z0-9_]{1,62}$' })
  slug: string;

  @ApiProperty({ example: 'Project' })
  @IsString()
  @Length(1, 200)
  label: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(TypeFieldDto) },
    description: 'Field key → definition (the key inside each definition is taken from the map)',
    example: { name: { label: 'Name', valueType: 'TEXT', required: true } },
  })
  @IsOptional()
  @DtoMap(() => AddFieldDto, { keyMember: 'key' })
  fields?: Record<string, AddFieldDto>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(TypeRelationshipDto) },
    description: 'Relationship key → definition (the key inside each definition is taken from the map)',
    example: { lead: { label: 'Lead', cardinality: 'HAS_ONE', objectType: 'member' } },
  })
  @IsOptional()
  @DtoMap(() => AddRelationshipDto, { keyMember: 'key' })
  relationships?: Record<string, AddRelationshipDto>;
}
