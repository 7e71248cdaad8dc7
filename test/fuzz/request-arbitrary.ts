import fc from 'fast-check';
import type { OpenAPIObject } from '@nestjs/swagger';
import { SERVICE_VERSION } from '../../src/common/versioning/service-version';
import { FuzzWorld, ID_KINDS, IdKind, WorkspaceWorld } from './fuzz-world';
import { deeplyNested, JsonNode, Mutation, mutate, RawJson, toJsonText } from './json-text';
import { Operation, resolveSchema, Schema, Security } from './openapi-operations';
import { ProbePosition, probePositions, PROTOTYPE_KEYS } from './prototype-probes';

/**
 * Who sends a request: a workspace's full key (P's only for prototype-key probes), workspace A's
 * key limited to `notes:read`, the operator token, no credentials, or credentials that are not a key.
 */
export type Caller = 'A' | 'B' | 'P' | 'A-limited' | 'admin' | 'anonymous' | 'bad-credentials';

export interface FuzzRequest {
  caller: Caller;
  method: string;
  /** The operation's path template (or `(unknown route)`), for reports. */
  route: string;
  /** Path and query as sent on the request line. */
  target: string;
  headers: Record<string, string>;
  body?: { text: string; encoding: 'utf8' | 'latin1' };
  /** A prototype-key probe: the documented example body with `key` added at `at`, which must be refused with 400. */
  probe?: { key: string; at: string };
}

/** Workspace whose data a caller sees; the other one's must never reach it. */
export function ownWorkspace(caller: Caller): 'A' | 'B' {
  return caller === 'B' ? 'B' : 'A';
}

const LONE_SURROGATES = ['\ud800', '\udfff', 'a\ud800.txt', '\ud800@x.example.com', '\udc00\ud800', 'x\ud83d'];

const hugeString = fc
  .tuple(fc.constantFrom(256, 1001, 10_001, 65_536, 100_000), fc.constantFrom('a', 'é', '\ud800', '0', ' ', '{'))
  .map(([length, unit]) => unit.repeat(length));
/** Beyond the 1 MiB body limit once serialised. */
const OVERSIZED = 'a'.repeat(1_100_000);

/** Short strings that trip parsers, validators and lookups. */
const oddString = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e308',
  'null',
  'true',
  'undefined',
  '[]',
  '{}',
  '\uFEFF',
  '\u202e',
  '\r\n',
  '𝒜',
  '%00',
  '%ZZ',
  "' OR '1'='1",
  '<script>',
  '../..',
  '2026-03-01T00:00:00Z',
  ...PROTOTYPE_KEYS,
  ...LONE_SURROGATES,
);

/** Odd strings, long ones included (the 1 MiB one now and then: most bodies should reach validation). */
const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: oddString },
  { weight: 4, arbitrary: hugeString },
  { weight: 1, arbitrary: fc.constant(OVERSIZED) },
);

/** Free text of a body: mostly plain, sometimes odd. */
const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 2, arbitrary: oddString },
);

/** Numbers at the edges of JSON and of IEEE 754, some only writable as raw JSON text. */
const nastyNumber: fc.Arbitrary<JsonNode> = fc.constantFrom<JsonNode>(
  new RawJson('1e308'),
  new RawJson('-1e308'),
  new RawJson('1e999'),
  new RawJson('-1e999'),
  new RawJson('-0'),
  new RawJson('5e-324'),
  new RawJson('9007199254740993'),
  new RawJson('1E2'),
  new RawJson('123456789012345678901234567890'),
  -1,
  0,
  0.5,
  2147483648,
);

const scalar: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  text,
  nastyNumber,
);

const deepNesting: fc.Arbitrary<JsonNode> = fc
  .tuple(fc.constantFrom(32, 500, 1400, 5000, 20_000), fc.constantFrom('array' as const, 'object' as const))
  .map(([depth, shape]) => deeplyNested(depth, shape));

/** Objects whose members are named after Object.prototype. */
const prototypeObject: fc.Arbitrary<JsonNode> = fc
  .tuple(fc.constantFrom(...PROTOTYPE_KEYS), scalar)
  .map(([key, value]) =>
    Object.fromEntries([
      [key, key === 'constructor' ? Object.fromEntries([['prototype', { polluted: value }]]) : { polluted: value }],
    ]),
  );

/** What replaces a well-formed value: another JSON type, null, an edge number or string, deep nesting. */
const nastyValue: fc.Arbitrary<JsonNode> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: scalar },
  { weight: 2, arbitrary: nastyString },
  { weight: 2, arbitrary: nastyNumber },
  { weight: 1, arbitrary: fc.constantFrom<JsonNode>([], {}, [null], [[]], { 0: 'a' }) },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: prototypeObject },
);

