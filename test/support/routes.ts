import { RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AUTH_MODE, AuthMode, REQUIRED_SCOPES } from '../../src/common/auth/auth.decorators';
import { takesQueryParameters } from '../../src/common/http/query-parameters';
import { RouteTable } from '../../src/common/http/route-table';

/** `METHOD /path/{param}`: one route, in OpenAPI's spelling of parameters. */
export type RouteKey = string;

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Paths SwaggerModule serves itself (the UI and its assets): routes, but not operations. */
const DOCS_PATH = /^\/docs(-json|-yaml)?(\/|$)/;

/** Every route the app serves, other than the docs. */
export function servedRoutes(app: NestExpressApplication): RouteKey[] {
  const routes = new Set<RouteKey>();
  for (const { method, url } of app.get(RouteTable).list()) {
    if (!DOCS_PATH.test(url)) routes.add(`${method} ${openApiPath(url)}`);
  }
  return [...routes].sort();
}

export interface ControllerOperation {
  route: RouteKey;
  auth: AuthMode;
  scopes: string[];
  /** Declares query parameters (a `@Query()` DTO, `@Paginated`): the only handlers a query reaches. */
  takesQuery: boolean;
}

function joinPath(...parts: string[]): string {
  return `/${parts
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
}

/** Every handler of every controller the app mounted, with the auth mode, scopes and query it declares. */
export function controllerOperations(app: NestExpressApplication): ControllerOperation[] {
  const operations: ControllerOperation[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown>;
      const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        operations.push({
          route: `${method} ${openApiPath(joinPath(prefix, path))}`,
          auth:
            (Reflect.getMetadata(AUTH_MODE, handler) as AuthMode | undefined) ??
            (Reflect.getMetadata(AUTH_MODE, controller) as AuthMode | undefined) ??
            'apiKey',
          scopes: (Reflect.getMetadata(REQUIRED_SCOPES, handler) as string[] | undefined) ?? [],
          takesQuery: takesQueryParameters(controller, handler),
        });
      }
    }
  }
  return operations.sort((a, b) => (a.route < b.route ? -1 : a.route > b.route ? 1 : 0));
}
