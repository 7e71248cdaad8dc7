import { ApiProperty } from '@nestjs/swagger';
import { OtherParametersIgnored, QueryAsSent } from '../../../common/http/query-parameters';

/** The query of a signed URL: FileTransfersService checks its signature, over the file and the action. */
@OtherParametersIgnored()
export class SignedUrlQueryDto {
  @ApiProperty({ type: 'integer', description: 'Expiry, unix seconds (signed)' })
  @QueryAsSent()
  expires?: string | string[];

  @ApiProperty({ type: 'string', description: 'HMAC-SHA256, base64url' })
  @QueryAsSent()
  signature?: string | string[];
}