const pastDate = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2025-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());
const oddDate = fc.constantFrom(
  '2026-13-45T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2020-01-01',
  'yesterday',
  '2999-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '2020-01-01T00:00:00+25:00',
  '2020-01-01T00:00:00',
  '1e308',
  '',
);
const oddEmail = fc.constantFrom(
  'a@b',
  'no-at-sign',
  '@example.com',
  'A@Example.COM',
  `${'x'.repeat(400)}@example.com`,
  '\ud800@x.example.com',
  'a@b@c.example.com',
  'a@[127.0.0.1]',
);
const oddUrl = fc.constantFrom(
  'javascript:alert(1)',
  'http://',
  'ftp:/nope',
  '//example.com',
  'http://exa mple.com',
  `https://example.com/${'a'.repeat(3000)}`,
  'https://\ud800.example.com',
);

/**
 * Strings of a schema: by format, pattern and length, and from what the document says of it (its
 * example, alone or varied, and a pattern its description names: "Matches ^…$"), so that most
 * requests get past validation; now and then an odd one.
 */
function stringFor(schema: Schema): fc.Arbitrary<JsonNode> {
  let wellFormed: fc.Arbitrary<string>;
  let odd: fc.Arbitrary<string> = oddString;
  if (schema.format === 'date-time') [wellFormed, odd] = [pastDate, oddDate];
  else if (schema.format === 'email') [wellFormed, odd] = [fc.emailAddress(), oddEmail];
  else if (schema.format === 'uri') [wellFormed, odd] = [fc.webUrl(), oddUrl];
  else if (schema.pattern) wellFormed = fc.stringMatching(new RegExp(schema.pattern));
  else {
    const described = /Matches (\^\S+\$)/.exec(schema.description ?? '')?.[1];
    const example = typeof schema.example === 'string' ? schema.example : undefined;
    const documented = [
      ...(described ? [fc.stringMatching(new RegExp(described))] : []),
      ...(example
        ? [fc.constant(example), fc.stringMatching(/^[a-z0-9]{1,4}$/).map((suffix) => `${example}_${suffix}`)]
        : []),
    ];
    const random = fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 24, 24) });
    wellFormed =
      documented.length === 0
        ? random
        : fc.oneof({ weight: 1, arbitrary: random }, ...documented.map((arbitrary) => ({ weight: 2, arbitrary })));
  }
  const atLimits =
    schema.maxLength === undefined
      ? []
      : [fc.constantFrom('x'.repeat(schema.maxLength), 'x'.repeat(schema.maxLength + 1))];
  return fc.oneof(
    { weight: 24, arbitrary: wellFormed },
    { weight: 3, arbitrary: odd },
    ...atLimits.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
}

function numberFor(schema: Schema): fc.Arbitrary<JsonNode> {
  const bounds = { min: schema.minimum, max: schema.maximum };
  const wellFormed =
    schema.type === 'integer' ? fc.integer(bounds) : fc.double({ ...bounds, noNaN: true, noDefaultInfinity: true });
  const atLimits = [schema.minimum, schema.maximum]
    .filter((limit): limit is number => limit !== undefined)
    .flatMap((limit) => [limit, limit - 1, limit + 1]);
  return fc.oneof(
    { weight: 12, arbitrary: wellFormed },
    { weight: 2, arbitrary: nastyNumber },
    ...(atLimits.length > 0 ? [{ weight: 1, arbitrary: fc.constantFrom(...atLimits) }] : []),
  );
}

/** Maps a schema description's trailing "(account)" to the kind of id that relationship takes. */
function targetKindOf(schema: Schema, world: FuzzWorld): IdKind | undefined {
  const target = /\((\w+)\)\s*$/.exec(schema.description ?? '')?.[1];
  if (!target) return undefined;
  if (target in ID_KINDS) return target as IdKind;
  return [world.A.customSlug, world.B.customSlug].includes(target) ? 'record' : undefined;
}

interface BodyContext {
  own: WorkspaceWorld;
  other: WorkspaceWorld;
  /** Bodies of `/v1` records, whose `relationships` map keys to ids (the operator's map to definitions). */
  recordBody: boolean;
  /** Under a record's `relationships`, or a member named `…Id`: strings there are ids. */
  ids: boolean;
  target?: IdKind;
}

/** Builds the arbitraries of requests to every operation of the document, for every caller. */
export class RequestArbitraries {
  constructor(
    private readonly document: OpenAPIObject,
    private readonly world: FuzzWorld,
  ) {}

  /**
   * Requests to any operation of the document, now and then to a route it does not have, and
   * prototype-key probes of every body.
   */
  requests(operations: Operation[]): fc.Arbitrary<FuzzRequest> {
    return fc.oneof(
      { weight: 30, arbitrary: fc.oneof(...operations.map((operation) => this.forOperation(operation))) },
      { weight: 1, arbitrary: this.unknownRoute() },
      {
        weight: 4,
        arbitrary: fc
          .tuple(fc.constantFrom(...this.probePlaces(operations)), fc.constantFrom(...PROTOTYPE_KEYS))
          .map(([{ operation, position }, key]) => this.probe(operation, position, key)),
      },
    );
  }

