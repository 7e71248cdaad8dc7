import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiError } from '../../common/errors/api-error';
import type { PageRequest, PageResult } from '../../common/pagination/pagination';
import { Transactions } from '../../database/transactions';
import { DefinitionsService } from '../../records/definitions.service';
import { EntityEnvelopeDto } from '../../records/entity-envelope';
import type { ObjectTypeDefinition } from '../../records/object-type';
import { isRecordIdOf } from '../../records/record-ids';
import { isPlainObject } from '../../records/record-write';
import { RecordsService } from '../../records/records.service';
import { meetingFullAccessSql, TRANSCRIPT_LINK } from './meeting-access';
import { MeetingDto } from './meeting.dto';

type AccessLevel = MeetingDto['accessLevel'];

/** The fields a caller with METADATA access still sees; every other field reads null. */
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

function transcriptId(value: unknown, param: string): string {
  const ids = Array.isArray(value) ? value : [value];
  if (ids.length !== 1) throw ApiError.invalidValue(param, 'A meeting has exactly one transcript');
  if (typeof ids[0] !== 'string') throw ApiError.invalidType(param, 'a file id');
  return ids[0];
}

/** A member of a hand-checked body: `null` for an optional member reads as absent. */
function optionalObject(value: unknown, param: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw ApiError.invalidType(param, 'an object');
  return value;
}

/**
 * An update body: only `$privacySetting` and `$transcript.replace` may change. `fields` or
 * `relationships` given as null change nothing; `$privacySetting: null` clears the setting, which
 * is the default FULL; clearing the transcript is refused (read_only_field), as documented.
 * Returns the write for the records core and the new transcript, if any.
 */
