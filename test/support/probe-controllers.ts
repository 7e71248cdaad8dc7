import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString } from 'class-validator';
import { DataSource } from 'typeorm';
import { Caller } from '../../src/common/auth/auth-context';
import type { AuthContext } from '../../src/common/auth/auth-context';
import { Endpoint } from '../../src/common/auth/auth.decorators';
import { ApiError } from '../../src/common/errors/api-error';
import { QueryAsSent } from '../../src/common/http/query-parameters';
import { newId } from '../../src/common/ids';
import { Transactions } from '../../src/database/transactions';
import type { Gate } from './concurrency';

/**
 * Test-only controllers, mounted under `/v1` through createTestApp({ controllers }) so that they
 * pass the production pipeline (auth, version, scope, rate limit, idempotency, error filter).
 */

export const PROBE_TABLE = 'idempotency_probe';

/** The throwaway table the write probe writes to; safe to call from suites running in parallel. */
export async function ensureProbeTable(dataSource: DataSource): Promise<void> {
  await dataSource.transaction(async (manager) => {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('${PROBE_TABLE}'))`);
    await manager.query(
      `CREATE TABLE IF NOT EXISTS ${PROBE_TABLE} (
         id text PRIMARY KEY,
         label text NOT NULL,
         api_key_id text NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
  });
}

export async function probeRows(dataSource: DataSource, label: string): Promise<{ id: string; api_key_id: string }[]> {
  return dataSource.query(`SELECT id, api_key_id FROM ${PROBE_TABLE} WHERE label = $1 ORDER BY id`, [label]);
}

/** What the write probe does besides writing its row; set by the tests, reset after each. */
export const probeControl: { gate?: Gate; failuresLeft: number } = { failuresLeft: 0 };

export class ProbeItemDto {
  @IsString()
  label: string;

  /** After writing: `error` throws an expected ApiError (409), `crash` a plain Error (500). */
  @IsOptional()
  @IsIn(['error', 'crash'])
  fail?: 'error' | 'crash';

  /** Wait at probeControl.gate after writing, so that the request is observably in flight. */
  @IsOptional()
  @IsBoolean()
  hold?: boolean;

  @IsOptional()
  @IsObject()
  extra?: Record<string, unknown>;
}

export class ProbeItemQueryDto {
  @QueryAsSent()
  x?: string | string[];
}

export interface ProbeItem {
  object: 'probe';
  id: string;
  label: string;
  extra: Record<string, unknown> | null;
}

@Controller('v1/test-probe')
export class WriteProbeController {
  constructor(private readonly transactions: Transactions) {}

  @Post('items')
  @Endpoint({ summary: 'Test only: write one row', category: 'write', errors: ['invalid_state'] })
  createItem(
    @Caller() caller: AuthContext,
    @Body() body: ProbeItemDto,
    // Taken (and ignored) so that a request can differ from another by its query string alone.
    @Query() _query: ProbeItemQueryDto,
  ): Promise<ProbeItem> {
    return this.write(caller, body);
  }

  @Post('other-items')
  @Endpoint({ summary: 'Test only: write one row, on another path', category: 'write', errors: ['invalid_state'] })
  createOtherItem(@Caller() caller: AuthContext, @Body() body: ProbeItemDto): Promise<ProbeItem> {
    return this.write(caller, body);
  }

  /** Joins the request's transaction (the idempotency interceptor's, when there is one). */
  private write(caller: AuthContext, body: ProbeItemDto): Promise<ProbeItem> {
    return this.transactions.run(async () => {
      const id = newId('record');
      await this.transactions.query(`INSERT INTO ${PROBE_TABLE} (id, label, api_key_id) VALUES ($1, $2, $3)`, [
        id,
        body.label,
        caller.apiKeyId,
      ]);
      if (body.hold) await probeControl.gate!.pass();
      if (probeControl.failuresLeft > 0) {
        probeControl.failuresLeft -= 1;
        throw new ApiError(409, 'invalid_state', 'Test probe: a transient failure');
      }
      if (body.fail === 'error') throw new ApiError(409, 'invalid_state', 'Test probe: refused after writing');
      if (body.fail === 'crash') throw new Error('Test probe: crashed after writing');
      return { object: 'probe', id, label: body.label, extra: body.extra ?? null };
    });
  }
}

export const CRASH_MESSAGE = 'probe-crash-detail: do not show this';

/** Failures of every kind, to check that none leaks through the error filter. */
@Controller('v1/test-probe')
export class FailureProbeController {
  constructor(private readonly transactions: Transactions) {}

  @Get('crash')
  @Endpoint({ summary: 'Test only: throw a plain Error', category: 'read' })
  crash(): never {
    throw new Error(CRASH_MESSAGE);
  }

  @Get('bad-sql')
  @Endpoint({ summary: 'Test only: run invalid SQL', category: 'read' })
  async badSql(): Promise<unknown> {
    return this.transactions.query('SELECT secret_column FROM no_such_table_probe WHERE 1 = 1');
  }

  @Get('duplicate')
  @Endpoint({ summary: 'Test only: violate a unique index', category: 'read' })
  async duplicate(): Promise<unknown> {
    return this.transactions.run(async () => {
      const id = newId('workspace');
      await this.transactions.query(`INSERT INTO workspaces (id, name) VALUES ($1, 'probe duplicate')`, [id]);
      return this.transactions.query(`INSERT INTO workspaces (id, name) VALUES ($1, 'probe duplicate')`, [id]);
    });
  }

  @Get('connection-lost')
  @Endpoint({ summary: 'Test only: the database drops the connection', category: 'read' })
  async connectionLost(): Promise<unknown> {
    return this.transactions.query('SELECT pg_terminate_backend(pg_backend_pid())');
  }
}
