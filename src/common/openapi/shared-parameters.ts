import type { OpenAPIObject, ParameterObject } from '@nestjs/swagger';
import { operationsOf } from './operation-handlers';

/**
 * The request headers the pipeline reads (Service-Version, Idempotency-Key), declared once in
 * `components.parameters` and referred to by every operation that takes them: the same parameter
 * object written on each operation is what a reader and a client generator would otherwise read
 * again and again. Of the variants of one header, the one most operations declare is shared.
 */
export function shareHeaderParameters(document: OpenAPIObject): void {
  const variants = new Map<string, Map<string, number>>();
  for (const operation of operationsOf(document)) {
    for (const parameter of operation.parameters ?? []) {
      if ('$ref' in parameter || parameter.in !== 'header') continue;
      const seen = variants.get(parameter.name) ?? new Map<string, number>();
      const key = JSON.stringify(parameter);
      seen.set(key, (seen.get(key) ?? 0) + 1);
      variants.set(parameter.name, seen);
    }
  }
  const shared = new Map<string, string>();
  for (const [name, seen] of variants) {
    const [key, count] = [...seen].sort(([, a], [, b]) => b - a)[0];
    if (count > 1) shared.set(key, name);
  }
  if (shared.size === 0) return;
  for (const operation of operationsOf(document)) {
    operation.parameters = operation.parameters?.map((parameter) => {
      const name = '$ref' in parameter ? undefined : shared.get(JSON.stringify(parameter));
      return name === undefined ? parameter : { $ref: `#/components/parameters/${name}` };
    });
  }
  const parameters = Object.fromEntries(
    [...shared]
      .map(([key, name]) => [name, JSON.parse(key) as ParameterObject] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  document.components = { ...document.components, parameters: { ...document.components?.parameters, ...parameters } };
}
