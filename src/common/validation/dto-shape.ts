import { applyDecorators, Type } from '@nestjs/common';
import { getMetadataStorage, IsObject, ValidateNested } from 'class-validator';

/**
 * How a member of a static body holds other bodies. The validation pipe follows these shapes to
 * check every level of a body against its class and build its instance.
 */
export type MemberShape = NestedShape | MapShape;
export interface NestedShape {
  kind: 'nested';
  type: () => Type<object>;
  each: boolean;
}
export interface MapShape {
  kind: 'map';
  type: () => Type<object>;
  keyMember?: string;
}

const SHAPES = new WeakMap<object, Map<string, MemberShape>>();
const DECLARED = new WeakMap<object, ReadonlySet<string>>();

function shapeDecorator(shape: MemberShape): PropertyDecorator {
  return (prototype, property) => {
    const owner = prototype.constructor;
    const shapes = SHAPES.get(owner) ?? new Map<string, MemberShape>();
    shapes.set(String(property), shape);
    SHAPES.set(owner, shapes);
  };
}

/**
 * A member holding one body of `type` (or, with `each`, an array of them). Only an object is
 * accepted where a body is expected: class-validator alone would take an array (even `[[]]`) for
 * a container of bodies and validate nothing.
 */
export function NestedDto(type: () => Type<object>, options: { each?: boolean } = {}): PropertyDecorator {
  const each = options.each ?? false;
  return applyDecorators(ValidateNested({ each }), shapeDecorator({ kind: 'nested', type, each }));
}

/**
 * A member mapping user-given keys (any string: `constructor` and `__proto__` are keys like any
 * other) to bodies of `type`. Each entry is validated as a body of its own, its params under
 * `<member>.<key>`; with `keyMember`, the map key is that member of the entry. The handler receives
 * a null-prototype object of validated entries.
 */
export function DtoMap(type: () => Type<object>, options: { keyMember?: string } = {}): PropertyDecorator {
  return applyDecorators(IsObject(), shapeDecorator({ kind: 'map', type, keyMember: options.keyMember }));
}

/** The shape of `member` of `type`, inherited shapes included. */
export function memberShape(type: Type<object>, member: string): MemberShape | undefined {
  for (
    let owner: unknown = type;
    typeof owner === 'function' && owner !== Function.prototype;
    owner = Object.getPrototypeOf(owner)
  ) {
    const shape = SHAPES.get(owner)?.get(member);
    if (shape) return shape;
  }
  return undefined;
}

/** The members a body of `type` may have: those with class-validator rules, inherited ones included. */
export function declaredMembers(type: Type<object>): ReadonlySet<string> {
  let members = DECLARED.get(type);
  if (!members) {
    const rules = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
    members = new Set(rules.map((rule) => rule.propertyName));
    DECLARED.set(type, members);
  }
  return members;
}