  /**
   * One probe at every place of every documented body, at every depth (see probePositions), the
   * prototype-named keys taken in turn: what the fuzz test sends in full on every run.
   */
  everyProbe(operations: Operation[]): FuzzRequest[] {
    return this.probePlaces(operations).map(({ operation, position }, index) =>
      this.probe(operation, position, PROTOTYPE_KEYS[index % PROTOTYPE_KEYS.length]),
    );
  }

  private probePlaces(operations: Operation[]): { operation: Operation; position: ProbePosition }[] {
    return operations.flatMap((operation) =>
      probePositions(this.document, operation).map((position) => ({ operation, position })),
    );
  }

  /**
   * The operation's documented example body (which succeeds as it stands) with `key` at one
   * place, sent to workspace P as documented: path ids of P's own of the right kind, the project
   * type for a slug, valid headers. Nothing but the key can be refused.
   */
  private probe(operation: Operation, position: ProbePosition, key: string): FuzzRequest {
    const own = this.world.P;
    const caller: Caller = operation.security === 'adminToken' ? 'admin' : 'P';
    const target = operation.route.replace(/\{([^}]+)\}/g, (_match, name: string) =>
      name === 'entitySlug' || name === 'slug' ? own.customSlug : own.ids[idKindOfParameter(operation.route, name)][0],
    );
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (operation.security === 'apiKey') headers['Service-Version'] = SERVICE_VERSION;
    return {
      caller,
      method: operation.method,
      route: operation.route,
      target,
      headers: this.credentials(caller, headers),
      body: { text: toJsonText(position.body(key)), encoding: 'utf8' },
      probe: { key, at: position.at },
    };
  }

  private forOperation(operation: Operation): fc.Arbitrary<FuzzRequest> {
    return fc.oneof(
      ...this.callers(operation.security).map(({ caller, weight }) => ({
        weight,
        arbitrary: this.asCaller(operation, caller),
      })),
    );
  }

  private callers(security: Security): { caller: Caller; weight: number }[] {
    if (security === 'apiKey') {
      return [
        { caller: 'A', weight: 14 },
        { caller: 'B', weight: 4 },
        { caller: 'A-limited', weight: 1 },
        { caller: 'anonymous', weight: 1 },
        { caller: 'bad-credentials', weight: 1 },
      ];
    }
    if (security === 'adminToken') {
      return [
        { caller: 'admin', weight: 12 },
        { caller: 'A', weight: 1 },
        { caller: 'anonymous', weight: 1 },
      ];
    }
    return [{ caller: 'anonymous', weight: 1 }];
  }

  private scope(caller: Caller): { own: WorkspaceWorld; other: WorkspaceWorld } {
    return ownWorkspace(caller) === 'B'
      ? { own: this.world.B, other: this.world.A }
      : { own: this.world.A, other: this.world.B };
  }

  private asCaller(operation: Operation, caller: Caller): fc.Arbitrary<FuzzRequest> {
    const scope = this.scope(caller);
    const otherMethods = ['PUT', 'PATCH', 'DELETE'].filter((method) => method !== operation.method);
    const segments = operation.pathParams.map((name) => this.pathSegment(operation.route, name, caller));
    return fc
      .record({
        method: fc.oneof(
          { weight: 30, arbitrary: fc.constant(operation.method) },
          { weight: 1, arbitrary: fc.constantFrom(...otherMethods) },
        ),
        segments: fc.tuple(...segments),
        query: this.query(operation, scope),
        headers: this.headers(operation, caller),
        body: this.body(operation, scope),
      })
      .map(({ method, segments: values, query, headers, body }) => {
        let index = 0;
        const path = operation.route.replace(/\{[^}]+\}/g, () => values[index++]);
        return {
          caller,
          method,
          route: operation.route,
          target: query.length === 0 ? path : `${path}?${query.join('&')}`,
          headers,
          body,
        };
      });
  }

  private unknownRoute(): fc.Arbitrary<FuzzRequest> {
    return fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
        path: fc.constantFrom(
          '/v1/',
          '/v1/notez',
          '/v1/notes/definitions/x',
          '/v1/objects/',
          '/v2/notes',
          '/admin/v1/',
          '/v1/__proto__',
          '/v1/constructor/x',
          '/%ZZ',
          '/v1/notes%2Fx',
        ),
        caller: fc.constantFrom<Caller>('A', 'anonymous'),
      })
      .map(({ method, path, caller }) => ({
        caller,
        method,
        route: '(unknown route)',
        target: path,
        headers: this.credentials(caller, { 'Service-Version': SERVICE_VERSION }),
      }));
  }

  // Path segments ------------------------------------------------------------------------------

  private pathSegment(route: string, name: string, caller: Caller): fc.Arbitrary<string> {
    const { own, other } = this.scope(caller);
    if (name === 'entitySlug' || name === 'slug') return this.slugSegment(own, other);
    const kind = idKindOfParameter(route, name);
    const ownIds = own.ids[kind];
    const otherIds = other.ids[kind];
    const ownOfOtherKinds = (Object.keys(own.ids) as IdKind[]).filter((k) => k !== kind).flatMap((k) => own.ids[k]);
    return fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...ownIds) },
      { weight: 2, arbitrary: fc.constantFrom(...otherIds) },
      { weight: 1, arbitrary: fc.constantFrom(...ownOfOtherKinds) },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.constantFrom(...ownIds), fc.nat(3)).map(([id, how]) => misshapenId(id, how)),
      },
      { weight: 2, arbitrary: junkSegment(ID_KINDS[kind]) },
    );
  }

  private slugSegment(own: WorkspaceWorld, other: WorkspaceWorld): fc.Arbitrary<string> {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant(own.customSlug) },
      { weight: 1, arbitrary: fc.constant(other.customSlug) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          'task',
          'account',
          'contact',
          'opportunity',
          'note',
          'meeting',
          'member',
          'list',
          'file',
        ),
      },
      { weight: 2, arbitrary: junkSegment('fz') },
    );
  }

  // Query ----------------------------------------------------------------------------------------

  private query(operation: Operation, scope: { own: WorkspaceWorld; other: WorkspaceWorld }): fc.Arbitrary<string[]> {
    const declared = operation.queryParams.filter((parameter) => !['limit', 'offset'].includes(parameter.name));
    const declaredParts = declared.map((parameter) =>
      fc.option(
        (parameter.schema.type === 'integer'
          ? fc.oneof(fc.integer().map(String), nastyQueryValue)
          : nastyQueryValue
        ).map((value) => `${parameter.name}=${value}`),
        { nil: undefined, freq: 3 },
      ),
    );
    const unknown = fc.oneof(
      { weight: 6, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(this.unknownParameter(), { minLength: 1, maxLength: 2 }) },
    );
    const paged = operation.paged
      ? [
          fc.option(pagingParameter('limit', limitValue), { nil: undefined, freq: 2 }),
          fc.option(pagingParameter('offset', offsetValue), { nil: undefined, freq: 2 }),
          fc.oneof(
            { weight: 2, arbitrary: fc.constant([]) },
            { weight: 3, arbitrary: fc.array(this.filter(scope), { minLength: 1, maxLength: 3 }) },
          ),
        ]
      : [];
    return fc
      .tuple(fc.tuple(...declaredParts), fc.tuple(...paged), unknown)
      .map(([declaredValues, pagedValues, unknownValues]) =>
        [...declaredValues, ...pagedValues, ...unknownValues]
          .flat()
          .filter((part): part is string => part !== undefined),
      );
  }

  private unknownParameter(): fc.Arbitrary<string> {
    return fc
      .tuple(
        fc.constantFrom(
          '__proto__',
          'constructor',
          'toString',
          'foo',
          'expand',
          'sort',
          'limit[equal]',
          'a[b][c]',
          '',
          '%ZZ',
          '$title',
        ),
        nastyQueryValue,
      )
      .map(([key, value]) => `${encodeQueryKey(key, 0)}=${value}`);
  }

  /** `key[op]=value`, with keys the types define or not, and operators that exist or not. */
  private filter(scope: { own: WorkspaceWorld; other: WorkspaceWorld }): fc.Arbitrary<string> {
    const key = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...this.world.fieldKeys, ...this.world.relationshipKeys) },
      { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, '$nope', 'nope', '', '$', 'limit', 'offset') },
    );
    const operator = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.constantFrom(
          'equal',
          'greaterThan',
          'greaterThanOrEqual',
          'lessThan',
          'lessThanOrEqual',
          'startsWith',
          'contains',
        ),
      },
      { weight: 2, arbitrary: fc.constantFrom('', 'eq', 'EQUAL', 'like', 'in', 'not', ...PROTOTYPE_KEYS) },
    );
    const value = fc.oneof(
      { weight: 4, arbitrary: fc.string({ maxLength: 12 }).map(encodeURIComponent) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          ...scope.own.privateTokens.filter((token) => /_/.test(token)),
          ...scope.other.ids.account,
        ),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '1',
          '-1',
          '1e308',
          '2026-01-01T00:00:00Z',
          'not-a-date',
          'true',
          'Plan',
          'LEAD',
          'TODO',
          'FULL',
        ),
      },
      { weight: 2, arbitrary: nastyQueryValue },
    );
    const form = fc.constantFrom('bracketed', 'negated', 'bare', 'nested', 'empty-brackets', 'unclosed');
    return fc.tuple(key, operator, value, form, fc.nat(1)).map(([k, op, v, how, encoding]) => {
      const spelled = {
        bracketed: `${k}[${op}]`,
        negated: `${k}[-${op}]`,
        bare: k,
        nested: `${k}[${op}][x]`,
        'empty-brackets': `${k}[]`,
        unclosed: `${k}[${op}`,
      }[how];
      return `${encodeQueryKey(spelled, encoding)}=${v}`;
    });
  }

  // Headers ----------------------------------------------------------------------------------------

  private credentials(caller: Caller, headers: Record<string, string>, badCredential?: string): Record<string, string> {
    const bearer: Record<Caller, string | undefined> = {
      A: `Bearer ${this.world.A.workspace.key}`,
      B: `Bearer ${this.world.B.workspace.key}`,
      P: `Bearer ${this.world.P.workspace.key}`,
      'A-limited': `Bearer ${this.world.A.limitedKey}`,
      admin: `Bearer ${this.world.adminToken}`,
      anonymous: undefined,
      'bad-credentials': badCredential,
    };
    const authorization = bearer[caller];
    return authorization === undefined ? headers : { Authorization: authorization, ...headers };
  }

  private headers(operation: Operation, caller: Caller): fc.Arbitrary<Record<string, string>> {
    const badCredential = fc.constantFrom(
      'Bearer',
      'Bearer ',
      `Bearer sk_${'0'.repeat(40)}`,
      'Bearer sk_',
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      `Bearer ${this.world.adminToken}`,
      `bearer ${this.world.A.workspace.key}`,
      `Bearer ${this.world.A.workspace.key} extra`,
      `Bearer ${'A'.repeat(1000)}`,
      'Bearer %00',
      'Bearer \u00e9',
    );
    const serviceVersion = fc.oneof(
      { weight: 12, arbitrary: fc.constant<string | undefined>(SERVICE_VERSION) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | undefined>(
          undefined,
          '',
          '2026-03-02',
          '2026-3-1',
          ` ${SERVICE_VERSION}`,
          `${SERVICE_VERSION},${SERVICE_VERSION}`,
          'x'.repeat(300),
          '__proto__',
        ),
      },
    );
    const idempotencyKey =
      operation.method === 'POST'
        ? fc.oneof(
            { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
            { weight: 2, arbitrary: fc.constantFrom<string | undefined>('fz-key-1', 'fz-key-2', 'fz-key-3') },
            { weight: 1, arbitrary: fc.uuid().map<string | undefined>((uuid) => uuid) },
            {
              weight: 1,
              arbitrary: fc.constantFrom<string | undefined>(
                'k'.repeat(255),
                'k'.repeat(256),
                'k'.repeat(1000),
                '',
                ' ',
                'a b',
                '\t',
                `sk_${'A'.repeat(40)}`,
                '\u00e9t\u00e9',
                '__proto__',
                '%ZZ',
                '"quoted"',
              ),
            },
          )
        : fc.constant<string | undefined>(undefined);
    const contentType = fc.oneof(
      { weight: 14, arbitrary: fc.constant<string | undefined>('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | undefined>(
          undefined,
          'application/json; charset=utf-8',
          'application/json; charset=latin1',
          'application/json; charset=utf-16',
          'APPLICATION/JSON',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/merge-patch+json',
          'application/jsonx',
          '*/*',
          '',
          'application/json, text/plain',
        ),
      },
    );
    const extras = fc.oneof(
      { weight: 10, arbitrary: fc.constant<Record<string, string>>({}) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Record<string, string>>(
          { 'X-Request-Id': `sk_${'B'.repeat(40)}` },
          { 'X-Request-Id': 'r'.repeat(1000) },
          { 'X-Request-Id': '../\u00ff' },
          { Accept: 'text/html' },
          { Accept: 'application/xml' },
          { 'Content-Encoding': 'gzip' },
          { 'Content-Encoding': 'br' },
          { 'Content-Encoding': 'x-unknown' },
          { 'X-Api-Key': this.world.A.workspace.key },
          { 'X-HTTP-Method-Override': 'DELETE' },
          { 'Proxy-Authorization': 'Basic eDp5' },
        ),
      },
    );
    // Entity tags, well and badly formed, mostly on the routes that document them, now and then on others.
    const preconditionNames = ['If-Match', 'If-None-Match'].filter((name) => operation.headerParams.includes(name));
    const tag = fc.constantFrom(
      '"v1"',
      '"v2"',
      'W/"v1"',
      '*',
      '"v1", "v2"',
      '"v1-metadata"',
      '"v0"',
      `"v${2 ** 31}"`,
      '"v99999999999"',
      'v1',
      '"v1',
      '',
      ' ',
      ', ,',
      'W/',
      '"v1" "v2"',
      '"v1",*',
      '*, "v1"',
      '"\u00e9"',
      `"${'v'.repeat(4000)}"`,
      `${'"v1",'.repeat(1000)}"v2"`,
      '__proto__',
    );
    const preconditions = fc.oneof(
      { weight: 6, arbitrary: fc.constant<Record<string, string>>({}) },
      {
        weight: preconditionNames.length > 0 ? 4 : 1,
        arbitrary: fc
          .subarray(preconditionNames.length > 0 ? preconditionNames : ['If-Match', 'If-None-Match'], { minLength: 1 })
          .chain((names) => fc.tuple(...names.map((name) => tag.map((value) => [name, value] as const))))
          .map((entries) => Object.fromEntries(entries)),
      },
    );
    return fc
      .record({ badCredential, serviceVersion, idempotencyKey, contentType, extras, preconditions })
      .map(
        ({
          badCredential: bad,
          serviceVersion: version,
          idempotencyKey: key,
          contentType: type,
          extras,
          preconditions: sent,
        }) => {
          const headers: Record<string, string> = { ...extras, ...sent };
          if (operation.security === 'apiKey' && version !== undefined) headers['Service-Version'] = version;
          if (key !== undefined) headers['Idempotency-Key'] = key;
          if ((operation.bodySchema !== undefined || operation.binaryBody) && type !== undefined)
            headers['Content-Type'] = type;
          return this.credentials(caller, headers, bad);
        },
      );
  }

  // Bodies ---------------------------------------------------------------------------------------------

  private body(
    operation: Operation,
    scope: { own: WorkspaceWorld; other: WorkspaceWorld },
  ): fc.Arbitrary<FuzzRequest['body']> {
    const utf8 = (arbitrary: fc.Arbitrary<string>) =>
      arbitrary.map((value) => ({ text: value, encoding: 'utf8' as const }));
    if (operation.binaryBody) return utf8(fc.string({ unit: 'binary', maxLength: 64 }));
    if (operation.method !== 'POST') return fc.constant(undefined);
    const context: BodyContext = { ...scope, recordBody: operation.route.startsWith('/v1/'), ids: false };
    const structured = operation.bodySchema
      ? this.value(operation.bodySchema, context)
      : fc.oneof(
          fc.constant<JsonNode>({}),
          this.extraMembers(context).map((entries) => Object.fromEntries(entries)),
        );
    const mutated = fc
      .tuple(
        structured,
        fc.oneof(
          { weight: 2, arbitrary: fc.constant([]) },
          { weight: 3, arbitrary: fc.array(this.mutation(context), { minLength: 1, maxLength: 3 }) },
        ),
      )
      .map(([value, mutations]) => toJsonText(mutations.reduce(mutate, value)));
    return fc.oneof(
      { weight: 14, arbitrary: utf8(mutated) },
      { weight: 2, arbitrary: utf8(rawBody) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          { text: '{"fields":{"$title":"\xff\xfe\xc0\xaf"}}', encoding: 'latin1' as const },
          { text: '\xef\xbb\xbf{}', encoding: 'latin1' as const },
        ),
      },
      { weight: operation.bodySchema ? 1 : 6, arbitrary: fc.constant(undefined) },
    );
  }

  private mutation(context: BodyContext): fc.Arbitrary<Mutation> {
    const at = fc.nat(64);
    return fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace' as const), at, value: nastyValue }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), at }) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('add' as const),
          at,
          key: this.memberKey(),
          value: this.jsonish(context),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('stringify' as const), at }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('arrayify' as const), at }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('object-as-string' as const),
          at,
          length: fc.constantFrom(1, 1000, 65_536, 100_000),
        }),
      },
    );
  }

  /** A value the schema describes: mostly well-formed, so that requests get past validation. */
  private value(schema: Schema, context: BodyContext): fc.Arbitrary<JsonNode> {
    const resolved = resolveSchema(this.document, schema);
    const wellFormed = this.wellFormed(resolved, context);
    return resolved.nullable
      ? fc.oneof({ weight: 6, arbitrary: wellFormed }, { weight: 1, arbitrary: fc.constant(null) })
      : wellFormed;
  }

  private wellFormed(schema: Schema, context: BodyContext): fc.Arbitrary<JsonNode> {
    if (schema.oneOf) return fc.oneof(...schema.oneOf.map((option) => this.value(option, context)));
    if (schema.enum) {
      return fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...(schema.enum as JsonNode[])) },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(...(schema.enum as JsonNode[]))
            .map((option) => (typeof option === 'string' ? option.toLowerCase() : option)),
        },
      );
    }
    switch (schema.type) {
      case 'string':
        return context.ids ? this.id(context) : stringFor(schema);
      case 'integer':
      case 'number':
        return numberFor(schema);
      case 'boolean':
        return fc.boolean();
      case 'array': {
        const items = this.value(schema.items ?? {}, context);
        const max = schema.maxItems;
        return fc.oneof(
          { weight: 15, arbitrary: fc.array(items, { maxLength: Math.min(max ?? 3, 3) }) },
          ...(max === undefined
            ? []
            : [{ weight: 1, arbitrary: fc.array(items, { minLength: max + 1, maxLength: max + 1 }) }]),
        );
      }
      case 'object':
        return this.object(schema, context);
      default:
        return this.jsonish(context);
    }
  }

  private object(schema: Schema, context: BodyContext): fc.Arbitrary<JsonNode> {
    const properties = schema.properties ?? {};
    const required = (schema.required ?? []).filter((key) => key in properties);
    // An optional member is absent, present, or null (which must read as absent or be refused).
    const model = Object.fromEntries(
      Object.entries(properties).map(([key, property]) => {
        const value = this.value(property, this.childContext(key, resolveSchema(this.document, property), context));
        return [
          key,
          required.includes(key)
            ? value
            : fc.oneof({ weight: 8, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) }),
        ];
      }),
    );
    const known = fc.record(model, { requiredKeys: required });
    const additional = schema.additionalProperties;
    const extras: fc.Arbitrary<[string, JsonNode][]> =
      additional === undefined || additional === false
        ? fc.constant([])
        : additional === true
          ? fc.oneof(
              { weight: 2, arbitrary: fc.constant<[string, JsonNode][]>([]) },
              { weight: 1, arbitrary: this.extraMembers(context) },
            )
          : fc.array(fc.tuple(this.customKey(), this.mapEntry(additional, context)), { maxLength: 2 });
    return fc
      .tuple(known, extras)
      .map(([members, more]) => Object.fromEntries([...Object.entries(members as Record<string, JsonNode>), ...more]));
  }

  /** An entry of a map of definitions: mostly one, sometimes of another type, a long string included. */
  private mapEntry(schema: Schema, context: BodyContext): fc.Arbitrary<JsonNode> {
    return fc.oneof(
      { weight: 6, arbitrary: this.value(schema, context) },
      { weight: 1, arbitrary: nastyValue },
      { weight: 1, arbitrary: fc.constantFrom(1000, 65_536, 100_000).map((length) => 'x'.repeat(length)) },
    );
  }

  private childContext(key: string, property: Schema, context: BodyContext): BodyContext {
    if (key === 'relationships' && context.recordBody) return { ...context, ids: true, target: undefined };
    if (/Id$/.test(key) && key !== 'externalId')
      return {
        ...context,
        ids: true,
        target: key.replace(/Id$/, '') in ID_KINDS ? (key.replace(/Id$/, '') as IdKind) : undefined,
      };
    return { ...context, target: targetKindOf(property, this.world) ?? context.target };
  }

  /** Members a map-shaped object may also get: keys the types define or not, values of any shape. */
  private extraMembers(context: BodyContext): fc.Arbitrary<[string, JsonNode][]> {
    const key = context.ids
      ? fc.oneof(fc.constantFrom(...this.world.relationshipKeys), this.memberKey())
      : this.memberKey();
    const value = context.ids
      ? fc.oneof(
          this.id(context),
          fc.array(this.id(context), { maxLength: 3 }),
          fc.record({ add: this.id(context) }, { requiredKeys: [] }),
          fc.record(
            { remove: this.id(context), replace: fc.array(this.id(context), { maxLength: 2 }) },
            { requiredKeys: [] },
          ),
        )
      : this.jsonish(context);
    return fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 3 });
  }

  private memberKey(): fc.Arbitrary<string> {
    return fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...this.world.fieldKeys) },
      { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) },
      { weight: 1, arbitrary: fc.constantFrom(...this.world.relationshipKeys) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '',
          '$',
          '$$title',
          'limit',
          'offset',
          'id',
          'createdAt',
          'externalId',
          'fields',
          'relationships',
          'a.b',
          'K'.repeat(300),
          '\ud800',
        ),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
    );
  }

  /** Keys for operator-defined fields and relationships: valid custom keys, reserved and prototype names. */
  private customKey(): fc.Arbitrary<string> {
    return fc.oneof(
      { weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,12}$/) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(...PROTOTYPE_KEYS, 'limit', 'offset', '$title', 'title', 'Title', '1a', ''),
      },
    );
  }

  private jsonish(context: BodyContext): fc.Arbitrary<JsonNode> {
    const small = fc
      .array(fc.tuple(this.memberKey(), scalar), { maxLength: 3 })
      .map((entries) => Object.fromEntries(entries));
    return fc.oneof(
      { weight: 6, arbitrary: scalar },
      { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
      { weight: 1, arbitrary: small },
      ...(context.ids ? [{ weight: 2, arbitrary: this.id(context) }] : []),
    );
  }

  /** Ids where a relationship takes them: the caller's own of the right kind mostly, the other workspace's now and then. */
  private id(context: BodyContext): fc.Arbitrary<string> {
    const ownAll = (Object.keys(context.own.ids) as IdKind[]).flatMap((kind) => context.own.ids[kind]);
    const otherAll = (Object.keys(context.other.ids) as IdKind[]).flatMap((kind) => context.other.ids[kind]);
    const ownRight = context.target ? context.own.ids[context.target] : ownAll;
    const otherRight = context.target ? context.other.ids[context.target] : otherAll;
    return fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...ownRight) },
      { weight: 2, arbitrary: fc.constantFrom(...otherRight) },
      { weight: 1, arbitrary: fc.constantFrom(...ownAll) },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.constantFrom(...ownRight), fc.nat(3)).map(([id, how]) => misshapenId(id, how)),
      },
      { weight: 1, arbitrary: oddString },
    );
  }
}

