import { trace } from '@opentelemetry/api';
import { createLogger, NestPinoLogger, redactUrl } from './logger';
import { startTracing } from './tracing';

function capture(): { lines: () => Record<string, any>[]; write: (line: string) => void } {
  const raw: string[] = [];
  return {
    write: (line) => void raw.push(line),
    lines: () => raw.map((line) => JSON.parse(line) as Record<string, any>),
  };
}

const KEY = `svc_live_${'a1B2c3D4'.repeat(4)}`;
const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl';

describe('redactUrl', () => {
  it.each([
    [`/v1/webhooks/${KEY}`, '/v1/webhooks/[redacted]'],
    [`/v1/webhooks/${KEY}/attempts`, '/v1/webhooks/[redacted]/attempts'],
    [`/x/svc_test_${'z'.repeat(32)}`, '/x/[redacted]'],
    ['/oauth/revoke/svc_rt_abcdefABCDEF0123456789', '/oauth/revoke/[redacted]'],
    [`/v1/x/svc_ps_${'Ab-_'.repeat(10)}abc/y`, '/v1/x/[redacted]/y'],
    [`/console/#portal=svc_pl_${'Ab-_'.repeat(10)}abc`, '/console/#portal=[redacted]'],
    [`/v1/tenants/${JWT}`, '/v1/tenants/[redacted]'],
    ['/v1/webhooks/wh_01m7zsng2qwqh89sat5d7t1vpt', '/v1/webhooks/wh_01m7zsng2qwqh89sat5d7t1vpt'],
  ])('%s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

describe('createLogger', () => {
  it('redacts keys and tokens in every logged URL or path', () => {
    const sink = capture();
    const logger = createLogger('api', 'info', sink);
    logger.info({ path: `/v1/webhooks/${KEY}`, url: `/v1/x/${JWT}?a=1` }, 'request');
    const [line] = sink.lines();
    expect(JSON.stringify(line)).not.toContain(KEY);
    expect(JSON.stringify(line)).not.toContain(JWT);
    expect(line.path).toBe('/v1/webhooks/[redacted]');
  });

  it('redacts portal link and session tokens in fields named after them (ADR 0042)', () => {
    const sink = capture();
    const link = `svc_pl_${'L'.repeat(43)}`;
    const session = `svc_ps_${'S'.repeat(43)}`;
    createLogger('api', 'info', sink).info({ token: link, body: { session_token: session } }, 'x');
    const [line] = sink.lines();
    expect(JSON.stringify(line)).not.toContain(link);
    expect(JSON.stringify(line)).not.toContain(session);
  });

  it('logs an Error with its message and stack, never as {}', () => {
    const sink = capture();
    const logger = createLogger('auth', 'info', sink);
    new NestPinoLogger(logger).error(new Error('AUTH_SIGNING_KEYS: is required'));
    logger.error({ err: new Error('boom') }, 'failed');
    const [fromNest, direct] = sink.lines();
    expect(fromNest.message).toBe('AUTH_SIGNING_KEYS: is required');
    expect(fromNest.err).toMatchObject({
      type: 'Error',
      message: 'AUTH_SIGNING_KEYS: is required',
      stack: expect.stringContaining('logger.spec'),
    });
    expect(fromNest.service).toBe('auth');
    expect(direct.err).toMatchObject({ message: 'boom', stack: expect.any(String) });
  });
});

describe('trace and span ids in logs', () => {
  it('adds trace_id, span_id and trace_flags while a span is active, and nothing outside one', async () => {
    const tracing = startTracing('log-test', {});
    try {
      const out = capture();
      const logger = createLogger('api', 'info', out);
      logger.info('outside');
      const span = trace.getTracer('test').startActiveSpan('work', (active) => {
        logger.info({ context: 'http' }, 'inside');
        active.end();
        return active;
      });
      const [outside, inside] = out.lines();
      expect(outside).not.toHaveProperty('trace_id');
      expect(outside).not.toHaveProperty('span_id');
      expect(inside).toMatchObject({
        message: 'inside',
        context: 'http',
        trace_id: span.spanContext().traceId,
        span_id: span.spanContext().spanId,
        trace_flags: '01',
      });
      expect(inside.trace_id).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      await tracing.shutdown();
    }
  });
});
