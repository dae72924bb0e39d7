import { Injectable } from '@nestjs/common';
import { ENVELOPE_LIMITS } from '@svc/contracts';
import { problems } from '@svc/http';
import type { Principal } from '@svc/identity';
import { checkFilter, compileFilter, type PayloadFilter } from '@svc/webhook-endpoints';
import { WebhookEndpointsService } from './webhook-endpoints.service';

export interface FilterTest {
  envelope: Record<string, unknown>;
  /** Absent: the endpoint's filter; null: none. */
  filter?: PayloadFilter | null;
}

export interface FilterTestOutcome {
  matched: boolean;
  /** null when there was no filter to decide. */
  decidedBy: string | null;
  filter: PayloadFilter | null;
}

/**
 * `POST /v1/webhooks/{id}/filter/test` (ADR 0046): whether a sample envelope passes the endpoint's
 * filter, or one to try, and which clause decided. It reads the endpoint and changes nothing; the
 * engine decides with the same compiled filter (`matches`), which `explain` agrees with.
 */
@Injectable()
export class WebhookFilterTestService {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  async test(
    principal: Principal,
    endpointId: string,
    test: FilterTest,
  ): Promise<FilterTestOutcome> {
    const endpoint = await this.endpoints.get(principal, endpointId);
    const violations = [
      ...envelopeSizeViolations(test.envelope),
      ...(test.filter == null ? [] : checkFilter(test.filter)),
    ];
    if (violations.length > 0) {
      throw problems.invalidRequest(violations);
    }
    const filter = test.filter === undefined ? endpoint.filter : test.filter;
    if (filter === null) {
      return { matched: true, decidedBy: null, filter: null };
    }
    const compiled = compileFilter(filter);
    if (!compiled.ok) {
      // Every filter was compiled before it was recorded; one that no longer compiles matches
      // nothing in the engine (EndpointDirectory), and so here.
      return { matched: false, decidedBy: 'filter', filter };
    }
    const { matched, decidedBy } = compiled.filter.explain(test.envelope);
    return { matched, decidedBy, filter };
  }
}

/** A sample is held to the size of a real envelope: the engine takes nothing larger. */
function envelopeSizeViolations(envelope: Record<string, unknown>) {
  const bytes = Buffer.byteLength(JSON.stringify(envelope), 'utf8');
  return bytes <= ENVELOPE_LIMITS.maxBytes
    ? []
    : [
        {
          field: 'envelope',
          detail: `is ${bytes} bytes of JSON: an envelope is at most ${ENVELOPE_LIMITS.maxBytes}`,
        },
      ];
}
