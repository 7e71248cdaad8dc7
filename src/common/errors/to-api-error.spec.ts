import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  NotFoundException,
} from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiError } from './api-error';
import { toApiError } from './to-api-error';

/** A QueryFailedError as TypeORM raises it from pg: the driver error carries SQLSTATE and detail. */
function queryFailed(code: string): QueryFailedError {
  const driverError = Object.assign(new Error(`driver message for ${code}: relation "secret_table"`), {
    code,
    detail: 'Key (email)=(ada@example.com) already exists.',
    constraint: 'members_workspace_email_key',
  });
  return new QueryFailedError('INSERT INTO secret_table (email) VALUES ($1)', ['ada@example.com'], driverError);
}

function leaks(error: ApiError): string {
  return JSON.stringify([error.message, error.param, error.headers]);
}

describe('toApiError', () => {
  it('passes an ApiError through unchanged', () => {
    const error = new ApiError(422, 'invalid_value', 'no');
    expect(toApiError(error)).toBe(error);
  });

  it('maps a 23505 unique violation to 409 duplicate_value, without the SQL, constraint or value', () => {
    const error = toApiError(queryFailed('23505'))!;
    expect([error.status, error.code]).toEqual([409, 'duplicate_value']);
    expect(leaks(error)).not.toMatch(/secret_table|members_workspace_email_key|ada@example\.com|INSERT|driver/);
  });

  it.each(['40001', '40P01', '55P03'])(
    'maps SQLSTATE %s (serialization failure, deadlock, lock not available) to 409 conflict',
    (code) => {
      const error = toApiError(queryFailed(code))!;
      expect([error.status, error.code]).toEqual([409, 'conflict']);
      expect(leaks(error)).not.toMatch(/secret_table|driver/);
    },
  );

  const expectDatabaseUnavailable = (thrown: unknown) => {
    const error = toApiError(thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect([error!.status, error!.code]).toEqual([503, 'database_unavailable']);
    expect(error!.headers).toEqual({ 'Retry-After': '1' });
    expect(leaks(error!)).not.toMatch(/secret_table|driver|5432|terminated|timeout/i);
  };

  /** A pg DatabaseError as the pool raises it outside TypeORM (the API-key lookup): an Error with a SQLSTATE. */
  const pgError = (code: string, message = `driver message for ${code}`) =>
    Object.assign(new Error(message), { code, severity: 'FATAL' });

  /** A QueryFailedError around a driver error that has no SQLSTATE, as when the socket breaks. */
  const queryFailedBy = (driverError: Error) =>
    new QueryFailedError('INSERT INTO secret_table VALUES ($1)', [1], driverError);

  it.each([
    '08000',
    '08001',
    '08003',
    '08004',
    '08006',
    '08P01',
    '57P01',
    '57P02',
    '57P03',
    '57P05',
    '25P03',
    '53300',
    '53100',
  ])(
    'maps SQLSTATE %s (connection lost or refused, server shutting down or out of resources) to 503 with Retry-After',
    (code) => {
      expectDatabaseUnavailable(queryFailed(code));
      expectDatabaseUnavailable(pgError(code));
    },
  );

  it.each([
    'ECONNREFUSED',
    'ECONNRESET',
    'ECONNABORTED',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
  ])('maps a %s socket error, bare or wrapped by TypeORM, to 503 database_unavailable', (code) => {
    const socketError = Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, syscall: 'connect' });
    expectDatabaseUnavailable(socketError);
    expectDatabaseUnavailable(queryFailedBy(socketError));
  });

  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated',
    'Connection terminated due to connection timeout',
    'Client has encountered a connection error and is not queryable',
    'Client was closed and is not queryable',
    'timeout exceeded when trying to connect',
    'Cannot use a pool after calling end on the pool',
    'Query read timeout',
  ])(
    'maps the code-less pg error "%s", bare or wrapped in a QueryFailedError, to 503 database_unavailable',
    (message) => {
      expectDatabaseUnavailable(new Error(message));
      expectDatabaseUnavailable(queryFailedBy(new Error(message)));
    },
  );

  it('maps a pool connect timeout whose cause is the socket error to 503', () => {
    const cause = Object.assign(new Error('connect ETIMEDOUT 10.0.0.1:5432'), { code: 'ETIMEDOUT' });
    expectDatabaseUnavailable(new Error('Connection terminated due to connection timeout', { cause }));
    expectDatabaseUnavailable(new Error('something wrapped', { cause }));
  });

  it('maps the AggregateError of a connect to every address of a host failing to 503', () => {
    const refused = (address: string) =>
      Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    expectDatabaseUnavailable(new AggregateError([refused('::1:5432'), refused('127.0.0.1:5432')], ''));
  });

  it('stops at a cycle of causes and leaves it to the caller', () => {
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    Object.assign(first, { cause: second });
    expect(toApiError(first)).toBeUndefined();
  });

  it('leaves errors that merely mention a connection, or wrap an ordinary failure, to the caller', () => {
    expect(toApiError(new Error('Invalid connection string'))).toBeUndefined();
    expect(toApiError(new Error('outer', { cause: new Error('boom') }))).toBeUndefined();
    expect(toApiError({ message: 'Connection terminated unexpectedly' })).toBeUndefined();
  });

  it.each(['42P01', '42601', '22P02', '23503', '57014'])('leaves SQLSTATE %s to the caller (a 500)', (code) => {
    expect(toApiError(queryFailed(code))).toBeUndefined();
  });

  it.each([
    ['a plain Error', new Error('boom')],
    ['an Error with another code', Object.assign(new Error('x'), { code: 'ERR_SOMETHING' })],
    ['a string', 'boom'],
    ['a number', 42],
    ['null', null],
    ['undefined', undefined],
    ['an object', { message: 'x' }],
  ])('leaves %s to the caller (a 500), without throwing', (_case, thrown) => {
    expect(toApiError(thrown)).toBeUndefined();
  });

  it('maps Nest’s 404 to not_found for the route', () => {
    const error = toApiError(new NotFoundException('Cannot GET /secret'))!;
    expect([error.status, error.code, error.message]).toEqual([404, 'not_found', 'Route not found']);
  });

  it.each([
    [new BadRequestException('bad'), 400, 'bad_request'],
    [new ForbiddenException(), 403, 'forbidden'],
    [new HttpException('too big', 413), 413, 'payload_too_large'],
  ])('maps a Nest HttpException below 500 to its status and type', (exception, status, type) => {
    const error = toApiError(exception)!;
    expect(error.status).toBe(status);
    expect(error.toBody().error.type).toBe(type);
  });

  it.each([
    new InternalServerErrorException('db password is hunter2'),
    new HttpException('x', 418),
    new HttpException('x', 502),
  ])('leaves a Nest HttpException of status 500+ or unknown status to the caller', (exception) => {
    expect(toApiError(exception)).toBeUndefined();
  });
});
