import { ApiProperty } from '@nestjs/swagger';

/** A test event sent, whose attempt was not recorded within the wait: follow it in the log. */
export class TestEventPendingResponse {
  @ApiProperty({ pattern: '^del_', description: 'The delivery of the test event.' })
  delivery_id!: string;

  @ApiProperty({ pattern: '^evt_', description: 'The test event (type webhook.test).' })
  event_id!: string;

  @ApiProperty({
    enum: ['pending'],
    description:
      'No attempt was recorded within the wait (the delivery timeout plus 5 s): the delivery is made as soon as an engine takes it. Its attempt appears in GET /v1/events/{event_id}/deliveries (the Location) and GET /v1/webhooks/{id}/attempts.',
  })
  status!: 'pending';
}
