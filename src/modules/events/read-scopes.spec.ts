import { RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { REQUIRED_SCOPES } from '../../common/auth/auth.decorators';
import type { Scope } from '../../common/auth/scopes';
import { RATE_CATEGORY } from '../../common/throttling/rate-category';
import { NON_RECORD_TYPES, SYSTEM_RECORD_TYPES } from '../../records/system-types';
import { CrmModule } from '../crm/crm.module';
import { FilesModule } from '../files/files.module';
import { ListsModule } from '../lists/lists.module';
import { MeetingsModule } from '../meetings/meetings.module';
import { NotesModule } from '../notes/notes.module';
import { TasksModule } from '../tasks/tasks.module';

/** Where each entity type is served under `/v1`. */
const PATHS: Record<string, string> = {
  note: 'v1/notes',
  task: 'v1/tasks',
  account: 'v1/accounts',
  contact: 'v1/contacts',
  opportunity: 'v1/opportunities',
  meeting: 'v1/meetings',
  list: 'v1/lists',
  file: 'v1/files',
};
const MODULES = [NotesModule, TasksModule, CrmModule, MeetingsModule, ListsModule, FilesModule];

/** The scopes of each GET route that reads (category read or search) of the controller at `path`. */
function readRoutesAt(path: string): Scope[][] {
  const controllers = MODULES.flatMap((module) => Reflect.getMetadata('controllers', module) as Type<unknown>[]);
  const controller = controllers.find((candidate) => Reflect.getMetadata(PATH_METADATA, candidate) === path);
  if (!controller) return [];
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype)
    .map((name) => prototype[name])
    .filter(
      (handler) =>
        typeof handler === 'function' &&
        Reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.GET &&
        ['read', 'search'].includes(Reflect.getMetadata(RATE_CATEGORY, handler) as string),
    )
    .map((handler) => Reflect.getMetadata(REQUIRED_SCOPES, handler as object) as Scope[]);
}

describe('read scopes of the entity types', () => {
  const types = [...SYSTEM_RECORD_TYPES, ...NON_RECORD_TYPES];

  it.each(types.map((type) => [type.slug, type.readScope]))(
    'the routes reading %s require its read scope first',
    (slug, scope) => {
      expect(PATHS[slug]).toBeDefined();
      const routes = readRoutesAt(PATHS[slug]);
      expect(routes.length).toBeGreaterThan(0);
      for (const scopes of routes) expect(scopes[0]).toBe(scope);
    },
  );
});
