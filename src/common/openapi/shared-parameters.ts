import type { OpenAPIObject, ParameterObject } from '@nestjs/swagger';
import { operationsOf } from './operation-handlers';

/**
 * The parameters several operations declare alike — the request headers the pipeline reads
 * (Service-Version, Idempotency-Key), the list routes' `limit`, `offset` and `cursor`, a path's
 * `id` — declared once in `components.parameters` and referred to by each operation that takes
 * them: the same parameter object written on each operation is what a reader and a client
 * generator would otherwise read again and again. Of the variants of one parameter (say, a
 * `limit` with another maximum), the one most operations declare is shared; the others stay on
 * their operations.
 */
export function shareParameters(document: OpenAPIObject): void {
  const variants = new Map<string, Map<string, number>>();
  // Each variant as first written, which its component keeps.
  const written = new Map<string, ParameterObject>();
  for (const operation of operationsOf(document)) {
    for (const parameter of operation.parameters ?? []) {
      if ('$ref' in parameter) continue;
      const place = `${parameter.in} ${parameter.name}`;
      const seen = variants.get(place) ?? new Map<string, number>();
      const key = canonicalJson(parameter);
      seen.set(key, (seen.get(key) ?? 0) + 1);
      variants.set(place, seen);
      if (!written.has(key)) written.set(key, parameter);
    }
  }
  const names = componentNames([...variants.keys()]);
  const shared = new Map<string, string>();
  for (const [place, seen] of variants) {
    const [key, count] = [...seen].sort(([, a], [, b]) => b - a)[0];
    if (count > 1) shared.set(key, names.get(place)!);
  }
  if (shared.size === 0) return;
  for (const operation of operationsOf(document)) {
    operation.parameters = operation.parameters?.map((parameter) => {
      const name = '$ref' in parameter ? undefined : shared.get(canonicalJson(parameter));
      return name === undefined ? parameter : { $ref: `#/components/parameters/${name}` };
    });
  }
  const parameters = Object.fromEntries(
    [...shared].map(([key, name]) => [name, written.get(key)!] as const).sort(([a], [b]) => a.localeCompare(b)),
  );
  document.components = { ...document.components, parameters: { ...document.components?.parameters, ...parameters } };
}

/**
 * JSON of `value` with every object's keys sorted: one parameter, whichever order its declaration
 * wrote its keys in (an `@ApiQuery` and a query DTO's `@ApiPropertyOptional` write them differently).
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    member !== null && typeof member === 'object' && !Array.isArray(member)
      ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : member,
  );
}

/** A parameter's component is named by its name, and by where it goes too when two places share the name. */
function componentNames(places: string[]): Map<string, string> {
  const count = new Map<string, number>();
  for (const place of places) {
    const name = place.split(' ')[1];
    count.set(name, (count.get(name) ?? 0) + 1);
  }
  return new Map(
    places.map((place) => {
      const [where, name] = place.split(' ');
      return [place, count.get(name)! > 1 ? `${name}-${where}` : name];
    }),
  );
}
