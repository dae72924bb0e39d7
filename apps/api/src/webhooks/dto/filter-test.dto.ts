import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ENVELOPE_LIMITS } from '@svc/contracts';
import type { PayloadFilter } from '@svc/webhook-endpoints';
import { Allow, IsDefined, IsObject } from 'class-validator';
import { AsParsedFilter, FILTER_PROPERTY } from './register-webhook.request';

/** `POST /v1/webhooks/{id}/filter/test`: a sample envelope, and optionally a filter to try. */
export class FilterTestRequest {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: `A sample envelope, as the endpoint would receive it (id, type, created_at, tenant_id, data): any JSON object of at most ${ENVELOPE_LIMITS.maxBytes} bytes. Nothing is published or delivered.`,
    example: { type: 'alert.created', data: { severity: 'critical', device_id: 'dev_1' } },
  })
  // Kept as parsed, as the filter is: a sample is matched exactly as an envelope would be.
  @AsParsedFilter()
  @IsObject({ message: 'must be a JSON object: a sample envelope' })
  @IsDefined({ message: 'is required' })
  envelope!: Record<string, unknown>;

  @ApiPropertyOptional({
    ...FILTER_PROPERTY,
    description: `A filter to try instead of the endpoint's, before saving it (what a console's filter editor sends); validated as registration validates it. Absent: the endpoint's own filter. null: no filter. ${FILTER_PROPERTY.description}`,
  })
  @AsParsedFilter()
  @Allow()
  filter?: PayloadFilter | null;
}

export class FilterTestResponse {
  @ApiProperty({ description: 'Whether the endpoint would receive the sample (its type aside).' })
  matched!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The path in the filter of the clause that decided: the first failing one when it does not match; null when there is no filter.',
    example: 'filter.data.severity.$in',
  })
  decided_by!: string | null;

  @ApiProperty({
    ...FILTER_PROPERTY,
    description:
      "The filter the sample was matched against (the one tried, or the endpoint's); null when none.",
  })
  filter!: PayloadFilter | null;
}
