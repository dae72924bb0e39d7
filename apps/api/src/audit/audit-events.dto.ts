import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInstant, PageQuery } from '@svc/http';
import { IsIn, IsOptional, Matches } from 'class-validator';
import {
  AUDIT_ACTIONS,
  AuditAction,
  AuditActor,
  AuditDetailValue,
  AuditEntry,
} from './audit-entry';

export class AuditEventsQuery extends PageQuery {
  @ApiPropertyOptional({ enum: AUDIT_ACTIONS, description: 'Only entries of this action.' })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS, { message: `must be one of ${AUDIT_ACTIONS.join(', ')}` })
  action?: AuditAction;

  @ApiPropertyOptional({
    pattern: '^wh_',
    description:
      'Only the actions on this endpoint: its registration, changes, deletion, rotations, tests, replays and recoveries.',
  })
  @IsOptional()
  @Matches(/^wh_[0-9a-hjkmnp-tv-z]{26}$/, { message: 'must be an endpoint id (wh_…)' })
  endpoint_id?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'Only actions at this time or later (RFC 3339, with a time zone).',
  })
  @IsOptional()
  @IsInstant()
  from?: Date;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'Only actions before this time, excluded (RFC 3339, after `from`).',
  })
  @IsOptional()
  @IsInstant()
  to?: Date;
}

class AuditTarget {
  @ApiProperty({ enum: ['endpoint', 'api_key', 'portal_link'] }) type!: string;
  @ApiProperty({
    description: 'The id of the endpoint (wh_), API key (key_) or portal link (pl_).',
  })
  id!: string;
}

class AuditActorResponse implements AuditActor {
  @ApiProperty({
    description:
      '`api_key`, `access_token`, `portal_session`, `operator` (an API key created or revoked with the CLI), or `unknown`.',
  })
  kind!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "The credential's id: the API key (key_), the OAuth grant, the portal session; the operator's user name for the CLI.",
  })
  id!: string | null;
  @ApiPropertyOptional({
    description:
      "An API key's last four characters, as `svc api-keys list` shows them; never the key.",
  })
  key_hint?: string;
  @ApiPropertyOptional({ description: 'The signed-in user of an access token.' })
  user_id?: string;
  @ApiPropertyOptional({ description: 'The OAuth client of an access token.' })
  client_id?: string;
}

/** One management action of the tenant, as the audit trail shows it. */
export class AuditEventResponse implements AuditEntry {
  @ApiProperty({
    pattern: '^aud_',
    description: 'Opaque and stable; entries are listed newest first, not by id.',
  })
  id!: string;
  @ApiProperty({ enum: AUDIT_ACTIONS }) action!: AuditAction;
  @ApiProperty({ type: AuditTarget }) target!: AuditEntry['target'];
  @ApiProperty({ type: AuditActorResponse }) actor!: AuditActor;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The caller's address (null: unknown, or recorded before addresses were).",
  })
  client_address!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The X-Request-Id of the request that did it (its trace id); null for the CLI.',
  })
  request_id!: string | null;
  @ApiProperty({ format: 'date-time' }) occurred_at!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'By action: registered `url`, `events`; updated `changes` (field names only, never values; `secret` for a new secret); secret_rotated `previous_secret_expires_at`; test_sent `delivery_id`; replay_requested `delivery_id`, or `from` and `to`; recovered `redrive_abandoned_since`; portal_session.minted `read_only`, `return_url`, `expires_at`; api_key.created `scopes`, `key_hint`. Never a secret, a key or a token.',
  })
  details!: Record<string, AuditDetailValue>;
}

export class AuditEventPage {
  @ApiProperty({ type: [AuditEventResponse], description: 'Newest first.' })
  data!: AuditEventResponse[];
  @ApiProperty() has_more!: boolean;
  @ApiProperty({ type: String, nullable: true }) next_cursor!: string | null;
}
