import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { problems } from '@svc/http';
import type { Principal } from '@svc/identity';
import { CurrentPrincipal, RequireScopes } from '../authentication/require-scopes.decorator';
import { Tenant, TenantsService } from '@svc/tenants';
import { ApiAuthenticatedProblems } from '../openapi/api-docs.decorators';

class TenantResponse {
  @ApiProperty({ pattern: '^ten_[0-9a-z]{26}$' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  static of(tenant: Tenant): TenantResponse {
    return { id: tenant.id, name: tenant.name, created_at: tenant.createdAt.toISOString() };
  }
}

class TenantPage {
  @ApiProperty({ type: [TenantResponse] })
  data!: TenantResponse[];

  @ApiProperty()
  has_more!: boolean;

  @ApiProperty({ type: String, nullable: true })
  next_cursor!: string | null;
}

@ApiTags('tenants')
@ApiAuthenticatedProblems('tenants:read')
@Controller('v1/tenants')
export class TenantsController {
  constructor(@Inject(TenantsService) private readonly tenants: TenantsService) {}

  /** A credential belongs to one tenant, so the list holds exactly the caller's own. */
  @Get()
  @RequireScopes('tenants:read')
  @ApiOkResponse({ type: TenantPage })
  async list(@CurrentPrincipal() principal: Principal): Promise<TenantPage> {
    const tenant = await this.tenants.find(principal.tenantId);
    if (!tenant) {
      throw problems.notFound('The tenant of this credential no longer exists.');
    }
    return { data: [TenantResponse.of(tenant)], has_more: false, next_cursor: null };
  }
}
