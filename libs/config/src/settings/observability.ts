import { optionalUrl, setting } from '../kinds';
import { section } from '../section';

export const tracing = section({
  name: 'tracing',
  variables: {
    OTEL_EXPORTER_OTLP_ENDPOINT: setting(
      optionalUrl(),
      'OTLP/HTTP endpoint for traces (`<endpoint>/v1/traces`); without it, trace context still propagates',
    ),
  },
  build: (values): { tracing: { otlpEndpoint?: string } } => ({
    tracing: { otlpEndpoint: values.OTEL_EXPORTER_OTLP_ENDPOINT },
  }),
});
