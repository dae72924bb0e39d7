import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'svc:public-route';

/** Marks a route that answers without credentials (health, metrics, the OpenAPI document). */
export const PublicRoute = () => SetMetadata(PUBLIC_ROUTE, true);
