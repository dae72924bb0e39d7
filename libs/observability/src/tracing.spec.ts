import { headers } from '@nats-io/nats-core';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import {
  extractTraceContext,
  injectTraceContext,
  startTracing,
  type Tracing,
  tracesUrl,
} from './tracing';

describe('tracing', () => {
  let tracing: Tracing | undefined;

  afterEach(async () => {
    await tracing?.shutdown();
    tracing = undefined;
  });

  it('round-trips a span context through real NATS headers', () => {
    const exporter = new InMemorySpanExporter();
    tracing = startTracing('test', { exporter });
    const span = trace.getTracer('test').startSpan('publish', { kind: SpanKind.PRODUCER });
    const sent = span.spanContext();
    const hdrs = headers();
    injectTraceContext(hdrs, trace.setSpan(context.active(), span));
    span.end();

    expect(hdrs.get('traceparent')).toBe(`00-${sent.traceId}-${sent.spanId}-01`);
    const received = trace.getSpanContext(extractTraceContext(hdrs));
    expect(received).toMatchObject({
      traceId: sent.traceId,
      spanId: sent.spanId,
      isRemote: true,
    });
    expect(exporter.getFinishedSpans().map((finished) => finished.name)).toEqual(['publish']);
  });

  it('injects the active span by default', () => {
    tracing = startTracing('test', {});
    trace.getTracer('test').startActiveSpan('outer', (span) => {
      const hdrs = headers();
      injectTraceContext(hdrs);
      expect(trace.getSpanContext(extractTraceContext(hdrs))?.spanId).toBe(
        span.spanContext().spanId,
      );
      span.end();
    });
  });

  it('reads a traceparent whatever the case of the header name', () => {
    tracing = startTracing('test', {});
    const hdrs = headers();
    hdrs.set('Traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(trace.getSpanContext(extractTraceContext(hdrs))).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
    });
  });

  it('gives the root context for a message without headers or trace context', () => {
    tracing = startTracing('test', {});
    expect(trace.getSpanContext(extractTraceContext(undefined))).toBeUndefined();
    expect(trace.getSpanContext(extractTraceContext(headers()))).toBeUndefined();
  });

  it('writes nothing when tracing was never started', () => {
    const hdrs = headers();
    injectTraceContext(hdrs);
    expect(hdrs.keys()).toEqual([]);
  });

  it('refuses a second start until the first is shut down', async () => {
    tracing = startTracing('first', {});
    expect(() => startTracing('second', {})).toThrow(/already started/);
    await tracing.shutdown();
    tracing = startTracing('second', {});
  });

  it.each([
    ['http://collector:4318', 'http://collector:4318/v1/traces'],
    ['http://collector:4318/', 'http://collector:4318/v1/traces'],
    ['https://otel.example/otlp', 'https://otel.example/otlp/v1/traces'],
  ])('sends spans from base %s to %s', (endpoint, url) => {
    expect(tracesUrl(endpoint)).toBe(url);
  });
});
