import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiError } from '../../common/errors/api-error';
import type { WriteCondition } from '../../common/http/entity-tags';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { validateEntry } from '../../common/validation/validation.pipe';
import { Transactions } from '../../database/transactions';
import { DefinitionsService } from '../../records/definitions.service';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import { hostKey } from '../../records/field-types/url-hosts';
import { relationshipEntityMissing } from '../../records/link-targets';
import { RELATIONSHIP_OPERATIONS } from '../../records/object-type';
import type { ObjectTypeDefinition, RelationshipDefinition } from '../../records/object-type';
import { isRecordIdOf } from '../../records/record-ids';
import { isPlainObject } from '../../records/record-write';
import type { RecordRestriction } from '../../records/record-pages';
import { RecordsService } from '../../records/records.service';
import { FilesService } from '../files/files.service';
import { MembersService } from '../members/members.service';
import { MeetingCreateOptionsDto, MeetingDto, UpdateMeetingDto } from './meeting.dto';
import { MeetingsRepository } from './meetings.repository';
import { TranscriptIndex } from './transcript-index';

/** The fields a caller with METADATA access still sees; every other field reads null. */
export const METADATA_FIELDS: ReadonlySet<string> = new Set([
  '$title',
  '$startDate',
  '$endDate',
  '$attendeeEmails',
  '$organizerEmail',
  '$meetingUrl',
  '$privacySetting',
]);
const UPDATABLE_FIELD = '$privacySetting';
/** A meeting without a privacy setting is FULL, so an unset or cleared setting is stored as FULL. */
const DEFAULT_PRIVACY = 'FULL';
const TRANSCRIPT = '$transcript';
/** The relationships a caller with METADATA access does not see; every other one it does. */
const HIDDEN_RELATIONSHIPS = new Set([TRANSCRIPT]);
const DERIVED_RELATIONSHIPS = ['$contact', '$account', '$opportunity'] as const;

/**
 * Whether a filter on `key` reads something METADATA access hides: such a filter never matches a
 * meeting the caller sees at METADATA. A key is a field first, as the filters read it.
 */
function hiddenAtMetadata(type: ObjectTypeDefinition, key: string): boolean {
  return type.fields.some((field) => field.key === key) ? !METADATA_FIELDS.has(key) : HIDDEN_RELATIONSHIPS.has(key);
}

function readOnly(param: string, why: string): ApiError {
  return new ApiError(422, 'read_only_field', `${param} ${why}`, param);
}

/** The relationship `key` of `type`, one of the system relationships every workspace has. */
function relationshipOf(type: ObjectTypeDefinition, key: string): RelationshipDefinition {
  return type.relationships.find((relationship) => relationship.key === key)!;
}

function transcriptId(value: unknown, param: string): string {
  const ids = Array.isArray(value) ? value : [value];
  if (ids.length !== 1) throw ApiError.invalidValue(param, 'A meeting has exactly one transcript');
  if (typeof ids[0] !== 'string') throw ApiError.invalidType(param, 'a file id');
  return ids[0];
}

/**
 * The keys of an update body (its shape is UpdateMeetingDto's): only `$privacySetting` and
 * `$transcript.replace` may change. `$privacySetting: null` clears the setting, which is the
 * default FULL; clearing the transcript is refused (read_only_field), as documented. Returns the
 * write for the records core, which validates the values, and the new transcript, if any.
 */
function readUpdate(
  type: ObjectTypeDefinition,
  body: UpdateMeetingDto,
): { write: Record<string, unknown>; fileId?: string } {
  const write: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body.fields ?? {})) {
    const param = `fields.${key}`;
    if (!type.fields.some((field) => field.key === key)) throw ApiError.unknownField(param);
    if (key !== UPDATABLE_FIELD) throw readOnly(param, 'cannot change after create; only $privacySetting can');
    write.fields = { [UPDATABLE_FIELD]: value ?? DEFAULT_PRIVACY };
  }
  let fileId: string | undefined;
  for (const [key, value] of Object.entries(body.relationships ?? {})) {
    const param = `relationships.${key}`;
    if (!type.relationships.some((relationship) => relationship.key === key)) {
      throw new ApiError(400, 'unknown_relationship', `${param} is not a known relationship`, param);
    }
    if (key !== TRANSCRIPT) throw readOnly(param, 'is maintained by the service');
    const operations = isPlainObject(value) ? Object.keys(value) : [];
    // A name that is no operation at all is refused as on any record; add and remove exist, but not here.
    const unknown = operations.find((operation) => !(RELATIONSHIP_OPERATIONS as readonly string[]).includes(operation));
    if (unknown !== undefined) {
      throw new ApiError(400, 'invalid_operation', `${param} allows only replace`, `${param}.${unknown}`);
    }
    if (
      operations.length !== 1 ||
      operations[0] !== 'replace' ||
      typeof (value as { replace: unknown }).replace !== 'string'
    ) {
      throw readOnly(param, 'can only be replaced by another file id: clearing or removing it is not supported');
    }
    fileId = (value as { replace: string }).replace;
    write.relationships = { [TRANSCRIPT]: { replace: fileId } };
  }
  return { write, fileId };
}

