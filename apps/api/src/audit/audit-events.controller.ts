import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Page } from '@svc/http';
import type { Principal } from '@svc/identity';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import { ApiAuthenticatedProblems } from '../openapi/api-docs.decorators';
import type { AuditEntry } from './audit-entry';
import { AuditEventPage, AuditEventsQuery } from './audit-events.dto';
import { AuditEventsService } from './audit-events.service';

@ApiTags('audit trail')
@ApiAuthenticatedProblems('audit:read')
@RequireScopes('audit:read')
@Controller('v1')
export class AuditEventsController {
  constructor(private readonly audit: AuditEventsService) {}

  @Get('audit-events')
  @ApiOkResponse({
    type: AuditEventPage,
    description:
      "The management actions of the caller's tenant in the caller's environment, newest first: who changed what, when and from where.",
  })
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AuditEventsQuery,
  ): Promise<Page<AuditEntry>> {
    return this.audit.list(principal, query);
  }
}