function readUpdate(type: ObjectTypeDefinition, body: unknown): { write: Record<string, unknown>; fileId?: string } {
  const given = body ?? {};
  if (!isPlainObject(given)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
  for (const key of Object.keys(given)) {
    if (key !== 'fields' && key !== 'relationships') throw ApiError.unknownField(key);
  }
  const write: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(optionalObject(given.fields, 'fields'))) {
    const param = `fields.${key}`;
    if (!type.fields.some((field) => field.key === key)) throw ApiError.unknownField(param);
    if (key !== UPDATABLE_FIELD) throw readOnly(param, 'cannot change after create; only $privacySetting can');
    write.fields = { [UPDATABLE_FIELD]: value ?? DEFAULT_PRIVACY };
  }
  let fileId: string | undefined;
  for (const [key, value] of Object.entries(optionalObject(given.relationships, 'relationships'))) {
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

/** How account websites and email domains are compared: lowercase, no trailing dot, no `www.`. */
function hostKey(host: string): string {
  return host.toLowerCase().replace(/\.+$/, '').replace(/^www\./, '');
}

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
 * The host key of the URL `url` (SQL text), as hostKey computes it: the authority's host without
 * user info or port, lowercased, without a trailing dot or a leading `www.`; NULL when no URL.
 */
function urlHostKeySql(url: string): string {
  const host = `substring(${url} from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/?#:]+)')`;
  return `regexp_replace(rtrim(lower(${host}), '.'), '^www[.]', '')`;
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
    const { autoCreateRecords, ...recordBody } = body;
    const autoCreate = autoCreateRecords ?? false;
    if (typeof autoCreate !== 'boolean') throw ApiError.invalidType('autoCreateRecords', 'a boolean');
    if (isPlainObject(recordBody.fields)) {
      recordBody.fields = { ...recordBody.fields, $privacySetting: recordBody.fields.$privacySetting ?? DEFAULT_PRIVACY };
    }
    let fileId: string | undefined;
    if (isPlainObject(recordBody.relationships)) {
      const { [TRANSCRIPT]: transcript, ...others } = recordBody.relationships;
      if (transcript === null) recordBody.relationships = others;
      else if (transcript !== undefined) fileId = transcriptId(transcript, `relationships.${TRANSCRIPT}`);
    }
    return this.transactions.run(async () => {
      if (fileId !== undefined) await this.checkTranscript(caller, fileId, undefined);
      const created = await this.records.create(caller, 'meeting', recordBody);
      this.checkDates(created);
      await this.linkAttendees(caller, created, autoCreate);
      return this.present(caller, await this.records.get(caller, 'meeting', created.id));
    });
  }

  async update(caller: AuthContext, id: string, body: unknown): Promise<MeetingDto> {
    const type = await this.definitions.typeOf(caller, 'meeting');
    if (!isRecordIdOf('meeting', id)) throw ApiError.notFound(type.label);
    const { write, fileId } = readUpdate(type, body);
    return this.transactions.run(async () => {
      // A caller who may not see the transcript may not replace it, nor lift the privacy setting.
      // The row stays locked, so the setting cannot change between this check and the write.
      const level = (await this.accessLevels(caller, [id], true)).get(id);
      if (level === undefined) throw ApiError.notFound(type.label);
      if (level !== 'FULL') {
        throw new ApiError(403, 'not_permitted', 'Only members with FULL access to this meeting may change it');
      }
      if (fileId !== undefined) await this.checkTranscript(caller, fileId, id);
      await this.records.update(caller, 'meeting', id, write);
      return this.present(caller, await this.records.get(caller, 'meeting', id));
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
    const result = await this.records.list(caller, 'meeting', page, (params, filteredKeys) =>
      filteredKeys.some((key) => hiddenAtMetadata(type, key))
        ? meetingFullAccessSql('r', params.add(caller.memberId), params.add(caller.memberEmail.toLowerCase()))
        : undefined,
    );
    const levels = await this.accessLevels(caller, result.data.map((meeting) => meeting.id));
    return { data: result.data.map((meeting) => this.render(meeting, levels.get(meeting.id))), totalCount: result.totalCount };
  }

  /**
   * The meeting redacted for the caller. The level is read just after the meeting: only
   * `$privacySetting` (and the transcript) can change in between, so the caller sees at most what
   * the setting allows it at that later moment.
   */
  private async present(caller: AuthContext, meeting: EntityEnvelopeDto): Promise<MeetingDto> {
    return this.render(meeting, (await this.accessLevels(caller, [meeting.id])).get(meeting.id));
  }

  /**
   * The caller's access level to each of these meetings of its workspace, by the one SQL rule
   * (meetingFullAccessSql) that also hides transcripts from the files routes. A meeting that is
   * not found has no entry; with `lock`, the rows stay locked in the current transaction.
   */
  private async accessLevels(caller: AuthContext, ids: string[], lock = false): Promise<Map<string, AccessLevel>> {
    if (ids.length === 0) return new Map();
    const rows = (await this.transactions.manager.query(
      `SELECT r.id, ${meetingFullAccessSql('r', '$2', '$3')} AS full_access FROM records r
        WHERE r.workspace_id = $1 AND r.object_type = 'meeting' AND r.id = ANY($4) ${lock ? 'FOR UPDATE' : ''}`,
      [caller.workspaceId, caller.memberId, caller.memberEmail.toLowerCase(), ids],
    )) as { id: string; full_access: boolean }[];
    return new Map(rows.map((row) => [row.id, row.full_access ? 'FULL' : 'METADATA']));
  }

  private checkDates(meeting: EntityEnvelopeDto): void {
    const start = Date.parse(meeting.fields.$startDate.value as string);
    const end = Date.parse(meeting.fields.$endDate.value as string);
    const now = Date.now();
    if (start >= now) throw ApiError.invalidValue('fields.$startDate', 'fields.$startDate must be in the past');
    if (end >= now) throw ApiError.invalidValue('fields.$endDate', 'fields.$endDate must be in the past');
    if (end < start) throw ApiError.invalidValue('fields.$endDate', 'fields.$endDate must not be before $startDate');
  }

  /** A COMPLETED file of this workspace, attached to no other meeting. */
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
   * without a contact first get one (see createMissingContacts).
   */
  private async linkAttendees(caller: AuthContext, meeting: EntityEnvelopeDto, autoCreate: boolean): Promise<void> {
    const attendees = (meeting.fields.$attendeeEmails.value as string[] | null) ?? [];
    const organizer = meeting.fields.$organizerEmail.value as string | null;
    const emails = [...new Set([...attendees, ...(organizer ? [organizer] : [])])];
    if (emails.length === 0) return;
    if (autoCreate) await this.createMissingContacts(caller, emails);
    const manager = this.transactions.manager;
    const contactIds = (await this.contactsWith(caller, emails)).map((contact) => contact.id);
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

  private async contactsWith(caller: AuthContext, emails: string[]): Promise<{ id: string; emails: string[] }[]> {
    return (await this.transactions.manager.query(
      `SELECT id, fields -> '$email' AS emails FROM records
        WHERE workspace_id = $1 AND object_type = 'contact' AND fields -> '$email' ?| $2::text[]`,
      [caller.workspaceId, emails],
    )) as { id: string; emails: string[] }[];
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
    const manager = this.transactions.manager;
    // Creating accounts and contacts takes their counter rows; take both now, in one order, so
    // that two meetings creating records at once queue, and the second sees the first's contacts.
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
    const known = new Set((await this.contactsWith(caller, emails)).flatMap((contact) => contact.emails));
    const members = new Set(
      ((await manager.query(`SELECT lower(email) AS email FROM members WHERE workspace_id = $1`, [caller.workspaceId])) as {
        email: string;
      }[]).map((row) => row.email),
    );
    const missing = emails.filter((email) => !known.has(email) && !members.has(email));
    if (missing.length === 0) return;
    const domains = missing.map(webDomainOf);
    const accounts = await this.accountsByHost(caller, domains.flatMap((domain) => (domain ? [hostKey(domain)] : [])));
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

  /** For each host key, the oldest account of the workspace with a `$website` on that host. */
  private async accountsByHost(caller: AuthContext, hosts: string[]): Promise<Map<string, string>> {
    if (hosts.length === 0) return new Map();
    const rows = (await this.transactions.manager.query(
      `SELECT DISTINCT ON (site.host) site.host, r.id
         FROM records r
        CROSS JOIN LATERAL (
               SELECT ${urlHostKeySql('website.url')} AS host
                 FROM jsonb_array_elements_text(
                        CASE jsonb_typeof(r.fields -> '$website') WHEN 'array' THEN r.fields -> '$website' ELSE '[]' END
                      ) website(url)) site
        WHERE r.workspace_id = $1 AND r.object_type = 'account' AND site.host = ANY($2)
        ORDER BY site.host, r.created_at, r.id`,
      [caller.workspaceId, [...new Set(hosts)]],
    )) as { host: string; id: string }[];
    return new Map(rows.map((row) => [row.host, row.id]));
  }

  /** The meeting as the caller may see it: at METADATA (or not found any more), redacted. */
  private render(meeting: EntityEnvelopeDto, level: AccessLevel | undefined): MeetingDto {
    if (level === 'FULL') return { ...meeting, accessLevel: 'FULL', objectType: 'meeting' };
    const fields = Object.fromEntries(
      Object.entries(meeting.fields).map(([key, value]) => [key, METADATA_FIELDS.has(key) ? value : { ...value, value: null }]),
    );
    const relationships = Object.fromEntries(
      Object.entries(meeting.relationships).filter(([key]) => !HIDDEN_RELATIONSHIPS.has(key)),
    );
    return { ...meeting, fields, relationships, accessLevel: 'METADATA', objectType: 'meeting' };
  }
}