/**
 * Whether a record of `type` holding only `fields` is valid: auto-creation knows no value for
 * any other required field or relationship (a workspace may make a custom field required).
 */
function creatableWith(type: ObjectTypeDefinition, fields: string[]): boolean {
  return (
    type.fields.every((field) => !field.required || fields.includes(field.key)) &&
    type.relationships.every((relationship) => !relationship.required || relationship.defaultsToCaller)
  );
}

// Letters and digits, hyphens inside: the domains that make a web address.
const HOST_LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?`;
const HOSTNAME = new RegExp(`^(?:${HOST_LABEL}\\.)+${HOST_LABEL}$`, 'u');

/** The email's domain when it is a host name a website can have (an EMAIL allows more), else undefined. */
function webDomainOf(email: string): string | undefined {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!HOSTNAME.test(domain)) return undefined;
  try {
    return new URL(`https://${domain}`).hostname ? domain : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Meetings on the records core: past meetings only, one transcript file, links to contacts,
 * accounts and opportunities derived from the attendees, and privacy resolved per caller by the
 * one SQL rule (MeetingsRepository).
 */
@Injectable()
export class MeetingsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly records: RecordsService,
    private readonly definitions: DefinitionsService,
    private readonly meetings: MeetingsRepository,
    private readonly files: FilesService,
    private readonly members: MembersService,
    private readonly transcripts: TranscriptIndex,
  ) {}

  async create(caller: AuthContext, body: unknown): Promise<MeetingDto> {
    if (!isPlainObject(body)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
    const { autoCreateRecords, ...recordBody } = body;
    const options = validateEntry(MeetingCreateOptionsDto, { autoCreateRecords }, '');
    if (isPlainObject(recordBody.fields)) {
      recordBody.fields = {
        ...recordBody.fields,
        $privacySetting: recordBody.fields.$privacySetting ?? DEFAULT_PRIVACY,
      };
    }
    let fileId: string | undefined;
    if (isPlainObject(recordBody.relationships)) {
      const transcript = recordBody.relationships[TRANSCRIPT];
      if (transcript !== undefined && transcript !== null)
        fileId = transcriptId(transcript, `relationships.${TRANSCRIPT}`);
    }
    const transcriptText = fileId === undefined ? null : await this.transcripts.textOf(caller.workspaceId, fileId);
    return this.transactions.run(async () => {
      const created = await this.records.create(caller, 'meeting', recordBody);
      if (fileId !== undefined) await this.linkTranscript(caller, fileId, created.id, transcriptText);
      this.checkDates(created);
      const linked = await this.linkAttendees(caller, created, options.autoCreateRecords ?? false);
      return this.present(caller, linked ? await this.records.get(caller, 'meeting', created.id) : created);
    });
  }

  async update(
    caller: AuthContext,
    id: string,
    body: UpdateMeetingDto,
    condition?: WriteCondition,
  ): Promise<MeetingDto> {
    const type = await this.definitions.typeOf(caller, 'meeting');
    if (!isRecordIdOf('meeting', id)) throw ApiError.notFound(type.label);
    const { write, fileId } = readUpdate(type, body);
    const transcriptText = fileId === undefined ? null : await this.transcripts.textOf(caller.workspaceId, fileId);
    return this.transactions.run(async () => {
      const beforeWrite = async () => {
        // A caller who may not see the transcript may not replace it, nor lift the privacy setting.
        // The meeting's row is locked from here on, so its setting cannot change before the write.
        if ((await this.meetings.fullAccess(caller, [id])).get(id) !== true) {
          throw new ApiError(403, 'not_permitted', 'Only members with FULL access to this meeting may change it');
        }
      };
      const updated = await this.records.update(caller, 'meeting', id, write, { beforeWrite, condition });
      if (fileId !== undefined) await this.linkTranscript(caller, fileId, id, transcriptText);
      return this.present(caller, updated);
    });
  }

  async get(caller: AuthContext, id: string): Promise<MeetingDto> {
    return this.present(caller, await this.records.get(caller, 'meeting', id));
  }

  /**
   * Every meeting of the workspace, redacted, never omitted. Filters on what METADATA access shows
   * (title, dates, attendees, organizer, URL, setting, `$createdBy`, `$contact`, `$account`,
   * `$opportunity`) match as for anyone; a filter on a hidden field or on `$transcript` matches
   * only meetings the caller has FULL access to.
   */
  async list(caller: AuthContext, page: PageRequest): Promise<PageResult<MeetingDto>> {
    const type = await this.definitions.typeOf(caller, 'meeting');
    const filteredKeys = Object.keys(page.filters).map((name) => name.replace(/\[.*$/, ''));
    const restrict = filteredKeys.some((key) => hiddenAtMetadata(type, key))
      ? this.meetings.fullAccessRestriction(caller)
      : undefined;
    const result = await this.records.list(caller, 'meeting', page, restrict);
    return { ...result, data: await this.presentAll(caller, result.data) };
  }

  /** Narrows meetings to those the caller has FULL access to (search matches their hidden fields only there). */
  fullAccessRestriction(caller: AuthContext): RecordRestriction {
    return this.meetings.fullAccessRestriction(caller);
  }

  /** Meetings redacted for the caller by its access now (a page, the change feed's meeting events). */
  async presentAll(caller: AuthContext, meetings: EntityEnvelopeDto[]): Promise<MeetingDto[]> {
    const access = await this.meetings.fullAccess(
      caller,
      meetings.map((meeting) => meeting.id),
    );
    return meetings.map((meeting) => this.render(meeting, access.get(meeting.id) === true));
  }

  /**
   * The meeting redacted for the caller. The access is read just after the meeting: only
   * `$privacySetting` (and the transcript) can change in between, so the caller sees at most what
   * the setting allows it at that later moment; a meeting not found any more reads at METADATA.
   */
  private async present(caller: AuthContext, meeting: EntityEnvelopeDto): Promise<MeetingDto> {
    return this.render(meeting, (await this.meetings.fullAccess(caller, [meeting.id])).get(meeting.id) === true);
  }

  private checkDates(meeting: EntityEnvelopeDto): void {
    const start = Date.parse(meeting.fields.$startDate.value as string);
    const end = Date.parse(meeting.fields.$endDate.value as string);
    const now = Date.now();
    if (start >= now) throw ApiError.invalidValue('fields.$startDate', 'fields.$startDate must be in the past');
    if (end >= now) throw ApiError.invalidValue('fields.$endDate', 'fields.$endDate must be in the past');
    if (end < start) throw ApiError.invalidValue('fields.$endDate', 'fields.$endDate must not be before $startDate');
  }

  /** Checks the transcript just linked to `meetingId`, then indexes it for search. */
  private async linkTranscript(
    caller: AuthContext,
    fileId: string,
    meetingId: string,
    text: string | null,
  ): Promise<void> {
    await this.checkTranscript(caller, fileId, meetingId);
    await this.transcripts.index(caller.workspaceId, meetingId, fileId, text);
  }

  /**
   * The transcript just linked to `meetingId` (the records core has checked that it is a file of
   * the workspace) must be COMPLETED and no other meeting's. The file stays locked until the
   * commit, so two meetings taking one file at once take turns and the second sees the first.
   */
  private async checkTranscript(caller: AuthContext, fileId: string, meetingId: string): Promise<void> {
    const param = `relationships.${TRANSCRIPT}`;
    if (!(await this.files.lockCompleted(caller.workspaceId, fileId))) {
      throw ApiError.invalidValue(param, `File ${fileId} is not COMPLETED`);
    }
    const transcript = relationshipOf(await this.definitions.typeOf(caller, 'meeting'), TRANSCRIPT);
    const others = (await this.records.idsLinkingTo(transcript, [fileId])).filter((holder) => holder !== meetingId);
    if (others.length === 0) return;
    // Another meeting's transcript that the caller may not read is a file it cannot know of (the
    // /v1/files routes answer 404 for it), so it is refused as one.
    const access = await this.meetings.fullAccess(caller, others);
    if (others.some((holder) => access.get(holder) !== true)) throw relationshipEntityMissing('file', fileId, param);
    throw ApiError.invalidValue(param, `File ${fileId} is already another meeting's transcript`);
  }

  /**
   * `$contact`: contacts whose `$email` holds an attendee or the organizer; `$account` and
   * `$opportunity` follow from them. With autoCreateRecords, attendees outside the workspace
   * without a contact first get one (see createMissingContacts). False when there is nobody to link.
   */
  private async linkAttendees(caller: AuthContext, meeting: EntityEnvelopeDto, autoCreate: boolean): Promise<boolean> {
    const attendees = (meeting.fields.$attendeeEmails.value as string[] | null) ?? [];
    const organizer = meeting.fields.$organizerEmail.value as string | null;
    const emails = [...new Set([...attendees, ...(organizer ? [organizer] : [])])];
    if (emails.length === 0) return false;
    if (autoCreate) await this.createMissingContacts(caller, emails);
    const types = await this.definitions.typesOf(caller);
    const contactIds = (await this.records.findHoldingAny(caller, 'contact', '$email', emails)).map(
      (contact) => contact.id,
    );
    const accountIds = await this.records.idsLinkedBy(relationshipOf(types.get('contact')!, '$account'), contactIds);
    const opportunityIds = await this.records.idsLinkedBy(
      relationshipOf(types.get('account')!, '$opportunity'),
      accountIds,
    );
    const derived = { $contact: contactIds, $account: accountIds, $opportunity: opportunityIds };
    const meetingType = types.get('meeting')!;
    for (const key of DERIVED_RELATIONSHIPS) {
      await this.records.setSystemLinks(caller, 'meeting', meeting.id, relationshipOf(meetingType, key), derived[key]);
    }
    return true;
  }

  /**
   * autoCreateRecords: each email that is neither a contact's nor a member's gets a contact, linked
   * to the account of its domain: the oldest account with a `$website` on that host (any scheme,
   * path, port or letter case, with or without `www.`), else a new one named after the domain.
   *
   * Auto-creation only adds to a meeting; it never refuses one. It fills `$email` on contacts,
   * `$name` and `$website` on accounts, and nothing else, so when the workspace requires another
   * field (a required custom field), it skips what it cannot make valid: no contacts at all when
   * contacts need more, contacts without an account when accounts do. An email domain that no
   * website can have (an EMAIL allows more than a host name) gets no account either.
   */
  private async createMissingContacts(caller: AuthContext, emails: string[]): Promise<void> {
    const contactType = await this.definitions.typeOf(caller, 'contact');
    if (!creatableWith(contactType, ['$email'])) return;
    const createsAccounts = creatableWith(await this.definitions.typeOf(caller, 'account'), ['$name', '$website']);
    // Two meetings creating records at once queue here, and the second sees the first's contacts.
    await this.records.lockCreation(caller, ['account', 'contact']);
    const known = new Set(
      (await this.records.findHoldingAny(caller, 'contact', '$email', emails)).flatMap((contact) => contact.values),
    );
    const members = new Set(await this.members.emailsOf(caller.workspaceId));
    const missing = emails.filter((email) => !known.has(email) && !members.has(email));
    if (missing.length === 0) return;
    const domains = missing.map(webDomainOf);
    const hosts = domains.flatMap((domain) => (domain ? [hostKey(domain)] : []));
    const accounts = await this.records.oldestByUrlHost(caller, 'account', '$website', hosts);
    for (const [index, email] of missing.entries()) {
      const domain = domains[index];
      let accountId = domain && accounts.get(hostKey(domain));
      if (domain && !accountId && createsAccounts) {
        const fields = { $name: domain, $website: [`https://${domain}`] };
        accountId = (await this.records.create(caller, 'account', { fields })).id;
        accounts.set(hostKey(domain), accountId);
      }
      const relationships = accountId ? { $account: accountId } : {};
      await this.records.create(caller, 'contact', { fields: { $email: [email] }, relationships });
    }
  }

  /** The meeting as the caller may see it: redacted unless it has FULL access. */
  private render(meeting: EntityEnvelopeDto, fullAccess: boolean): MeetingDto {
    if (fullAccess) return { ...meeting, accessLevel: 'FULL', objectType: 'meeting' };
    const fields = Object.fromEntries(
      Object.entries(meeting.fields).map(([key, value]) => [
        key,
        METADATA_FIELDS.has(key) ? value : { ...value, value: null },
      ]),
    );
    const relationships = Object.fromEntries(
      Object.entries(meeting.relationships).filter(([key]) => !HIDDEN_RELATIONSHIPS.has(key)),
    );
    return { ...meeting, fields, relationships, accessLevel: 'METADATA', objectType: 'meeting' };
  }
}
