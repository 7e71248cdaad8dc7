import type { INestApplicationContext } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';

/** A route's handler and its controller: where the pipeline's guards read their metadata. */
export interface OperationHandler {
  handler: Function;
  controller: Function;
}

/** The document's operationId of a controller's handler (the names Swagger UI and client generators show). */
export function operationIdOf(controllerName: string, methodName: string): string {
  return `${controllerName.replace(/Controller$/, '')}_${methodName}`;
}

/** Every operation of the document with its path, whatever its method. */
export function* operationsByPath(document: OpenAPIObject): Generator<{ path: string; operation: OperationObject }> {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of Object.values(item) as unknown[]) {
      if (operation && typeof operation === 'object' && 'responses' in operation)
        yield { path, operation: operation as OperationObject };
    }
  }
}

/** Every operation of the document, whatever its method. */
export function* operationsOf(document: OpenAPIObject): Generator<OperationObject> {
  for (const { operation } of operationsByPath(document)) yield operation;
}

/**
 * Every route handler of the application by its operationId, so that the document can say what the
 * guards do from the metadata they act on rather than from a list kept beside them.
 */
export function operationHandlers(app: INestApplicationContext): Map<string, OperationHandler> {
  const handlers = new Map<string, OperationHandler>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (typeof metatype !== 'function') continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler: unknown = Object.getOwnPropertyDescriptor(prototype, name)?.value;
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        handlers.set(operationIdOf(metatype.name, name), { handler, controller: metatype });
      }
    }
  }
  return handlers;
}
