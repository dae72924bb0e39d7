import { Match, type MsgHdrs } from '@nats-io/nats-core';
import {
  context as otelContext,
  type Context,
  propagation,
  ROOT_CONTEXT,
  type TextMapGetter,
  type TextMapSetter,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export interface TracingOptions {
  /** Base URL of an OTLP/HTTP collector (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to /v1/traces. */
  otlpEndpoint?: string;
  /** Receives every span as it ends (tests pass an InMemorySpanExporter). */
  exporter?: SpanExporter;
}

export interface Tracing {
  /** Flushes pending spans and unregisters the globals, so tracing can be started again. */
  shutdown(): Promise<void>;
}

let running = false;

/**
 * Installs the process-wide tracer provider and the W3C trace-context propagator. Without an
 * exporter spans are still created (and so trace ids still travel in NATS headers); they are
 * just not sent anywhere.
 */
export function startTracing(serviceName: string, options: TracingOptions = {}): Tracing {
  if (running) {
    // The OpenTelemetry API keeps the first global provider and silently ignores later ones;
    // refusing loudly beats exporting under the wrong service name.
    throw new Error('tracing is already started in this process; shut the first one down');
  }
  const spanProcessors: SpanProcessor[] = [];
  if (options.otlpEndpoint) {
    spanProcessors.push(
      new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(options.otlpEndpoint) })),
    );
  }
  if (options.exporter) {
    spanProcessors.push(new SimpleSpanProcessor(options.exporter));
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors,
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  running = true;
  return {
    async shutdown() {
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
        propagation.disable();
        otelContext.disable();
        running = false;
      }
    },
  };
}

/** OTEL_EXPORTER_OTLP_ENDPOINT names the collector's base, to which each signal adds its path. */
export function tracesUrl(endpoint: string): string {
  const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  return new URL('v1/traces', base).toString();
}

const natsHeaderSetter: TextMapSetter<MsgHdrs> = {
  set(carrier, key, value) {
    carrier.set(key, value);
  },
};

/** Header names are case-insensitive on the wire; other clients may capitalise them. */
const natsHeaderGetter: TextMapGetter<MsgHdrs> = {
  keys(carrier) {
    return carrier.keys();
  },
  get(carrier, key) {
    const values = carrier.values(key, Match.IgnoreCase);
    if (values.length === 0) {
      return undefined;
    }
    return values.length === 1 ? values[0] : values;
  },
};

/** Writes `traceparent` (and `tracestate`) of the given context into NATS message headers. */
export function injectTraceContext(
  headers: MsgHdrs,
  context: Context = otelContext.active(),
): void {
  propagation.inject(context, headers, natsHeaderSetter);
}

/**
 * The context a received message was published in. It starts from the root, not from whatever
 * span the consuming loop happens to be in, so each message continues its publisher's trace.
 */
export function extractTraceContext(headers: MsgHdrs | undefined): Context {
  return headers ? propagation.extract(ROOT_CONTEXT, headers, natsHeaderGetter) : ROOT_CONTEXT;
}

/** A context's W3C trace headers as a plain object, to store with work that is resumed later. */
export function traceCarrierOf(context: Context): Record<string, string> | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context, carrier);
  return carrier.traceparent ? carrier : null;
}

/** The context a stored carrier describes; the root context when there is none. */
export function contextFromCarrier(carrier: Record<string, string> | null | undefined): Context {
  return carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT;
}
