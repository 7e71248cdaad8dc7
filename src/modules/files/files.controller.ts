import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Caller } from '../../common/auth/auth-context';
import type { AuthContext } from '../../common/auth/auth-context';
import { Endpoint } from '../../common/auth/auth.decorators';
import { PreparesOutsideTransaction } from '../../common/idempotency/prepared-writes';
import { ApiJsonBody } from '../../common/openapi/api-json-body';
import { Page, Paginated } from '../../common/pagination/pagination';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { CancelFileDto, CompleteFileDto, CreatedFileDto, CreateFileDto, FileDto, FileUrlDto } from './dto/file.dto';
import { FilesService } from './files.service';

@ApiTags('Files')
@Controller('v1/files')
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  @Endpoint({
    summary: 'Create an upload session; PUT the bytes to uploadUrl with uploadHeaders, then complete',
    category: 'write',
    scopes: ['files:create'],
    response: CreatedFileDto,
    errors: ['not_permitted', 'file_constraint'],
  })
  @ApiJsonBody(CreateFileDto, {
    summary: 'A 1,024-byte WebVTT transcript',
    value: { filename: 'call.vtt', mimeType: 'text/vtt', sizeBytes: 1024, purpose: 'meeting_transcript' },
  })
  create(@Caller() caller: AuthContext, @Body() body: CreateFileDto): Promise<CreatedFileDto> {
    return this.files.create(caller, body);
  }

  @Get()
  @Endpoint({ summary: 'List the files of the workspace, newest first', category: 'search', scopes: ['files:read'] })
  @Paginated(FileDto)
  list(@Caller() caller: AuthContext, @Page() page: PageRequest): Promise<PageResult<FileDto>> {
    return this.files.list(caller, page);
  }

  @Get(':id')
  @Endpoint({ summary: 'Retrieve a file', category: 'read', scopes: ['files:read'], response: FileDto })
  get(@Caller() caller: AuthContext, @Param('id') id: string): Promise<FileDto> {
    return this.files.get(caller, id);
  }

  @Post(':id/complete')
  @Endpoint({
    summary: 'Complete an upload: checks the size and, when md5 is given, the checksum',
    category: 'write',
    scopes: ['files:create'],
    response: FileDto,
    errors: ['invalid_state', 'size_mismatch', 'checksum_mismatch'],
  })
  @ApiJsonBody(CompleteFileDto, { summary: 'Without a checksum (add md5 to have it checked)', value: {} }, false)
  @PreparesOutsideTransaction()
  complete(@Caller() caller: AuthContext, @Param('id') id: string, @Body() body: CompleteFileDto): Promise<FileDto> {
    return this.files.complete(caller, id, body);
  }

  @Post(':id/cancel')
  @Endpoint({
    summary: 'Cancel a PENDING upload',
    category: 'write',
    scopes: ['files:create'],
    response: FileDto,
    errors: ['invalid_state'],
  })
  @ApiJsonBody(CancelFileDto, { summary: 'No members', value: {} }, false)
  cancel(@Caller() caller: AuthContext, @Param('id') id: string, @Body() _body: CancelFileDto): Promise<FileDto> {
    return this.files.cancel(caller, id);
  }

  @Get(':id/url')
  @Endpoint({
    summary: 'A temporary download URL of a COMPLETED file',
    category: 'read',
    scopes: ['files:read'],
    response: FileUrlDto,
    errors: ['invalid_state'],
  })
  url(@Caller() caller: AuthContext, @Param('id') id: string): Promise<FileUrlDto> {
    return this.files.downloadUrl(caller, id);
  }
}
