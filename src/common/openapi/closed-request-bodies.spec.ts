import type { OpenAPIObject } from '@nestjs/swagger';
import { closeRequestBodies } from './closed-request-bodies';

function documentWithBody(schemas: NonNullable<OpenAPIObject['components']>['schemas']): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/members': {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateMember' } } } },
          responses: {},
        },
      },
    },
    components: { schemas },
  };
}

describe('closeRequestBodies', () => {
  it('closes the body classes and requires no member that has a default, at any depth', () => {
    const document = documentWithBody({
      CreateMember: {
        type: 'object',
        required: ['email', 'role'],
        properties: {
          email: { type: 'string' },
          role: { type: 'string', default: 'member' },
          profile: { $ref: '#/components/schemas/Profile' },
        },
      },
      Profile: { type: 'object', required: ['locale'], properties: { locale: { type: 'string', default: 'en' } } },
    });
    closeRequestBodies(document);
    expect(document.components!.schemas).toEqual({
      CreateMember: expect.objectContaining({ required: ['email'], additionalProperties: false }),
      Profile: expect.not.objectContaining({ required: expect.anything() }),
    });
    expect(document.components!.schemas!.Profile).toMatchObject({ additionalProperties: false });
  });

  it('leaves a schema of alternatives open: it declares no members of its own', () => {
    const document = documentWithBody({
      CreateMember: { type: 'object', properties: { value: { $ref: '#/components/schemas/Value' } } },
      Value: { anyOf: [{ type: 'string' }, { type: 'object', properties: { city: { type: 'string' } } }] },
    });
    closeRequestBodies(document);
    expect(document.components!.schemas!.Value).not.toHaveProperty('additionalProperties');
  });
});
