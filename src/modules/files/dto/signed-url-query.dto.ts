import { OtherParametersIgnored, QueryInteger, QueryText } from '../../../common/http/query-parameters';

/** The largest expiry a signed URL carries: 12 digits of unix seconds (the year 33658). */
const MAX_EXPIRES = 999_999_999_999;

/** The query of a signed URL: FileTransfersService checks its signature, over the file and the action. */
@OtherParametersIgnored()
export class SignedUrlQueryDto {
  @QueryInteger(0, MAX_EXPIRES, { required: true, description: 'Expiry, unix seconds (signed)' })
  expires: number;

  @QueryText('signature must be given once', { required: true, description: 'HMAC-SHA256, base64url' })
  signature: string;
}
