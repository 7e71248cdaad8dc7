import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { resolveDatabase } from '../bootstrap/database-url';
import { AppConfig, loadConfig } from '../config/app-config';
import { runMigrations } from '../database/migrate';
import { Transactions } from '../database/transactions';
import { readFileSync } from 'node:fs';
import type { INestApplicationContext } from '@nestjs/common';
import { validateEntry } from '../common/validation/validation.pipe';
import { AdminService } from '../modules/admin/admin.service';
import { CreateApiKeyDto, CreateMemberDto, CreateWorkspaceDto } from '../modules/admin/dto/admin.dto';
import { CreateObjectTypeDto } from '../modules/admin/dto/object-type-admin.dto';
import { ObjectTypesAdminService } from '../modules/admin/object-types-admin.service';

const USAGE = `usage: npm run cli -- <command> [options]     (in the container image: node dist/src/cli/main.js <command> …)
  help             this text
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
 * A command checks its options with the operator API's own DTOs before any database is started (a
 * mistyped option must not wait for an embedded PostgreSQL), and returns the work to do.
 */
type Command = (options: Options) => (app: INestApplicationContext) => Promise<unknown>;

/**
 * A first workspace for a fresh deployment: production prints no demo key, so this is how an
 * operator gets one. The key is printed once, like every key the operator API creates.
 */
const bootstrap: Command = (o) => {
  const { name } = validateEntry(CreateWorkspaceDto, { name: o.name ?? 'My workspace' }, 'options');
  const member = validateEntry(
    CreateMemberDto,
    { email: required(o, 'email'), firstName: o['first-name'], lastName: o['last-name'], role: 'admin' },
    'options',
  );
  // One transaction: a failure leaves no workspace without its admin or key.
  return (app) =>
    app.get(Transactions).run(async () => {
      const admin = app.get(AdminService);
      const workspace = await admin.createWorkspace(name);
      const { id: memberId } = await admin.createMember(workspace.id, member);
      const key = await admin.createApiKey(
        workspace.id,
        validateEntry(CreateApiKeyDto, { memberId, scopes: ['*'], name: 'bootstrap' }, 'options'),
      );
      return { workspaceId: workspace.id, memberId, apiKeyId: key.id, apiKey: key.key };
    });
};

const COMMANDS = new Map<string, Command>(
  Object.entries({
    bootstrap,
    'workspace:create': (o) => {
      const { name } = validateEntry(CreateWorkspaceDto, { name: required(o, 'name') }, 'options');
      return (app) => app.get(AdminService).createWorkspace(name);
    },
    'member:create': (o) => {
      const workspaceId = required(o, 'workspace');
      const member = validateEntry(
        CreateMemberDto,
        { email: required(o, 'email'), firstName: o['first-name'], lastName: o['last-name'], role: o.role },
        'options',
      );
      return (app) => app.get(AdminService).createMember(workspaceId, member);
    },
    'key:create': (o) => {
      const workspaceId = required(o, 'workspace');
      const key = validateEntry(
        CreateApiKeyDto,
        {
          memberId: required(o, 'member'),
          scopes: required(o, 'scopes')
            .split(',')
            .map((s) => s.trim()),
          name: o.name,
        },
        'options',
      );
      return (app) => app.get(AdminService).createApiKey(workspaceId, key);
    },
    'key:revoke': (o) => {
      const keyId = required(o, 'key');
      return (app) => app.get(AdminService).revokeApiKey(keyId);
    },
    'object-type:create': (o) => {
      const workspaceId = required(o, 'workspace');
      const type = validateEntry(CreateObjectTypeDto, readJsonFile(required(o, 'file')), 'body');
      return (app) => app.get(ObjectTypesAdminService).createType(workspaceId, type);
    },
  }),
);

/** A JSON file's content, or an error that names the file and what is wrong with it. */
function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`--file ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** The operator API from a shell, on the service's database (DATABASE_URL or the embedded one). */
async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      ...Object.fromEntries(
        ['name', 'workspace', 'email', 'first-name', 'last-name', 'role', 'member', 'scopes', 'key', 'file'].map(
          (name) => [name, { type: 'string' as const }],
        ),
      ),
    },
  });
  const { help, ...options } = values;
  if (help || positionals[0] === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const command = COMMANDS.get(positionals[0] ?? '');
  if (!command) throw new Error(USAGE);
  const work = command(options);
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const database = await resolveDatabase(config, (message) => process.stderr.write(`${message}\n`));
  try {
    await runMigrations(config.databaseDirectUrl ?? database.url);
    const app = await NestFactory.createApplicationContext(
      // Neither role: a command runs no job and serves nothing; what it writes is enqueued for the workers.
      AppModule.register(new AppConfig({ ...config, databaseUrl: database.url, roles: { api: false, worker: false } })),
      { logger: false },
    );
    try {
      process.stdout.write(`${JSON.stringify(await work(app), null, 2)}\n`);
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
