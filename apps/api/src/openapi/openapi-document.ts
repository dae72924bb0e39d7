import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ProblemDocument } from '@svc/http';

/** The OpenAPI 3 document, generated from the controllers and DTOs that serve the requests. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('svc webhooks API')
    .setDescription(
      'Webhook endpoint registration and tenant access of the security-operations platform API. Errors are RFC 9457 problem documents (application/problem+json).',
    )
    .setVersion('v1')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description:
          'API key (svc_live_... or svc_test_...), OAuth access token, or portal session token (svc_ps_...)',
      },
      'api_key',
    )
    .build();
  return SwaggerModule.createDocument(app, config, { extraModels: [ProblemDocument] });
}