/** The kind of id a path parameter takes, from its name and the route's first segment. */
export function idKindOfParameter(route: string, name: string): IdKind {
  if (name === 'workspaceId') return 'workspace';
  if (name === 'keyId') return 'apiKey';
  if (name === 'listId') return 'list';
  const segment = route
    .split('/')
    .filter(Boolean)
    .find((part) => part !== 'v1' && part !== 'admin');
  const bySegment: Record<string, IdKind> = {
    accounts: 'account',
    contacts: 'contact',
    opportunities: 'opportunity',
    members: 'member',
    notes: 'note',
    tasks: 'task',
    meetings: 'meeting',
    lists: 'list',
    files: 'file',
    objects: 'record',
    uploads: 'file',
    downloads: 'file',
    webhooks: 'webhook',
  };
  const kind = segment === undefined ? undefined : bySegment[segment];
  if (!kind) throw new Error(`fuzz: no id kind for {${name}} of ${route}; add the route to idKindOfParameter`);
  return kind;
}

/** An id bent out of shape: lower case, one character more or less, or another prefix. */
function misshapenId(id: string, how: number): string {
  switch (how) {
    case 0:
      return id.toLowerCase();
    case 1:
      return `${id}A`;
    case 2:
      return id.slice(0, -1);
    default:
      return `xyz${id.slice(id.indexOf('_'))}`;
  }
}

