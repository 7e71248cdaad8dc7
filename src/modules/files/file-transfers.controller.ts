import { Controller, Get, HttpCode, Param, Put, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../common/auth/auth.decorators';
import { ApiErrors } from '../../common/errors/error-responses';
import { SignedUrlQueryDto } from './dto/signed-url-query.dto';
import { FileTransfersService } from './file-transfers.service';
import { contentDisposition } from './storage/file-storage';

/**
 * The byte routes of the local storage driver, at the URLs that `POST /v1/files` and
 * `GET /v1/files/{id}/url` return: outside `/v1`, authorised by their signature alone
 * (docs/api.md §1, §10). The body is the file's bytes, streamed; no JSON parser runs here.
 */
@ApiTags('File transfers')
@Controller()
@Public()
export class FileTransfersController {
  constructor(private readonly transfers: FileTransfersService) {}

  @Put('uploads/:id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Upload the bytes of a PENDING file (the uploadUrl of POST /v1/files)',
    description:
      'No Authorization or Service-Version header. Send exactly the uploadHeaders (Content-Type equal to the ' +
      "file's mimeType) and at most sizeBytes bytes. A second upload before completion replaces the first. " +
      "With files stored in S3 this route serves nothing (404): the uploadUrl is S3's.",
  })
  @ApiParam({ name: 'id', description: 'File id' })
  @ApiConsumes('*/*')
  @ApiBody({ required: true, schema: { type: 'string', format: 'binary' } })
  @ApiOkResponse({
    description: 'Stored; complete the file with POST /v1/files/{id}/complete',
    headers: { ETag: { description: 'MD5 of the stored bytes, quoted', schema: { type: 'string' } } },
  })
  @ApiErrors([
    'invalid_parameter',
    'invalid_signature',
    'invalid_state',
    'payload_too_large',
    'unsupported_media_type',
    'database_unavailable',
  ])
  async upload(
    @Param('id') id: string,
    @Query() query: SignedUrlQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    const { md5 } = await this.transfers.upload(id, query, request);
    response.setHeader('ETag', `"${md5}"`);
  }

  @Get('downloads/:id')
  @ApiOperation({
    summary: 'Download the bytes of a COMPLETED file (the url of GET /v1/files/{id}/url)',
    description: "No Authorization or Service-Version header. Served with the file's Content-Type, as an attachment.",
  })
  @ApiParam({ name: 'id', description: 'File id' })
  @ApiOkResponse({
    description: 'The bytes',
    content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
    headers: {
      'Content-Disposition': {
        description:
          'attachment; filename="…", and filename*=UTF-8\'\'… unless the name is printable ASCII without " or %',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors(['invalid_parameter', 'invalid_signature', 'database_unavailable'])
  async download(
    @Param('id') id: string,
    @Query() query: SignedUrlQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile | undefined> {
    const { file, size, open } = await this.transfers.download(id, query);
    // As stored: Express's `set` would add a charset to the file's own type.
    response.setHeaders(
      new Map([
        ['Content-Type', file.mimeType],
        ['Content-Length', String(size)],
        ['Content-Disposition', contentDisposition(file.filename)],
        ['X-Content-Type-Options', 'nosniff'],
        ['Cache-Control', 'private, no-store'],
      ]),
    );
    // A HEAD request gets the headers alone, without the file being opened.
    return request.method === 'HEAD' ? undefined : new StreamableFile(open());
  }
}
