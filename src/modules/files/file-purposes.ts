import type { MemberRole } from '../../database/entities/member.entity';
import { ApiError } from '../../common/errors/api-error';

export const MIB = 1024 * 1024;
/** docs/api.md §10: without a purpose, any MIME type up to 512 MiB. */
export const MAX_FILE_BYTES = 512 * MIB;

/**
 * A MIME type as RFC 6838 spells one: `type/subtype`, restricted-name characters, no parameters.
 * Case-insensitive (the purpose rules compare lowercased), stored and echoed as given.
 */
export const MIME_TYPE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

export const FILE_PURPOSES = ['meeting_transcript', 'knowledge_user', 'knowledge_workspace'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

/** Microsoft Office (legacy and OOXML) and OpenDocument formats: the "Office documents" of §10. */
export const OFFICE_MIME_TYPES = [
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
];

interface PurposeRule {
  /** Exact types, or `type/*` for a whole top-level type. */
  mimeTypes: string[];
  maxBytes: number;
  adminOnly: boolean;
}

const KNOWLEDGE_TYPES = ['text/*', 'application/pdf', 'application/json', ...OFFICE_MIME_TYPES];

export const PURPOSE_RULES: Record<FilePurpose, PurposeRule> = {
  meeting_transcript: {
    mimeTypes: ['text/plain', 'text/vtt', 'text/markdown', 'application/json', 'application/x-subrip'],
    maxBytes: 50 * MIB,
    adminOnly: false,
  },
  knowledge_user: { mimeTypes: KNOWLEDGE_TYPES, maxBytes: 100 * MIB, adminOnly: false },
  knowledge_workspace: { mimeTypes: KNOWLEDGE_TYPES, maxBytes: 100 * MIB, adminOnly: true },
};

function allows(rule: PurposeRule, mimeType: string): boolean {
  const type = mimeType.toLowerCase();
  return rule.mimeTypes.some((allowed) =>
    allowed.endsWith('/*') ? type.startsWith(allowed.slice(0, -1)) : type === allowed,
  );
}

/**
 * The purpose's rules at creation (docs/api.md §10): a workspace upload needs an admin member
 * (403 `not_permitted`), then the MIME type and the size must fit (422 `file_constraint`).
 */
export function checkPurpose(
  purpose: FilePurpose | undefined,
  file: { mimeType: string; sizeBytes: number },
  role: MemberRole,
): void {
  if (purpose === undefined) return;
  const rule = PURPOSE_RULES[purpose];
  if (rule.adminOnly && role !== 'admin') {
    throw new ApiError(403, 'not_permitted', `Only an admin member may upload with purpose ${purpose}`, 'purpose');
  }
  if (!allows(rule, file.mimeType)) {
    throw new ApiError(
      422,
      'file_constraint',
      `mimeType ${file.mimeType} is not allowed for purpose ${purpose}; allowed: ${rule.mimeTypes.join(', ')}`,
      'mimeType',
    );
  }
  if (file.sizeBytes > rule.maxBytes) {
    throw new ApiError(
      422,
      'file_constraint',
      `sizeBytes must be at most ${rule.maxBytes} (${rule.maxBytes / MIB} MiB) for purpose ${purpose}`,
      'sizeBytes',
    );
  }
}
