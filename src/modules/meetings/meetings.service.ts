import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiError } from '../../common/errors/api-error';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { Transactions } from '../../database/transactions';
import { DefinitionsService } from '../../records/definitions.service';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { isRecordIdOf } from '../../records/record-ids';
import { isPlainObject } from '../../records/record-write';
import { RecordsService } from '../../records/records.service';
import { meetingFullAccessSql, TRANSCRIPT_LINK } from './meeting-access';
import { MeetingDto } from './meeting.dto';

/** What a caller with METADATA access still sees (decisions §9); every other field reads null. */
const METADATA_FIELDS = new Set([
  '$title',
  '$startDate',
  '$endDate',
  '$attendeeEmails',
  '$organizerEmail',
  '$meetingUrl',
  '$privacySetting',
]);
const UPDATABLE_FIELD = '$privacySetting';
const TRANSCRIPT = '$transcript';
const DERIVED_RELATIONSHIPS = ['$contact', '$account', '$opportunity'] as const;

function readOnly(param: string, why: string): ApiError {
  return new ApiError(422, 'read_only_field', `${param} ${why}`, param);
}

function transcriptId(value: unknown, param: string): string {
  const ids = Array.isArray(value) ? value : [value];
  if (ids.length !== 1) throw ApiError.invalidValue(param, 'A meeting has exactly one transcript');
  if (typeof ids[0] !== 'string') throw ApiError.invalidType(param, 'a file id');
  return ids[0];
}

/**
 * Meetings on the records core: past meetings only, one transcript file, links to contacts,
 * accounts and opportunities derived from the attendees, and privacy resolved per caller.
 */
