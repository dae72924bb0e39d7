import { startTracing, type Tracing } from '@svc/observability';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { SpanKind } from '@opentelemetry/api';
import { createServer } from 'node:net';
import { RunningApi, startApi } from '../support';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN_ID}-01`;

/** The access log line ('request') of the request with this id. */
function requestLine(logLines: string[], requestId: string): Record<string, unknown> {
  const lines = logLines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message === 'request' && line.request_id === requestId);
  expect(lines).toHaveLength(1);
  return lines[0];
}

/** A loopback port that nothing listens on: an OTLP endpoint that takes no spans. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the API's request log line carries the caller's trace (issue 29, part 8, item 4)", () => {
  let api: RunningApi | undefined;
  let tracing: Tracing | undefined;
  const logLines: string[] = [];

  afterEach(async () => {
    const [running, started] = [api, tracing];
    api = undefined;
    tracing = undefined;
    logLines.length = 0;
    await running?.close();
    // The OTLP exporter loads its HTTP agent with a dynamic import, which Jest's module system
    // cannot run: its last export fails here, in the test process only.
    await started?.shutdown().catch(() => undefined);
  });

  const get = (headers: Record<string, string>) =>
    fetch(`${api!.baseUrl}/v1/webhooks`, { headers: { 'x-request-id': 'traced-1', ...headers } });

  it('with tracing started and an OTLP endpoint: a server span, child of the caller’s, on the line', async () => {
    const exporter = new InMemorySpanExporter();
    tracing = startTracing('svc-api', {
      otlpEndpoint: `http://127.0.0.1:${await closedPort()}`,
      exporter,
    });
    api = await startApi({ LOG_LEVEL: 'info' }, { logLines });
    const response = await get({ traceparent: TRACEPARENT });
    expect(response.status).toBe(401);

    const line = requestLine(logLines, 'traced-1');
    expect(line).toMatchObject({ trace_id: TRACE_ID, trace_flags: '01', status: 401 });
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(line.span_id).not.toBe(CALLER_SPAN_ID);
    const [server] = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
    expect(server.spanContext()).toMatchObject({ traceId: TRACE_ID, spanId: line.span_id });
    expect(server.parentSpanContext?.spanId).toBe(CALLER_SPAN_ID);
    expect(server.name).toBe('GET /v1/webhooks');
    expect(server.attributes['http.response.status_code']).toBe(401);
  });

  it('with tracing started and no OTLP endpoint: the caller’s trace id on the line', async () => {
    tracing = startTracing('svc-api', {});
    api = await startApi({ LOG_LEVEL: 'info' }, { logLines });
    await get({ traceparent: TRACEPARENT });
    const line = requestLine(logLines, 'traced-1');
    expect(line.trace_id).toBe(TRACE_ID);
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('with tracing started and no traceparent: a trace of its own, on the line', async () => {
    tracing = startTracing('svc-api', {});
    api = await startApi({ LOG_LEVEL: 'info' }, { logLines });
    await get({});
    const line = requestLine(logLines, 'traced-1');
    expect(line.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(line.trace_id).not.toBe(TRACE_ID);
  });

  it('without tracing started at all: still the caller’s trace id on the line', async () => {
    api = await startApi({ LOG_LEVEL: 'info' }, { logLines });
    await get({ traceparent: TRACEPARENT });
    const line = requestLine(logLines, 'traced-1');
    expect(line).toMatchObject({ trace_id: TRACE_ID, span_id: CALLER_SPAN_ID });
  });

  it('ignores a malformed traceparent', async () => {
    api = await startApi({ LOG_LEVEL: 'info' }, { logLines });
    await get({ traceparent: '00-not-a-trace-01' });
    expect(requestLine(logLines, 'traced-1').trace_id).toBeUndefined();
  });
});