/**
 * Path segments that are not ids: malformed percent-encoding, traversal, prototype names, long ones.
 * Lengths here and in queries and headers keep a request's head under Node's 16 KB limit, whose
 * refusals (431, before the app) are another test's subject.
 */
function junkSegment(prefix: string): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        '%ZZ',
        '%',
        '%0',
        '%00',
        '%2F',
        '%2e%2e',
        '..',
        '.',
        '%C0%AF',
        '%ED%A0%80',
        '%E0%A4%A',
        '%FF',
        '%20',
        '__proto__',
        'constructor',
        'toString',
        'hasOwnProperty',
        'null',
        'undefined',
        '0',
        '-1',
        'definitions',
        `${prefix}_`,
        `${prefix}_00000000000000000000000000`,
        `${prefix}_7ZZZZZZZZZZZZZZZZZZZZZZZZZ`,
        `${prefix}_0000000000000000000000000U`,
        `${prefix}_01ARZ3NDEKTSV4RRFFQ69G5FAV%00`,
        `${prefix.toUpperCase()}_01ARZ3NDEKTSV4RRFFQ69G5FAV`,
      ),
    },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 30, unit: 'binary' }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom(100, 1000, 4000).map((length) => `${prefix}_${'A'.repeat(length)}`) },
  );
}

