import {
  context as otelContext,
  defaultTextMapGetter,
  isSpanContextValid,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import type { IncomingMessage, ServerResponse } from 'node:http';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const TRACER_NAME = '@svc/http';

/**
 * The W3C trace context (`traceparent`, `tracestate`), read with the propagator itself rather
 * than through the global API: a caller's trace id reaches the request's log line even in a
 * process that registered no propagator (the test harness runs apps without startTracing).
 */
const W3C = new W3CTraceContextPropagator();

const SPANS = new WeakMap<IncomingMessage, Span>();

/**
 * Each request of a public port in a server span of its own, a child of the caller's
 * `traceparent` when it sends one: the request, its log lines (the logger's mixin) and what it
 * publishes run in that span's context, and the access log line names it (requestSpanFields).
 * Tracing started (runService, with or without an OTLP endpoint): the span is new, its parent
 * the caller's. Not started: the caller's span context is carried as it came, so the line still
 * has the caller's trace id.
 */
export function traceRequests(handler: Handler): Handler {
  return (request, response) => {
    const parent = W3C.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
    // Looked up per request: a tracer taken earlier would stay bound to a provider shut down since.
    const span = trace
      .getTracer(TRACER_NAME)
      .startSpan(
        request.method ?? 'HTTP',
        { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: request.method } },
        parent,
      );
    SPANS.set(request, span);
    response.once('close', () => {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
      if (response.statusCode >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    otelContext.with(trace.setSpan(parent, span), () => handler(request, response));
  };
}

/** Names the request's span by its route template, once the router has found it. */
export function nameRequestSpan(request: IncomingMessage, method: string, route: string): void {
  const span = SPANS.get(request);
  span?.updateName(`${method} ${route}`);
  span?.setAttribute(ATTR_HTTP_ROUTE, route);
}

/**
 * `trace_id`, `span_id` and `trace_flags` of the request's span, for its access log line (the
 * field names of the logger's mixin, activeSpanFields); none for a request without a valid one.
 */
export function requestSpanFields(request: IncomingMessage): Record<string, string> {
  const spanContext = SPANS.get(request)?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) {
    return {};
  }
  return {
    trace_id: spanContext.traceId,
    span_id: spanContext.spanId,
    trace_flags: `0${spanContext.traceFlags.toString(16)}`.slice(-2),
  };
}
