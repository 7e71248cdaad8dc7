/**
 * JSON bodies as the fuzzer builds them: plain values, plus raw fragments for what a JavaScript
 * value cannot hold or JSON.stringify would not write (`1e999`, `-0`, ten thousand levels of
 * nesting). Objects may have own members named `__proto__`: they are built with
 * Object.fromEntries and never assigned with `obj[key] = …`.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

export type JsonNode = null | boolean | number | string | RawJson | JsonNode[] | { [key: string]: JsonNode };

export function isObjectNode(node: JsonNode): node is { [key: string]: JsonNode } {
  return node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof RawJson);
}

/** JSON text of a node. Lone surrogates come out as `\udXXX` escapes, as JSON.stringify writes them. */
export function toJsonText(node: JsonNode): string {
  if (node instanceof RawJson) return node.text;
  if (Array.isArray(node)) return `[${node.map(toJsonText).join(',')}]`;
  if (isObjectNode(node)) {
    return `{${Object.keys(node)
      .map((key) => `${JSON.stringify(key)}:${toJsonText(node[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(node) ?? 'null';
}

/** A copy of `object` with `key` set to `value` (or removed when `value` is undefined), `__proto__` included. */
export function withMember(
  object: { [key: string]: JsonNode },
  key: string,
  value: JsonNode | undefined,
): { [key: string]: JsonNode } {
  const entries = Object.keys(object)
    .filter((existing) => existing !== key)
    .map((existing): [string, JsonNode] => [existing, object[existing]]);
  return Object.fromEntries(value === undefined ? entries : [...entries, [key, value]]);
}

/** Nesting `depth` levels deep, as an array or an object chain. */
export function deeplyNested(depth: number, shape: 'array' | 'object'): RawJson {
  return new RawJson(
    shape === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );
}

export type Mutation =
  | { kind: 'replace'; at: number; value: JsonNode }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string; value: JsonNode }
  /** The node's JSON text as a string: `{"a":1}` where an object belongs. */
  | { kind: 'stringify'; at: number }
  /** The node inside an array, or an object's member values as an array. */
  | { kind: 'arrayify'; at: number }
  /** An object (not the body itself) given as a string of `length` characters, however long. */
  | { kind: 'object-as-string'; at: number; length: number };

type Path = (string | number)[];

/** Paths of every node, the root first, depth first. */
function pathsOf(node: JsonNode, path: Path = [], into: Path[] = []): Path[] {
  into.push(path);
  if (Array.isArray(node)) node.forEach((child, index) => pathsOf(child, [...path, index], into));
  else if (isObjectNode(node)) for (const key of Object.keys(node)) pathsOf(node[key], [...path, key], into);
  return into;
}

function nodeAt(node: JsonNode, path: Path): JsonNode {
  return path.reduce<JsonNode>(
    (current, step) =>
      Array.isArray(current) ? current[step as number] : (current as Record<string, JsonNode>)[step as string],
    node,
  );
}

/** `node` with the node at `path` replaced by what `change` returns (undefined removes it). */
function updateAt(
  node: JsonNode,
  path: Path,
  change: (current: JsonNode) => JsonNode | undefined,
): JsonNode | undefined {
  if (path.length === 0) return change(node);
  const [step, ...rest] = path;
  if (Array.isArray(node)) {
    const index = step as number;
    const updated = updateAt(node[index], rest, change);
    return updated === undefined
      ? node.filter((_, i) => i !== index)
      : node.map((child, i) => (i === index ? updated : child));
  }
  if (isObjectNode(node)) return withMember(node, step as string, updateAt(node[step as string], rest, change));
  return node;
}

/** Applies one mutation; `at` picks a node among all (or among the objects, for `add`), modulo their number. */
export function mutate(root: JsonNode, mutation: Mutation): JsonNode {
  const paths = pathsOf(root);
  if (mutation.kind === 'add') {
    const objects = paths.filter((path) => isObjectNode(nodeAt(root, path)));
    if (objects.length === 0) return root;
    const target = objects[mutation.at % objects.length];
    return (
      updateAt(root, target, (current) =>
        withMember(current as Record<string, JsonNode>, mutation.key, mutation.value),
      ) ?? root
    );
  }
  if (mutation.kind === 'object-as-string') {
    const inner = paths.filter((path) => path.length > 0 && isObjectNode(nodeAt(root, path)));
    if (inner.length === 0) return root;
    return updateAt(root, inner[mutation.at % inner.length], () => 'x'.repeat(mutation.length)) ?? root;
  }
  // Mutating the root itself only when it is the only node: a non-object top level is a body-parser case.
  const candidates = paths.length > 1 ? paths.slice(1) : paths;
  const target = candidates[mutation.at % candidates.length];
  switch (mutation.kind) {
    case 'replace':
      return updateAt(root, target, () => mutation.value) ?? root;
    case 'delete':
      return updateAt(root, target, () => undefined) ?? {};
    case 'stringify':
      return updateAt(root, target, (current) => toJsonText(current)) ?? root;
    case 'arrayify':
      return (
        updateAt(root, target, (current) =>
          isObjectNode(current) ? Object.keys(current).map((key) => current[key]) : [current],
        ) ?? root
      );
  }
}

/**
 * A short, readable rendering of a possibly huge text: runs of a repeated character or short
 * sequence become `⟨"x"×70000⟩`, and the rest is cut at `max` characters.
 */
export function abbreviate(text: string, max = 3000): string {
  const folded = text
    .replace(/([\s\S])\1{31,}/g, (run, unit: string) => `⟨${JSON.stringify(unit)}×${run.length}⟩`)
    .replace(/([\s\S]{2,8}?)\1{15,}/g, (run, unit: string) => `⟨${JSON.stringify(unit)}×${run.length / unit.length}⟩`);
  return folded.length <= max ? folded : `${folded.slice(0, max)}… (${folded.length - max} more characters)`;
}