const limitValue = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 25 }).map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '0',
      '-1',
      '26',
      '1e308',
      '1.5',
      '',
      'abc',
      '01',
      '%205',
      '0x10',
      '-0',
      'NaN',
      'Infinity',
      '25.0',
      '9007199254740993',
      '1e1',
      '%2B5',
      '%EF%BC%95',
      '%ZZ',
      '[]',
    ),
  },
);
const offsetValue = fc.oneof(
  { weight: 4, arbitrary: fc.nat(40).map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '-1',
      '1e3',
      '9007199254740993',
      '99999999999999999999',
      '1.5',
      '',
      'x',
      '-0',
      '2147483648',
      '%ZZ',
    ),
  },
);
/** A paging parameter, sometimes given twice (`limit=1&limit=2`). */
function pagingParameter(name: string, value: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: value.map((single) => `${name}=${single}`) },
    { weight: 1, arbitrary: fc.tuple(value, value).map(([first, second]) => `${name}=${first}&${name}=${second}`) },
  );
}

const nastyQueryValue = fc.constantFrom(
  '',
  '%ZZ',
  '%',
  '%00',
  '%ED%A0%80',
  '%C0%AF',
  encodeURIComponent('\u00e9'),
  'a'.repeat(1000),
  '1e308',
  '-0',
  'NaN',
  '__proto__',
  '%5B%5D',
  '[',
  'a=b',
);

