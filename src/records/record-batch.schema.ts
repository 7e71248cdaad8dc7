import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Scope } from '../common/auth/scopes';
import type { ErrorCode } from '../common/errors/error-codes';
import { BATCH_ITEMS } from '../common/throttling/rate-category';
import { ErrorDetailDto } from '../common/errors/error-response.dto';
import { ApiErrors } from '../common/errors/error-responses';
import { ApiJsonBody, type BodyExample } from '../common/openapi/api-json-body';
import { schemaComponent } from '../common/openapi/schema-components';
import { exampleIdOf, type IdKind } from '../common/ids';
import { EntityEnvelopeDto } from './entity-envelope';
import type { OpenApiSchema } from './field-types/field-type';
import { type BatchAnswer, MAX_BATCH_INPUTS, type WriteOutcome } from './record-batches';
import { RECORD_WRITE_ERRORS } from './record-write';

/** What a batch or upsert answers beside the single writes' codes: an input's id unknown (atomic), a match on two records, a match value taken. */
const BATCH_ERRORS = [
  ...RECORD_WRITE_ERRORS,
  'not_found',
  'ambiguous_match',
  'duplicate_value',
] as const satisfies readonly ErrorCode[];

const OUTCOMES: WriteOutcome[] = ['created', 'updated', 'unchanged'];

/** The statuses an input of a batch can fail with: those of the single write it stands for. */
const ITEM_ERROR_STATUSES = [400, 404, 409, 412, 422, 428] as const;

export class BatchItemSuccessDto {
  @ApiProperty({ type: 'integer', enum: [200] })
  status: 200;

  @ApiProperty({
    enum: OUTCOMES,
    description: '`unchanged`: the input matched a record and changed nothing (no event, `updatedAt` unmoved)',
  })
  outcome: WriteOutcome;

  @ApiProperty({ type: EntityEnvelopeDto })
  data: EntityEnvelopeDto;
}

export class BatchItemFailureDto {
  @ApiProperty({
    type: 'integer',
    enum: [...ITEM_ERROR_STATUSES],
    description: 'The status the single write would answer',
  })
  status: (typeof ITEM_ERROR_STATUSES)[number];

  @ApiProperty({
    type: ErrorDetailDto,
    description: 'The error body’s members; `param` names the input (`inputs[3].fields.$email`)',
  })
  error: ErrorDetailDto;
}

@ApiExtraModels(BatchItemSuccessDto, BatchItemFailureDto)
export class BatchAnswerDto {
  @ApiProperty({ enum: ['batch'] })
  object: 'batch';

  @ApiProperty({
    type: 'array',
    items: { oneOf: [{ $ref: getSchemaPath(BatchItemSuccessDto) }, { $ref: getSchemaPath(BatchItemFailureDto) }] },
    description: 'One result per input, in input order: `status` 200 with the record, else the input’s error',
  })
  results: (BatchItemSuccessDto | BatchItemFailureDto)[];
}

export class UpsertAnswerDto {
  @ApiProperty({ enum: OUTCOMES })
  outcome: WriteOutcome;

  @ApiProperty({ type: EntityEnvelopeDto })
  data: EntityEnvelopeDto;
}

const ATOMIC = schemaComponent('BatchAtomic', {
  type: 'boolean',
  nullable: true,
  description:
    'true: all inputs or none (the first failing input’s error is the answer); false (default): each alone, 207 when any failed',
});

const MATCH_ON = schemaComponent('UpsertMatchOn', {
  type: 'string',
  description: '`externalId`, or the key of a `unique` field of the type; every input carries its value',
});

const IF_MATCH = schemaComponent('BatchInputIfMatch', {
  type: 'string',
  nullable: true,
  example: '"v3"',
  description:
    'As an If-Match header: the input writes only a record at one of these ETags (`*`: only a record that exists); else its result is 412 and it writes nothing',
});

const IF_NONE_MATCH = schemaComponent('BatchInputIfNoneMatch', {
  type: 'string',
  nullable: true,
  example: '*',
  description:
    'As an If-None-Match header: `*` creates only (a record that matches makes the result 412); entity tags: writes only a record at none of them',
});

function inputs(items: OpenApiSchema): OpenApiSchema {
  return { type: 'array', items, minItems: 1, maxItems: MAX_BATCH_INPUTS };
}

/** `schema` without its `required` members: the component alone when that was all it added to one. */
function withoutRequired(schema: OpenApiSchema): OpenApiSchema {
  const { required: _required, ...rest } = schema;
  const parts = rest.allOf as OpenApiSchema[] | undefined;
  return parts?.length === 1 && Object.keys(rest).length === 1 ? parts[0] : rest;
}

/** A create body as an upsert input: what only a create requires is required only when no record matches. */
export function upsertInputSchema(create: OpenApiSchema): OpenApiSchema {
  const properties = create.properties as Record<string, OpenApiSchema>;
  const fields = withoutRequired(properties.fields);
  const relationships = withoutRequired(properties.relationships);
  return { type: 'object', additionalProperties: false, properties: { ...properties, fields, relationships } };
}

