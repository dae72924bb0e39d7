import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

class FieldErrorSchema {
  @ApiProperty({ example: 'url' })
  field!: string;

  @ApiProperty({ example: 'must use the https scheme' })
  detail!: string;
}

/** The OpenAPI description of an RFC 9457 problem document as this service sends it. */
export class ProblemDocument {
  @ApiProperty({
    example: 'urn:svc:problem:invalid-request',
    description: 'Stable identifier of the kind of error.',
  })
  type!: string;

  @ApiProperty({ example: 'The request is not valid' })
  title!: string;

  @ApiProperty({ example: 400 })
  status!: number;

  @ApiPropertyOptional({ example: 'url: must use the https scheme' })
  detail?: string;

  @ApiPropertyOptional({ example: '/v1/webhooks' })
  instance?: string;

  @ApiPropertyOptional({
    type: [FieldErrorSchema],
    description: 'One entry per invalid field (400 only).',
  })
  errors?: FieldErrorSchema[];
}
