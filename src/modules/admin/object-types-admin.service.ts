import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { newId } from '../../common/ids';
import { Transactions } from '../../database/transactions';
import { DefinitionsDto, toDefinitionsDto } from '../../records/definitions.dto';
import { DefinitionsService } from '../../records/definitions.service';
import { fieldTypeOf } from '../../records/field-types/registry';
import type { ObjectTypeDefinition, TypeConfiguration } from '../../records/object-type';
import { RESERVED_TYPE_SLUGS } from '../../records/system-types';
import {
  AddFieldDto,
  AddRelationshipDto,
  CreateObjectTypeDto,
  TypeConfigurationInputDto,
} from './dto/object-type-admin.dto';

const SELECT_TYPES = new Set(['SINGLE_SELECT', 'MULTI_SELECT']);

function keyTaken(type: ObjectTypeDefinition, key: string): boolean {
  return type.fields.some((f) => f.key === key) || type.relationships.some((r) => r.key === key);
}

function duplicateKey(slug: string, key: string, param: string): ApiError {
  return new ApiError(409, 'duplicate_slug', `${slug} already has a field or relationship ${key}`, param);
}

function typeConfigurationOf(input: AddFieldDto, prefix: string): TypeConfiguration {
  const param = (name: string) => (prefix ? `${prefix}.${name}` : name);
  const given: TypeConfigurationInputDto = input.typeConfiguration ?? {};
  const configuration: TypeConfiguration = { ...given, options: undefined };
  if (SELECT_TYPES.has(input.valueType)) {
    if (!given.options?.length) throw ApiError.missing(param('typeConfiguration.options'));
    const options = given.options.map((option) => ({
      id: option.id ?? newId('option'),
      label: option.label,
      description: option.description ?? null,
    }));
    for (const [index, option] of options.entries()) {
      const clash = options.findIndex((other) => other.id === option.id || other.label === option.label);
      if (clash !== index) {
        throw ApiError.invalidValue(
          param(`typeConfiguration.options.${index}`),
          'option ids and labels must be unique',
        );
      }
    }
    configuration.options = options;
  } else if (given.options) {
    throw ApiError.invalidValue(
      param('typeConfiguration.options'),
      'options apply to SINGLE_SELECT and MULTI_SELECT only',
    );
  }
  if (given.multipleValues && fieldTypeOf(input.valueType).singleValued) {
    throw ApiError.invalidValue(param('typeConfiguration.multipleValues'), `${input.valueType} fields hold one value`);
  }
  if (input.unique) configuration.unique = true;
  // An optional member given as null is absent (docs/api.md §2), not stored as null.
  return Object.fromEntries(Object.entries(configuration).filter(([, value]) => value !== undefined && value !== null));
}

/** Operator API: custom object types, and custom fields and relationships on any type (docs/api.md §6). */
@Injectable()
export class ObjectTypesAdminService {
  constructor(
    private readonly transactions: Transactions,
    private readonly definitions: DefinitionsService,
  ) {}

  /**
   * A custom type with its fields and relationships, all or nothing. The `fields` and
   * `relationships` maps arrive validated entry by entry, as null-prototype objects: their keys
   * are the workspace's own (`constructor` and `toString` included).
   */
  createType(workspaceId: string, input: CreateObjectTypeDto): Promise<DefinitionsDto> {
    const fieldEntries = Object.entries(input.fields ?? {});
    const relationshipEntries = Object.entries(input.relationships ?? {});
    return this.transactions.run(async () => {
      await this.definitions.lockForChange(workspaceId);
      if (RESERVED_TYPE_SLUGS.has(input.slug)) {
        throw new ApiError(409, 'duplicate_slug', `${input.slug} is a system type`, 'slug');
      }
      if (!(await this.definitions.insertType({ workspaceId, slug: input.slug, label: input.label }))) {
        throw new ApiError(409, 'duplicate_slug', `This workspace already has a type ${input.slug}`, 'slug');
      }
      const types = await this.workingCopy(workspaceId);
      const created: ObjectTypeDefinition = {
        slug: input.slug,
        label: input.label,
        custom: true,
        fields: [],
        relationships: [],
      };
      types.set(input.slug, created);
      for (const [key, field] of fieldEntries) {
        await this.insertField(workspaceId, created, field, `fields.${key}`);
        created.fields.push({ key: field.key } as ObjectTypeDefinition['fields'][number]);
      }
      for (const [key, relationship] of relationshipEntries) {
        await this.insertRelationship(workspaceId, created, types, relationship, `relationships.${key}`);
        created.relationships.push({ key: relationship.key } as ObjectTypeDefinition['relationships'][number]);
      }
      return this.changed(workspaceId, input.slug);
    });
  }

