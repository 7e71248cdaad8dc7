import { Body, Controller, Param, Post } from '@nestjs/common';
import { ApiExtraModels, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminRoute } from '../../common/auth/auth.decorators';
import { ApiJsonBody } from '../../common/openapi/api-json-body';
import {
  PROJECT_FIELD_EXAMPLE,
  PROJECT_RELATIONSHIP_EXAMPLE,
  PROJECT_SLUG,
  PROJECT_TYPE_EXAMPLE,
} from '../objects/project-type.example';
import { DefinitionsDto } from '../../records/definitions.dto';
import { AddFieldDto, AddRelationshipDto, CreateObjectTypeDto } from './dto/object-type-admin.dto';
import { ObjectTypesAdminService } from './object-types-admin.service';

@ApiTags('Operator')
@ApiExtraModels(AddFieldDto, AddRelationshipDto)
@Controller('admin/v1/workspaces/:workspaceId/object-types')
export class ObjectTypesAdminController {
  constructor(private readonly objectTypes: ObjectTypesAdminService) {}

  @Post()
  @AdminRoute({ summary: 'Create a custom object type', response: DefinitionsDto, errors: ['duplicate_slug'] })
  @ApiJsonBody(CreateObjectTypeDto, PROJECT_TYPE_EXAMPLE)
  createType(@Param('workspaceId') workspaceId: string, @Body() body: CreateObjectTypeDto): Promise<DefinitionsDto> {
    return this.objectTypes.createType(workspaceId, body);
  }

  @Post(':slug/fields')
  @AdminRoute({ summary: 'Add a custom field to a type', response: DefinitionsDto, errors: ['duplicate_slug'] })
  @ApiParam({ name: 'slug', example: PROJECT_SLUG })
  @ApiJsonBody(AddFieldDto, PROJECT_FIELD_EXAMPLE)
  addField(
    @Param('workspaceId') workspaceId: string,
    @Param('slug') slug: string,
    @Body() body: AddFieldDto,
  ): Promise<DefinitionsDto> {
    return this.objectTypes.addField(workspaceId, slug, body);
  }

  @Post(':slug/relationships')
  @AdminRoute({ summary: 'Add a custom relationship to a type', response: DefinitionsDto, errors: ['duplicate_slug'] })
  @ApiParam({ name: 'slug', example: PROJECT_SLUG })
  @ApiJsonBody(AddRelationshipDto, PROJECT_RELATIONSHIP_EXAMPLE)
  addRelationship(
    @Param('workspaceId') workspaceId: string,
    @Param('slug') slug: string,
    @Body() body: AddRelationshipDto,
  ): Promise<DefinitionsDto> {
    return this.objectTypes.addRelationship(workspaceId, slug, body);
  }
}