/** The body of `batch/create` (`batch: 'create'`), `batch/update` or `batch/upsert`, of inputs of schema `input`. */
export function batchBodySchema(batch: 'create' | 'update' | 'upsert', input: OpenApiSchema): OpenApiSchema {
  if (batch === 'update') {
    const properties = {
      id: { type: 'string', description: 'The record to update' },
      ...(input.properties as object),
      ifMatch: IF_MATCH,
    };
    input = { ...input, properties, required: ['id'] };
  }
  if (batch === 'upsert') {
    input = {
      ...input,
      properties: { ...(input.properties as object), ifMatch: IF_MATCH, ifNoneMatch: IF_NONE_MATCH },
    };
  }
  return {
    type: 'object',
    additionalProperties: false,
    required: batch === 'upsert' ? ['matchOn', 'inputs'] : ['inputs'],
    properties: { ...(batch === 'upsert' && { matchOn: MATCH_ON }), inputs: inputs(input), atomic: ATOMIC },
  };
}

/** The body of a single `upsert`: an upsert input and `matchOn`. */
export function upsertBodySchema(create: OpenApiSchema): OpenApiSchema {
  const input = upsertInputSchema(create);
  return { ...input, required: ['matchOn'], properties: { matchOn: MATCH_ON, ...(input.properties as object) } };
}

/** HTTP 200 when every input succeeded, else 207 (the results say which failed). */
export function batchStatus(response: Response, answer: BatchAnswer): BatchAnswer {
  if (answer.results.some((result) => result.status !== 200)) response.status(207);
  return answer;
}

/** What a record collection's batch and upsert routes document: its create and update bodies, and examples built from theirs. */
interface BatchDocument {
  create: OpenApiSchema;
  update: OpenApiSchema;
  createExample: BodyExample;
  updateExample: BodyExample;
  /** Of the collection's ids, for the update example's placeholder id. */
  idKind: IdKind;
  /** What the upsert examples match on, and the value they match. */
  matchOn: string;
  matchValue: string;
}

/**
 * The OpenAPI side of the four routes of a record collection (`batch/create`, `batch/update`,
 * `batch/upsert`, `upsert`): the bodies, each input the single write's body, and examples that
 * succeed as they stand (test/e2e/openapi-examples.e2e-spec.ts runs them).
 */
export class BatchRoutes {
  constructor(private readonly document: BatchDocument) {}

  /** The `@Endpoint` options of a batch or upsert route that needs `scopes`. */
  endpoint(...scopes: Scope[]): { category: 'write'; scopes: Scope[]; errors: readonly ErrorCode[] } {
    return { category: 'write', scopes, errors: BATCH_ERRORS };
  }

  /** A batch route: its body, its answers, and its inputs counted in the batch-items throttler. */
  documentBatch(batch: 'create' | 'update' | 'upsert'): MethodDecorator {
    const { create, update, createExample, updateExample, idKind, matchOn } = this.document;
    const input = batch === 'create' ? create : batch === 'update' ? update : upsertInputSchema(create);
    const example: BodyExample =
      batch === 'create'
        ? {
            summary: `Two records: ${createExample.summary}`,
            value: { inputs: [createExample.value, createExample.value] },
          }
        : batch === 'update'
          ? {
              summary: `${updateExample.summary}, of one of your records`,
              value: { inputs: [{ id: exampleIdOf(idKind), ...(updateExample.value as object) }] },
            }
          : {
              summary: `Matched on ${matchOn}: ${createExample.summary}`,
              value: { matchOn, inputs: [this.upsertInput()] },
            };
    return applyDecorators(
      SetMetadata(BATCH_ITEMS, true),
      // An input's precondition that fails, or is missing, is an atomic batch's answer.
      ApiErrors(batch === 'create' ? [] : ['invalid_parameter', 'precondition_failed', 'precondition_required']),
      ApiJsonBody(batchBodySchema(batch, input), example),
      ApiOkResponse({ type: BatchAnswerDto, description: 'Every input succeeded' }),
      ApiResponse({
        status: 207,
        type: BatchAnswerDto,
        description: 'Some inputs failed (never with `atomic: true`): each result says which',
      }),
    );
  }

  documentUpsert(): MethodDecorator {
    const { create, createExample, matchOn } = this.document;
    return ApiJsonBody(upsertBodySchema(create), {
      summary: `Matched on ${matchOn}: ${createExample.summary}`,
      value: { matchOn, ...this.upsertInput() },
    });
  }

  private upsertInput(): Record<string, unknown> {
    const { createExample, matchOn, matchValue } = this.document;
    const value = createExample.value as { fields: Record<string, unknown> };
    return matchOn === 'externalId'
      ? { ...value, externalId: matchValue }
      : { ...value, fields: { ...value.fields, [matchOn]: matchValue } };
  }
}