  addField(workspaceId: string, slug: string, input: AddFieldDto): Promise<DefinitionsDto> {
    return this.transactions.run(async () => {
      await this.definitions.lockForChange(workspaceId);
      const type = (await this.workingCopy(workspaceId)).get(slug);
      if (!type) throw ApiError.notFound('Object type');
      await this.insertField(workspaceId, type, input, '');
      return this.changed(workspaceId, slug);
    });
  }

  addRelationship(workspaceId: string, slug: string, input: AddRelationshipDto): Promise<DefinitionsDto> {
    return this.transactions.run(async () => {
      await this.definitions.lockForChange(workspaceId);
      const types = await this.workingCopy(workspaceId);
      const type = types.get(slug);
      if (!type) throw ApiError.notFound('Object type');
      await this.insertRelationship(workspaceId, type, types, input, '');
      return this.changed(workspaceId, slug);
    });
  }

  private async insertField(workspaceId: string, type: ObjectTypeDefinition, input: AddFieldDto, prefix: string) {
    const param = (name: string) => (prefix ? `${prefix}.${name}` : name);
    if (keyTaken(type, input.key)) throw duplicateKey(type.slug, input.key, param('key'));
    const typeConfiguration = typeConfigurationOf(input, prefix);
    if (typeConfiguration.unique && type.hidesCustomFields) {
      throw ApiError.invalidValue(
        param(input.unique ? 'unique' : 'typeConfiguration.unique'),
        `${type.slug} fields are hidden from some callers, and a unique check would reveal their values`,
      );
    }
    await this.definitions.insertField({
      id: newId('field'),
      workspaceId,
      objectType: type.slug,
      key: input.key,
      label: input.label,
      valueType: input.valueType,
      description: input.description ?? null,
      typeConfiguration,
      required: input.required ?? false,
    });
  }

  private async insertRelationship(
    workspaceId: string,
    type: ObjectTypeDefinition,
    types: Map<string, ObjectTypeDefinition>,
    input: AddRelationshipDto,
    prefix: string,
  ) {
    const param = (name: string) => (prefix ? `${prefix}.${name}` : name);
    if (keyTaken(type, input.key)) throw duplicateKey(type.slug, input.key, param('key'));
    const target = input.objectType === 'member' ? undefined : types.get(input.objectType);
    if (input.objectType !== 'member' && !target) {
      throw ApiError.invalidValue(param('objectType'), `No object type ${input.objectType} in this workspace`);
    }
    const inverseKey = input.inverseKey ?? `${type.slug}_${input.key}`.slice(0, 63);
    // On a relationship of a type to itself, the inverse lands on the same type as the key.
    if (target && (keyTaken(target, inverseKey) || (target.slug === type.slug && inverseKey === input.key))) {
      throw duplicateKey(input.objectType, inverseKey, param('inverseKey'));
    }
    await this.definitions.insertRelationship({
      id: newId('relationship'),
      workspaceId,
      objectType: type.slug,
      key: input.key,
      label: input.label,
      cardinality: input.cardinality,
      targetType: input.objectType,
      description: input.description ?? null,
      inverseKey,
      inverseLabel: input.inverseLabel ?? `${type.label} (${input.label})`,
    });
    target?.relationships.push({ key: inverseKey } as ObjectTypeDefinition['relationships'][number]);
  }

  /**
   * The workspace's types, copied: the checks below add keys to them as they go, and the cached
   * definitions must not change before (or unless) the transaction commits.
   */
  private async workingCopy(workspaceId: string): Promise<Map<string, ObjectTypeDefinition>> {
    const types = await this.definitions.typesOf({ workspaceId });
    return new Map(
      [...types].map(([slug, type]) => [
        slug,
        { ...type, fields: [...type.fields], relationships: [...type.relationships] },
      ]),
    );
  }

  private async changed(workspaceId: string, slug: string): Promise<DefinitionsDto> {
    await this.definitions.bumpVersion(workspaceId);
    return toDefinitionsDto(await this.definitions.typeOf({ workspaceId }, slug));
  }
}
