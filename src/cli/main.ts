import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { resolveDatabase } from '../bootstrap/database-url';
import { AppConfig, loadConfig } from '../config/app-config';
import { runMigrations } from '../database/migrate';
import { readFileSync } from 'node:fs';
import type { INestApplicationContext } from '@nestjs/common';
import { validateEntry } from '../common/validation/validation.pipe';
import { AdminService } from '../modules/admin/admin.service';
import { CreateApiKeyDto, CreateMemberDto, CreateWorkspaceDto } from '../modules/admin/dto/admin.dto';
import { CreateObjectTypeDto } from '../modules/admin/dto/object-type-admin.dto';
import { ObjectTypesAdminService } from '../modules/admin/object-types-admin.service';

const USAGE = `usage: npm run cli -- <command> [options]     (in the container image: node dist/src/cli/main.js <command> …)
  bootstrap        --email EMAIL [--name WORKSPACE_NAME] [--first-name F] [--last-name L]
                   a workspace, its admin member and an API key with every scope, in one step
  workspace:create --name NAME
  member:create    --workspace WKS_ID --email EMAIL [--first-name F] [--last-name L] [--role admin|member]
  key:create       --workspace WKS_ID --member MEM_ID --scopes 'notes:read,notes:create' | '*' [--name NAME]
  key:revoke       --key KEY_ID
  object-type:create --workspace WKS_ID --file TYPE.json   (the body of POST /admin/v1/workspaces/{id}/object-types;
                   see examples/object-type.json)`;

type Options = Record<string, string | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (!value) throw new Error(`--${name} is required\n${USAGE}`);
  return value;
}

/**
 * A first workspace for a fresh deployment: production prints no demo key, so this is how an
 * operator gets one. The key is printed once, like every key the operator API creates.
 */
async function bootstrap(app: INestApplicationContext, o: Options) {
  const admin = app.get(AdminService);
  const workspace = await admin.createWorkspace(
    validateEntry(CreateWorkspaceDto, { name: o.name ?? 'My workspace' }, 'options').name,
  );
  const member = await admin.createMember(
    workspace.id,
    validateEntry(
      CreateMemberDto,
      { email: required(o, 'email'), firstName: o['first-name'], lastName: o['last-name'], role: 'admin' },
      'options',
    ),
  );
  const key = await admin.createApiKey(
    workspace.id,
    validateEntry(CreateApiKeyDto, { memberId: member.id, scopes: ['*'], name: 'bootstrap' }, 'options'),
  );
  return { workspaceId: workspace.id, memberId: member.id, apiKeyId: key.id, apiKey: key.key };
}

type Command = (app: INestApplicationContext, options: Options) => Promise<unknown>;

/** Each command validates its input with the operator API's own DTOs, then calls its service. */
const COMMANDS = new Map<string, Command>(
  Object.entries({
    bootstrap,
    'workspace:create': (app, o) =>
      app.get(AdminService).createWorkspace(validateEntry(CreateWorkspaceDto, { name: required(o, 'name') }, 'options').name),
    'member:create': (app, o) =>
      app.get(AdminService).createMember(
        required(o, 'workspace'),
        validateEntry(
          CreateMemberDto,
          { email: required(o, 'email'), firstName: o['first-name'], lastName: o['last-name'], role: o.role },
          'options',
        ),
      ),
    'key:create': (app, o) =>
      app.get(AdminService).createApiKey(
        required(o, 'workspace'),
        validateEntry(
          CreateApiKeyDto,
          { memberId: required(o, 'member'), scopes: required(o, 'scopes').split(',').map((s) => s.trim()), name: o.name },
          'options',
        ),
      ),
    'key:revoke': (app, o) => app.get(AdminService).revokeApiKey(required(o, 'key')),
    'object-type:create': (app, o) =>
      app
        .get(ObjectTypesAdminService)
        .createType(
          required(o, 'workspace'),
          validateEntry(CreateObjectTypeDto, JSON.parse(readFileSync(required(o, 'file'), 'utf8')), 'body'),
        ),
  }),
);

/** The operator API from a shell, on the service's database (DATABASE_URL or the embedded one). */
async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: Object.fromEntries(
      ['name', 'workspace', 'email', 'first-name', 'last-name', 'role', 'member', 'scopes', 'key', 'file'].map((name) => [
        name,
        { type: 'string' as const },
      ]),
    ),
  });
  const command = COMMANDS.get(positionals[0] ?? '');
  if (!command) throw new Error(USAGE);
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const database = await resolveDatabase(config, (message) => process.stderr.write(`${message}\n`));
  try {
    await runMigrations(database.url);
    const app = await NestFactory.createApplicationContext(
      AppModule.register(new AppConfig({ ...config, databaseUrl: database.url })),
      { logger: false },
    );
    try {
      process.stdout.write(`${JSON.stringify(await command(app, values), null, 2)}\n`);
    } finally {
      await app.close();
    }
  } finally {
    await database.embedded?.stop();
  }
}

main().catch((error: unknown) => {
  const body = (error as { toBody?: () => unknown }).toBody?.();
  process.stderr.write(`${body ? JSON.stringify(body) : error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
