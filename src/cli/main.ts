import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { resolveDatabase } from '../bootstrap/database-url';
import { AppConfig, loadConfig } from '../config/app-config';
import { runMigrations } from '../database/migrate';
import { AdminService } from '../modules/admin/admin.service';
import type { MemberRole } from '../database/entities/member.entity';

const USAGE = `usage: npm run cli -- <command> [options]
  workspace:create --name NAME
  member:create    --workspace WKS_ID --email EMAIL [--first-name F] [--last-name L] [--role admin|member]
  key:create       --workspace WKS_ID --member MEM_ID --scopes 'notes:read,notes:create' | '*' [--name NAME]
  key:revoke       --key KEY_ID`;

type Options = Record<string, string | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (!value) throw new Error(`--${name} is required\n${USAGE}`);
  return value;
}

const COMMANDS: Record<string, (admin: AdminService, options: Options) => Promise<unknown>> = {
  'workspace:create': (admin, o) => admin.createWorkspace(required(o, 'name')),
  'member:create': (admin, o) =>
    admin.createMember(required(o, 'workspace'), {
      email: required(o, 'email'),
      firstName: o['first-name'],
      lastName: o['last-name'],
      role: o.role as MemberRole | undefined,
    }),
  'key:create': (admin, o) =>
    admin.createApiKey(required(o, 'workspace'), {
      memberId: required(o, 'member'),
      scopes: required(o, 'scopes').split(',').map((scope) => scope.trim()),
      name: o.name,
    }),
  'key:revoke': (admin, o) => admin.revokeApiKey(required(o, 'key')),
};

/** The operator API from a shell, on the service's database (DATABASE_URL or the embedded one). */
async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: Object.fromEntries(
      ['name', 'workspace', 'email', 'first-name', 'last-name', 'role', 'member', 'scopes', 'key'].map((name) => [
        name,
        { type: 'string' as const },
      ]),
    ),
  });
  const command = COMMANDS[positionals[0] ?? ''];
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
      process.stdout.write(`${JSON.stringify(await command(app.get(AdminService), values), null, 2)}\n`);
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