/** A query key with its brackets percent-encoded (encoding 0) or left as typed (1). */
function encodeQueryKey(key: string, encoding: number): string {
  const encoded = encodeURIComponent(key);
  return encoding === 0 ? encoded : encoded.replace(/%5B/g, '[').replace(/%5D/g, ']');
}

/** Bodies that are not the JSON of an object, or that JSON.parse reads in a surprising way. */
const rawBody: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '}',
    '{"fields":',
    '{"a":1,}',
    "{'fields':{}}",
    'null',
    '[]',
    '"fields"',
    '123',
    'true',
    '\uFEFF{}',
    '{"fields":{}}garbage',
    '{"fields":{}}{"fields":{}}',
    '{"fields":1,"fields":{"$title":"t"}}',
    '{"__proto__":{"fields":{"$title":"t"}}}',
    '{"constructor":{"prototype":{"isAdmin":true}}}',
    '{"fields":{"$title":"\\ud800"}}',
    '{"fields":{"$title":"\\u0000"}}',
    '{"fields":{"$title":1e999}}',
    '{"fields":{"$title":-0}}',
    '{"fields":NaN}',
    '{"fields":undefined}',
    '\u0000',
  ),
  deepNesting.map((nested) => `{"fields":${toJsonText(nested)}}`),
  deepNesting.map(toJsonText),
);
