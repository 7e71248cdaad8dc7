import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Query } from '@nestjs/common';
import { ApiQuery, DECORATORS } from '@nestjs/swagger';
import { httpContext } from '../../../test/support/execution-context';
import { ApiError } from '../errors/api-error';
import { Paginated } from '../pagination/pagination';
import { QueryAsSent } from './query-parameters';
import { QueryParametersGuard } from './query-parameters.guard';

class ItemDto {}

class SignedQueryDto {
  @QueryAsSent()
  expires?: string;

  @QueryAsSent()
  signature?: string;
}

class Handlers {
  @Paginated(ItemDto)
  paged(): void {}

  signed(@Query() _query: SignedQueryDto): void {}

  @ApiQuery({ name: 'documentedOnly', required: false })
  documentedOnly(): void {}

  plain(): void {}
}

/** What the guard makes of `?query` on `handler`: let through, or the parameter it refuses. */
function verdict(handler: Function, query: Record<string, string>): string {
  try {
    const url = `/route?${new URLSearchParams(query).toString()}`;
    new QueryParametersGuard().canActivate(httpContext({ url, query }, handler as () => unknown, Handlers));
    return 'accepted';
  } catch (error) {
    if (error instanceof ApiError && error.code === 'invalid_parameter') return `refused ${error.param}`;
    throw error;
  }
}

describe('QueryParametersGuard: what a route accepts is what it declares (a @Query() DTO, @Paginated)', () => {
  const { paged, signed, documentedOnly, plain } = Handlers.prototype;

  it('lets a query through to a route that declares parameters, and refuses one elsewhere', () => {
    expect(verdict(paged, { limit: '5' })).toBe('accepted');
    expect(verdict(signed, { expires: '1', signature: 's' })).toBe('accepted');
    expect(verdict(plain, { unexpected: '1' })).toBe('refused unexpected');
    expect(verdict(plain, {})).toBe('accepted');
  });

  it('decides the same once the OpenAPI metadata is gone: the document describes, it does not decide', () => {
    const documented = Reflect.getMetadata(DECORATORS.API_PARAMETERS, paged);
    expect(documented).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'query' })]));
    Reflect.deleteMetadata(DECORATORS.API_PARAMETERS, paged);
    try {
      expect(verdict(paged, { limit: '5' })).toBe('accepted');
    } finally {
      Reflect.defineMetadata(DECORATORS.API_PARAMETERS, documented, paged);
    }
  });

  it('refuses a query on a route that only documents one (@ApiQuery without a @Query() DTO)', () => {
    expect(verdict(documentedOnly, { documentedOnly: '1' })).toBe('refused documentedOnly');
  });

  it('reads neither @nestjs/swagger metadata nor Nest internals', () => {
    const source = readFileSync(path.join(__dirname, 'query-parameters.guard.ts'), 'utf8');
    const imported = [...source.matchAll(/from\s+'([^']+)'/g)].map((match) => match[1]);
    expect(imported.filter((name) => name === '@nestjs/swagger' || /^@nestjs\/[^/]+\/./.test(name))).toEqual([]);
  });
});
