import { Injectable } from '@nestjs/common';
import { ApiError } from '../../common/errors/api-error';
import { isIdOf, newId } from '../../common/ids';
import { Transactions } from '../../database/transactions';
import { DefinitionsDto, toDefinitionsDto } from '../../records/definitions.dto';
import { DefinitionsService } from '../../records/definitions.service';
import type { ObjectTypeDefinition, TypeConfiguration } from '../../records/object-type';
import { AddFieldDto, AddRelationshipDto, TypeConfigurationInputDto } from './dto/object-type-admin.dto';

const SELECT_TYPES = new Set(['SINGLE_SELECT', 'MULTI_SELECT']);

function keyTaken(type: ObjectTypeDefinition, key: string): boolean {
  return type.fields.some((f) => f.key === key) || type.relationships.some((r) => r.key === key);
}

function duplicateKey(slug: string, key: string, param: string): ApiError {
  return new ApiError(409, 'duplicate_slug', `${slug} already has a field or relationship ${key}`, param);
}

function typeConfigurationOf(input: AddFieldDto): TypeConfiguration {
  const given: TypeConfigurationInputDto = input.typeConfiguration ?? {};
  const configuration: TypeConfiguration = { ...given, options: undefined };
  if (SELECT_TYPES.has(input.valueType)) {
    if (!given.options?.length) throw ApiError.missing('typeConfiguration.options');
    const options = given.options.map((option) => ({
      id: option.id ?? newId('option'),
      label: option.label,
      description: option.description ?? null,
    }));
    for (const [index, option] of options.entries()) {
      const clash = options.findIndex((other) => other.id === option.id || other.label === option.label);
      if (clash !== index) {
        throw ApiError.invalidValue(`typeConfiguration.options.${index}`, 'option ids and labels must be unique');
      }
    }
    configuration.options = options;
  } else if (given.options) {
    throw ApiError.invalidValue('typeConfiguration.options', `options apply to SINGLE_SELECT and MULTI_SELECT only`);
  }
  if (input.unique) configuration.unique = true;
  return Object.fromEntries(Object.entries(configuration).filter(([, value]) => value !== undefined));
}

/** Operator API: custom fields and relationships on a workspace's types (decisions §6). */
@Injectable()
export class ObjectTypesAdminService {
  constructor(
    private readonly transactions: Transactions,
    private readonly definitions: DefinitionsService,
  ) {}

  addField(workspaceId: string, slug: string, input: AddFieldDto): Promise<DefinitionsDto> {
    return this.transactions.run(async (manager) => {
      const type = await this.typeOf(workspaceId, slug);
      if (keyTaken(type, input.key)) throw duplicateKey(slug, input.key, 'key');
      await manager.query(
        `INSERT INTO field_definitions
           (id, workspace_id, object_type, key, label, value_type, description, type_configuration, required)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          newId('field'),
          workspaceId,
          slug,
          input.key,
          input.label,
          input.valueType,
          input.description ?? null,
          JSON.stringify(typeConfigurationOf(input)),
          input.required ?? false,
        ],
      );
      return this.changed(workspaceId, slug);
    });
  }

  addRelationship(workspaceId: string, slug: string, input: AddRelationshipDto): Promise<DefinitionsDto> {
    return this.transactions.run(async (manager) => {
      const type = await this.typeOf(workspaceId, slug);
      if (keyTaken(type, input.key)) throw duplicateKey(slug, input.key, 'key');
      const target =
        input.objectType === 'member' ? undefined : (await this.definitions.typesOf({ workspaceId })).get(input.objectType);
      if (input.objectType !== 'member' && !target) {
        throw ApiError.invalidValue('objectType', `No object type ${input.objectType} in this workspace`);
      }
      const inverseKey = input.inverseKey ?? `${slug}_${input.key}`.slice(0, 63);
      if (target && keyTaken(target, inverseKey)) throw duplicateKey(input.objectType, inverseKey, 'inverseKey');
      await manager.query(
        `INSERT INTO relationship_definitions
           (id, workspace_id, object_type, key, label, cardinality, target_type, description, inverse_key, inverse_label)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          newId('relationship'),
          workspaceId,
          slug,
          input.key,
          input.label,
          input.cardinality,
          input.objectType,
          input.description ?? null,
          inverseKey,
          input.inverseLabel ?? `${type.label} (${input.label})`,
        ],
      );
      return this.changed(workspaceId, slug);
    });
  }

  private async typeOf(workspaceId: string, slug: string): Promise<ObjectTypeDefinition> {
    const exists =
      isIdOf('workspace', workspaceId) &&
      ((await this.transactions.manager.query(`SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE`, [workspaceId])) as unknown[])
        .length > 0;
    if (!exists) throw ApiError.notFound('Workspace');
    return this.definitions.typeOf({ workspaceId }, slug);
  }

  private async changed(workspaceId: string, slug: string): Promise<DefinitionsDto> {
    await this.definitions.bumpVersion(workspaceId);
    return toDefinitionsDto(await this.definitions.typeOf({ workspaceId }, slug));
  }
}
