import type { Response } from 'supertest';
import { OpenApiValidator } from './openapi';
import { adminHeaders, TestApp, v1Headers } from './test-app';

/** Path under `/v1` of each system record type. */
export const RECORD_PATHS = {
  account: 'accounts',
  contact: 'contacts',
  opportunity: 'opportunities',
  note: 'notes',
  task: 'tasks',
} as const;
export type RecordType = keyof typeof RECORD_PATHS;

export interface FieldValue {
  value: unknown;
  valueType: string;
}

export interface RelationshipValue {
  cardinality: 'has_one' | 'has_many';
  objectType: string;
  values: string[];
}

/** The entity envelope of docs/api.md §7. */
export interface Entity {
  id: string;
  createdAt: string;
  updatedAt: string | null;
  httpLink: string | null;
  externalId: string | null;
  fields: Record<string, FieldValue>;
  relationships: Record<string, RelationshipValue>;
}

/**
 * A query string from ordered pairs (a key may repeat), every key and value percent-encoded:
 * `query([['$name[startsWith]', 'Ac'], ['limit', 5]])` → `?%24name%5BstartsWith%5D=Ac&limit=5`.
 */
export function query(pairs: [string, string | number][] | Record<string, string | number>): string {
  const entries = Array.isArray(pairs) ? pairs : Object.entries(pairs);
  if (entries.length === 0) return '';
  return `?${entries.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`).join('&')}`;
}

/** Ids of a paged list response, in order. */
export function idsOf(response: Response): string[] {
  return (response.body.data as { id: string }[]).map((item) => item.id);
}

/**
 * A small client of the record routes (`/v1/{accounts,contacts,…}`) and of the operator routes that
 * add custom fields and relationships. Every response it receives is checked against the served
 * OpenAPI document; `create`/`update`/`retrieve` also insist on a 200.
 */
export class RecordsApi {
  constructor(
    readonly t: TestApp,
    readonly openapi: OpenApiValidator,
    readonly key: string,
    readonly workspaceId: string,
  ) {}

  /** The same client with another API key (of the same workspace unless `workspaceId` is given). */
  as(key: string, workspaceId = this.workspaceId): RecordsApi {
    return new RecordsApi(this.t, this.openapi, key, workspaceId);
  }

  /** The same client on another app instance (e.g. a second instance on the same database). */
  on(t: TestApp, openapi = new OpenApiValidator(t.document)): RecordsApi {
    return new RecordsApi(t, openapi, this.key, this.workspaceId);
  }

  private checked(response: Response): Response {
    this.openapi.assert(response);
    return response;
  }

  async post(path: string, body: unknown): Promise<Response> {
    return this.checked(
      await this.t.http
        .post(path)
        .set(v1Headers(this.key))
        .send(body as object),
    );
  }

  async get(path: string): Promise<Response> {
    return this.checked(await this.t.http.get(path).set(v1Headers(this.key)));
  }

  /** POST /v1/{type}. */
  createRaw(type: RecordType, body: unknown): Promise<Response> {
    return this.post(`/v1/${RECORD_PATHS[type]}`, body);
  }

  /** POST /v1/{type}/{id}. */
  updateRaw(type: RecordType, id: string, body: unknown): Promise<Response> {
    return this.post(`/v1/${RECORD_PATHS[type]}/${id}`, body);
  }

  /** GET /v1/{type}/{id}. */
  retrieveRaw(type: RecordType, id: string): Promise<Response> {
    return this.get(`/v1/${RECORD_PATHS[type]}/${id}`);
  }

  /** GET /v1/{type}?… with the pairs percent-encoded. */
  list(type: RecordType, pairs: [string, string | number][] | Record<string, string | number> = []): Promise<Response> {
    return this.get(`/v1/${RECORD_PATHS[type]}${query(pairs)}`);
  }

  /** GET /v1/{type}/definitions. */
  definitions(type: RecordType): Promise<Response> {
    return this.get(`/v1/${RECORD_PATHS[type]}/definitions`);
  }

  async create(type: RecordType, body: unknown): Promise<Entity> {
    return ok(await this.createRaw(type, body), `create ${type}`);
  }

  async update(type: RecordType, id: string, body: unknown): Promise<Entity> {
    return ok(await this.updateRaw(type, id, body), `update ${type} ${id}`);
  }

  async retrieve(type: RecordType, id: string): Promise<Entity> {
    return ok(await this.retrieveRaw(type, id), `retrieve ${type} ${id}`);
  }

  /** An account with `$name` and, optionally, more of its body. */
  async account(
    name = 'Acme',
    body: { fields?: Record<string, unknown>; relationships?: Record<string, unknown> } = {},
  ): Promise<Entity> {
    return this.create('account', { ...body, fields: { $name: name, ...body.fields } });
  }

  async contact(
    firstName = 'Ada',
    body: { fields?: Record<string, unknown>; relationships?: Record<string, unknown> } = {},
  ): Promise<Entity> {
    return this.create('contact', { ...body, fields: { $name: { firstName }, ...body.fields } });
  }

  async opportunity(
    accountId: string,
    name = 'Deal',
    body: { fields?: Record<string, unknown>; relationships?: Record<string, unknown> } = {},
  ): Promise<Entity> {
    return this.create('opportunity', {
      fields: { $name: name, $stage: 'LEAD', ...body.fields },
      relationships: { $account: accountId, ...body.relationships },
    });
  }

  /** POST /admin/v1/workspaces/{id}/object-types/{slug}/fields (operator API). */
  async addFieldRaw(slug: string, definition: unknown, workspaceId = this.workspaceId): Promise<Response> {
    return this.checked(
      await this.t.http
        .post(`/admin/v1/workspaces/${workspaceId}/object-types/${slug}/fields`)
        .set(adminHeaders())
        .send(definition as object),
    );
  }

  /** POST /admin/v1/workspaces/{id}/object-types/{slug}/relationships (operator API). */
  async addRelationshipRaw(slug: string, definition: unknown, workspaceId = this.workspaceId): Promise<Response> {
    return this.checked(
      await this.t.http
        .post(`/admin/v1/workspaces/${workspaceId}/object-types/${slug}/relationships`)
        .set(adminHeaders())
        .send(definition as object),
    );
  }

  /** Adds a custom field and answers the type's definitions response. */
  async addField(slug: string, definition: Record<string, unknown>): Promise<DefinitionsBody> {
    return ok(await this.addFieldRaw(slug, definition), `add field ${String(definition.key)} to ${slug}`);
  }

  async addRelationship(slug: string, definition: Record<string, unknown>): Promise<DefinitionsBody> {
    return ok(await this.addRelationshipRaw(slug, definition), `add relationship ${String(definition.key)} to ${slug}`);
  }
}

export interface DefinitionsBody {
  objectType: string;
  fieldDefinitions: Record<string, Record<string, unknown> & { typeConfiguration: Record<string, unknown> }>;
  relationshipDefinitions: Record<string, Record<string, unknown>>;
}

function ok<T>(response: Response, what: string): T {
  if (response.status !== 200) throw new Error(`${what} failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as T;
}
