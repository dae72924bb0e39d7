import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController, OpenAPIObject } from '@nestjs/swagger';
import { PublicRoute } from '@svc/http';

/** Holds the document generated from the controllers once the app is assembled. */
export class OpenApiDocument {
  value: OpenAPIObject | undefined;
}

@ApiExcludeController()
@PublicRoute()
@Controller('v1')
export class OpenApiController {
  constructor(private readonly document: OpenApiDocument) {}

  @Get('openapi.json')
  get(): OpenAPIObject | undefined {
    return this.document.value;
  }
}
