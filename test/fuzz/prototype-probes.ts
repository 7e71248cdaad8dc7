import type { OpenAPIObject } from '@nestjs/swagger';
import { isObjectNode, JsonNode, withMember } from './json-text';
import { Operation, resolveSchema, Schema } from './openapi-operations';

/**
 * Every name a plain object inherits, and `prototype`: no body of the service has a member by any
 * of them, and none is a key the probe workspace defines, so wherever one is sent it is refused.
 */
export const PROTOTYPE_KEYS: readonly string[] = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

/**
 * What a probe's injected member holds: a value no field type, id list or body takes, so that
 * even a key a workspace defines is refused there.
 */
const INJECTED_VALUE: JsonNode = [[]];

/** One place in a body where a prototype-named key goes: `at` names it, `body` puts it there. */
export interface ProbePosition {
  /** The dotted path of the object that gets the key (`(root)` for the body itself). */
  at: string;
  body(key: string): JsonNode;
}

/** The object schema among `schema` and its alternatives, if it describes one. */
function objectSchema(document: OpenAPIObject, schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  const resolved = resolveSchema(document, schema);
  if (resolved.oneOf)
    return resolved.oneOf.map((option) => objectSchema(document, option)).find((found) => found !== undefined);
  const describesObject =
    resolved.type === 'object' && (resolved.properties !== undefined || resolved.additionalProperties !== undefined);
  return describesObject && resolved.enum === undefined ? resolved : undefined;
}

function itemsSchema(document: OpenAPIObject, schema: Schema | undefined): Schema | undefined {
  if (!schema) return undefined;
  const resolved = resolveSchema(document, schema);
  return (
    resolved.items ??
    resolved.oneOf?.map((option) => resolveSchema(document, option).items).find((items) => items !== undefined)
  );
}

const dotted = (path: string, step: string | number) => (path === '' ? String(step) : `${path}.${step}`);

/**
 * The places of a body, at every depth, where a prototype-named key goes: each object of `node`
 * gets it as a member; each other value is replaced by an object holding it; and the first
 * documented member whose schema is an object but that `node` leaves out is added holding it (and
 * so on inside it), so that the member maps an example does not show (a list update's
 * `relationships` and their operations) are probed too. `rebuild` puts a changed node back into the whole body.
 */
function positionsIn(
  document: OpenAPIObject,
  node: JsonNode,
  schema: Schema | undefined,
  path: string,
  rebuild: (changed: JsonNode) => JsonNode,
  into: ProbePosition[],
): ProbePosition[] {
  const inject = (key: string): JsonNode => Object.fromEntries([[key, INJECTED_VALUE]]);
  if (isObjectNode(node)) {
    const object = objectSchema(document, schema);
    into.push({ at: path || '(root)', body: (key) => rebuild(withMember(node, key, INJECTED_VALUE)) });
    for (const key of Object.keys(node)) {
      positionsIn(
        document,
        node[key],
        object?.properties?.[key],
        dotted(path, key),
        (changed) => rebuild(withMember(node, key, changed)),
        into,
      );
    }
    // One left-out member, the first: siblings may exclude each other (a list takes the member
    // key of its own type only, and P's list, of accounts, takes the first).
    const [absent, property] =
      Object.entries(object?.properties ?? {}).find(
        ([key, member]) => !Object.hasOwn(node, key) && objectSchema(document, member) !== undefined,
      ) ?? [];
    if (absent !== undefined) {
      positionsIn(
        document,
        {},
        property,
        dotted(path, absent),
        (changed) => rebuild(withMember(node, absent, changed)),
        into,
      );
    }
  } else if (Array.isArray(node)) {
    node.forEach((item, index) =>
      positionsIn(
        document,
        item,
        itemsSchema(document, schema),
        dotted(path, index),
        (changed) => rebuild(node.map((old, i) => (i === index ? changed : old))),
        into,
      ),
    );
  } else {
    into.push({ at: path, body: (key) => rebuild(inject(key)) });
  }
  return into;
}

/** The documented example body of an operation: the one Swagger UI pre-fills, which succeeds as it stands. */
export function exampleBody(document: OpenAPIObject, operation: Operation): JsonNode | undefined {
  const item = document.paths[operation.route] as Record<
    string,
    { requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> } }
  >;
  const examples = item[operation.method.toLowerCase()]?.requestBody?.content['application/json']?.examples;
  return examples ? (Object.values(examples)[0]?.value as JsonNode | undefined) : undefined;
}

/** Where an operation's documented example body can carry a prototype-named key, at every depth. */
export function probePositions(document: OpenAPIObject, operation: Operation): ProbePosition[] {
  const example = exampleBody(document, operation);
  if (example === undefined || !operation.bodySchema) return [];
  return positionsIn(document, example, operation.bodySchema, '', (changed) => changed, []);
}
