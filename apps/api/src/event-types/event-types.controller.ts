import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import {
  EVENT_CATALOGUE,
  EVENT_EXAMPLES,
  EVENT_FAMILIES,
  EVENT_TYPES,
  EventEnvelope,
  EventTypeEntry,
} from '@svc/contracts';
import { RequireScopes } from '../authentication/require-scopes.decorator';
import { ApiAuthenticatedProblems } from '../openapi/api-docs.decorators';

/** The body of every delivery (spec 2.2), as an example shows it. */
class EventEnvelopeExample {
  @ApiProperty({ pattern: '^evt_' }) id!: string;
  @ApiProperty({ enum: EVENT_TYPES }) type!: string;
  @ApiProperty({ format: 'date-time', description: 'When the event was created, in UTC.' })
  created_at!: string;
  @ApiProperty({ pattern: '^ten_' }) tenant_id!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'As data_schema describes it.',
  })
  data!: Record<string, unknown>;
}

class EventTypeResponse {
  @ApiProperty({ enum: EVENT_TYPES })
  type!: string;

  @ApiProperty({ enum: EVENT_FAMILIES })
  family!: string;

  @ApiProperty()
  description!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "JSON Schema (2020-12) of the envelope's `data` for this type",
  })
  data_schema!: Record<string, unknown>;

  @ApiProperty({
    type: EventEnvelopeExample,
    description:
      'A whole delivery body of this type, as an endpoint receives it; its data is valid against data_schema.',
  })
  example!: EventEnvelope;

  static of(entry: EventTypeEntry): EventTypeResponse {
    return {
      type: entry.type,
      family: entry.family,
      description: entry.description,
      data_schema: entry.dataSchema,
      example: EVENT_EXAMPLES[entry.type],
    };
  }
}

class EventTypeList {
  @ApiProperty({ type: [EventTypeResponse] })
  data!: EventTypeResponse[];
}

/**
 * `GET /v1/event-types`: the catalogue endpoints subscribe from (ADR 0004). Registration refuses
 * any type this does not list (a family wildcard `alert.*` covers the family's types).
 */
@ApiTags('event types')
@ApiAuthenticatedProblems('webhooks:manage')
@Controller('v1/event-types')
export class EventTypesController {
  @Get()
  @RequireScopes('webhooks:manage')
  @ApiOkResponse({ type: EventTypeList })
  list(): EventTypeList {
    return { data: EVENT_CATALOGUE.map((entry) => EventTypeResponse.of(entry)) };
  }
}