@Injectable()
export class MeetingsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly records: RecordsService,
    private readonly definitions: DefinitionsService,
  ) {}

  async create(caller: AuthContext, body: unknown): Promise<MeetingDto> {
    if (!isPlainObject(body)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
    const { autoCreateRecords = false, ...recordBody } = body;
    if (typeof autoCreateRecords !== 'boolean') throw ApiError.invalidType('autoCreateRecords', 'a boolean');
    const fields = isPlainObject(recordBody.fields) ? recordBody.fields : undefined;
    if (fields && fields.$privacySetting === undefined) recordBody.fields = { ...fields, $privacySetting: 'FULL' };
    const relationships = isPlainObject(recordBody.relationships) ? recordBody.relationships : {};
    const fileId =
      relationships[TRANSCRIPT] === undefined ? undefined : transcriptId(relationships[TRANSCRIPT], `relationships.${TRANSCRIPT}`);
    return this.transactions.run(async () => {
      if (fileId !== undefined) await this.checkTranscript(caller, fileId, undefined);
      const created = await this.records.create(caller, 'meeting', recordBody);
      this.checkDates(created);
      await this.linkAttendees(caller, created, autoCreateRecords);
      return this.render(caller, await this.records.get(caller, 'meeting', created.id));
    });
  }

  /** Only `$privacySetting` and `$transcript.replace` may change (decisions §2, §9). */
  async update(caller: AuthContext, id: string, body: unknown): Promise<MeetingDto> {
    const type = await this.definitions.typeOf(caller, 'meeting');
    if (!isRecordIdOf('meeting', id)) throw ApiError.notFound('Meeting');
    const given = body ?? {};
    if (!isPlainObject(given)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
    for (const key of Object.keys(given)) {
      if (key !== 'fields' && key !== 'relationships') throw ApiError.unknownField(key);
    }
    for (const key of Object.keys(isPlainObject(given.fields) ? given.fields : {})) {
      const param = `fields.${key}`;
      if (!type.fields.some((field) => field.key === key)) throw ApiError.unknownField(param);
      if (key !== UPDATABLE_FIELD) throw readOnly(param, 'cannot change after create; only $privacySetting can');
    }
    let fileId: string | undefined;
    for (const [key, value] of Object.entries(isPlainObject(given.relationships) ? given.relationships : {})) {
      const param = `relationships.${key}`;
      if (!type.relationships.some((relationship) => relationship.key === key)) {
        throw new ApiError(400, 'unknown_relationship', `${param} is not a known relationship`, param);
      }
      if (key !== TRANSCRIPT) throw readOnly(param, 'is maintained by the service');
      const operations = isPlainObject(value) ? Object.keys(value) : [];
      if (operations.length !== 1 || operations[0] !== 'replace' || typeof (value as { replace: unknown }).replace !== 'string') {
        throw readOnly(param, 'can only be replaced by another file id: clearing or removing it is not supported');
      }
      fileId = (value as { replace: string }).replace;
    }
    return this.transactions.run(async () => {
      // A caller who may not see the transcript may not replace it, nor lift the privacy setting.
      if (this.accessLevel(caller, await this.records.get(caller, 'meeting', id)) !== 'FULL') {
        throw new ApiError(403, 'not_permitted', 'Only members with FULL access to this meeting may change it');
      }
      if (fileId !== undefined) await this.checkTranscript(caller, fileId, id);
      await this.records.update(caller, 'meeting', id, given);
      return this.render(caller, await this.records.get(caller, 'meeting', id));
    });
  }

  async get(caller: AuthContext, id: string): Promise<MeetingDto> {
    return this.render(caller, await this.records.get(caller, 'meeting', id));
  }

  /** Every meeting of the workspace, redacted, never omitted; hidden fields never match filters. */
  async list(caller: AuthContext, page: PageRequest): Promise<PageResult<MeetingDto>> {
    const result = await this.records.list(caller, 'meeting', page, (params, filteredKeys) =>
      filteredKeys.some((key) => !METADATA_FIELDS.has(key))
        ? meetingFullAccessSql('r', params.add(caller.memberId), params.add(caller.memberEmail.toLowerCase()))
        : undefined,
    );
    return { data: result.data.map((meeting) => this.render(caller, meeting)), totalCount: result.totalCount };
  }

  private checkDates(meeting: EntityEnvelopeDto): void {
    const start = Date.parse(meeting.fields.$startDate.value as string);
    const end = Date.parse(meeting.fields.$endDate.value as string);
    const now = Date.now();
    if (start >= now) throw ApiError.invalidValue('fields.$startDate', 'fields.$startDate must be in the past');
    if (end >= now) throw ApiError.invalidValue('fields.$endDate', 'fields.$endDate must be in the past');
    if (end < start) throw ApiError.invalidValue('fields.$endDate', 'fields.$endDate must not be before $startDate');
  }

  /** A COMPLETED file of this workspace, attached to no other meeting (decisions §9). */
  private async checkTranscript(caller: AuthContext, fileId: string, meetingId: string | undefined): Promise<void> {
    const param = `relationships.${TRANSCRIPT}`;
    const manager = this.transactions.manager;
    const files = isRecordIdOf('file', fileId)
      ? ((await manager.query(`SELECT status FROM files WHERE id = $1 AND workspace_id = $2 FOR UPDATE`, [
          fileId,
          caller.workspaceId,
        ])) as { status: string }[])
      : [];
    if (files.length === 0) {
      throw new ApiError(422, 'relationship_entity_missing', `No file ${fileId} in this workspace`, param);
    }
    if (files[0].status !== 'COMPLETED') throw ApiError.invalidValue(param, `File ${fileId} is not COMPLETED`);
    const attached = (await manager.query(
      `SELECT source_id FROM record_links WHERE link = $1 AND target_id = $2 AND source_id IS DISTINCT FROM $3`,
      [TRANSCRIPT_LINK, fileId, meetingId ?? null],
    )) as unknown[];
    if (attached.length > 0) throw ApiError.invalidValue(param, `File ${fileId} is already another meeting's transcript`);
  }

  /**
   * `$contact`: contacts whose `$email` holds an attendee or the organizer; `$account` and
   * `$opportunity` follow from them. With autoCreateRecords, attendees outside the workspace
   * without a contact get one, and each new email domain an account.
   */
  private async linkAttendees(caller: AuthContext, meeting: EntityEnvelopeDto, autoCreate: boolean): Promise<void> {
    const attendees = (meeting.fields.$attendeeEmails.value as string[] | null) ?? [];
    const organizer = meeting.fields.$organizerEmail.value as string | null;
    const emails = [...new Set([...attendees, ...(organizer ? [organizer] : [])])];
    if (emails.length === 0) return;
    const manager = this.transactions.manager;
    const contactsOf = async () =>
      (await manager.query(
        `SELECT id, fields -> '$email' AS emails FROM records
          WHERE workspace_id = $1 AND object_type = 'contact' AND fields -> '$email' ?| $2::text[]`,
        [caller.workspaceId, emails],
      )) as { id: string; emails: string[] }[];
    let contacts = await contactsOf();
    if (autoCreate) {
      await this.createMissingContacts(caller, emails, contacts);
      contacts = await contactsOf();
    }
    const contactIds = contacts.map((contact) => contact.id);
    const accountIds = (
      (await manager.query(
        `SELECT DISTINCT target_id AS id FROM record_links WHERE link = 'contact:$account' AND source_id = ANY($1)`,
        [contactIds],
      )) as { id: string }[]
    ).map((row) => row.id);
    const opportunityIds = (
      (await manager.query(
        `SELECT DISTINCT source_id AS id FROM record_links WHERE link = 'opportunity:$account' AND target_id = ANY($1)`,
        [accountIds],
      )) as { id: string }[]
    ).map((row) => row.id);
    const type = await this.definitions.typeOf(caller, 'meeting');
    const derived = { $contact: contactIds, $account: accountIds, $opportunity: opportunityIds };
    for (const key of DERIVED_RELATIONSHIPS) {
      const definition = type.relationships.find((relationship) => relationship.key === key)!;
      await this.records.setSystemLinks(caller.workspaceId, meeting.id, definition, derived[key]);
    }
  }

  private async createMissingContacts(
    caller: AuthContext,
    emails: string[],
    contacts: { emails: string[] }[],
  ): Promise<void> {
    const manager = this.transactions.manager;
    // Creating accounts and contacts takes their counter rows; take both now, in one order, so
    // that two meetings creating records at once queue instead of deadlocking.
    await manager.query(
      `INSERT INTO record_counts (workspace_id, object_type, count) VALUES ($1, 'account', 0), ($1, 'contact', 0)
       ON CONFLICT DO NOTHING`,
      [caller.workspaceId],
    );
    await manager.query(
      `SELECT 1 FROM record_counts WHERE workspace_id = $1 AND object_type IN ('account', 'contact')
        ORDER BY object_type FOR UPDATE`,
      [caller.workspaceId],
    );
    const known = new Set(contacts.flatMap((contact) => contact.emails));
    const members = new Set(
      ((await manager.query(`SELECT lower(email) AS email FROM members WHERE workspace_id = $1`, [caller.workspaceId])) as {
        email: string;
      }[]).map((row) => row.email),
    );
    for (const email of emails.filter((candidate) => !known.has(candidate) && !members.has(candidate))) {
      const domain = email.slice(email.lastIndexOf('@') + 1);
      const website = `https://${domain}`;
      const [existing] = (await manager.query(
        `SELECT id FROM records WHERE workspace_id = $1 AND object_type = 'account' AND fields -> '$website' ? $2 LIMIT 1`,
        [caller.workspaceId, website],
      )) as { id: string }[];
      const accountId =
        existing?.id ??
        (await this.records.create(caller, 'account', { fields: { $name: domain, $website: [website] } })).id;
      await this.records.create(caller, 'contact', { fields: { $email: [email] }, relationships: { $account: accountId } });
    }
  }

  /** The caller's access level (decisions §9); meetingFullAccessSql is the same rule in SQL. */
  private accessLevel(caller: AuthContext, meeting: EntityEnvelopeDto): 'FULL' | 'METADATA' {
    const email = caller.memberEmail.toLowerCase();
    const full =
      meeting.fields.$privacySetting.value !== 'METADATA' ||
      meeting.relationships.$createdBy.values.includes(caller.memberId) ||
      meeting.fields.$organizerEmail.value === email ||
      ((meeting.fields.$attendeeEmails.value as string[] | null) ?? []).includes(email);
    return full ? 'FULL' : 'METADATA';
  }

  /** The meeting as the caller may see it: at METADATA, redacted. */
  private render(caller: AuthContext, meeting: EntityEnvelopeDto): MeetingDto {
    if (this.accessLevel(caller, meeting) === 'FULL') return { ...meeting, accessLevel: 'FULL', objectType: 'meeting' };
    const fields = Object.fromEntries(
      Object.entries(meeting.fields).map(([key, value]) => [key, METADATA_FIELDS.has(key) ? value : { ...value, value: null }]),
    );
    const { [TRANSCRIPT]: _hidden, ...relationships } = meeting.relationships;
    return { ...meeting, fields, relationships, accessLevel: 'METADATA', objectType: 'meeting' };
  }
}
