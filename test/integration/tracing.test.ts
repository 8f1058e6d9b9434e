/**
 * OpenTelemetry traces of routed calls on a real supervisor: spans through
 * an in-memory exporter, their parent/child links to the client's trace
 * context, and the upstream call's context as a stdio upstream receives it
 * (in `_meta`) and as a remote one does (in HTTP headers too).
 */
import {SpanKind, SpanStatusCode} from '@opentelemetry/api';
import {InMemorySpanExporter, SimpleSpanProcessor} from '@opentelemetry/sdk-trace';
import {afterEach, describe, expect, it} from 'vitest';
import {tracerWith} from '../../source/core/engine/observe/tracing.js';
import {tracingEnabled} from '../../source/core/engine/observe/trace-scope.js';
import {LiveRequest} from '../../source/core/engine/request-context.js';
import {parsedAnswer} from '../../source/core/link/connection.js';
import type {Supervisor} from '../../source/core/engine/supervisor.js';
import {tempDir} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';
import {headerRecordingServer, metaEchoServer, type HeaderRecordingServer} from '../support/trace-upstreams.js';

const clientTrace = '0af7651916cd43dd8448eb211c80319c';
const clientSpan = 'b7ad6b7169203331';
const traceparent = `00-${clientTrace}-${clientSpan}-01`;
const servers: HeaderRecordingServer[] = [];

afterEach(async () => {
	await closeAll();
	await Promise.all(servers.splice(0).map(async server => server.close()));
});

async function call(supervisor: Supervisor, server: string, meta: Record<string, unknown> | undefined, tool = 'meta', args: Record<string, unknown> = {}) {
	const context = new LiveRequest({id: 7, method: 'tools/call', meta, correlationId: 'corr-1'});
	const route = {kind: 'tool' as const, upstream: supervisor.upstream(server), localName: tool};
	try {
		// A stdio upstream's result comes as its text (forwarded-result.ts): parsed here to read it.
		return parsedAnswer(await supervisor.call(route, args, context));
	} finally {
		context.end();
	}
}

describe('tracing', () => {
	it('makes a server span under the client\'s traceparent and a client span under it, whose context the stdio upstream receives in _meta', async () => {
		const dir = tempDir();
		const {supervisor} = await startSupervisor({echo: metaEchoServer(dir)}, {}, {launch: false});
		const exporter = new InMemorySpanExporter();
		supervisor.tracing = tracerWith(new SimpleSpanProcessor({exporter}));

		const result = await call(supervisor, 'echo', {traceparent, tracestate: 'vendor=1', baggage: 'user=alice', other: 'kept'});
		const received = JSON.parse((result.content[0] as {text: string}).text) as Record<string, string>;
		const spans = exporter.getFinishedSpans();
		expect(spans).toHaveLength(2);
		const server = spans.find(span => span.kind === SpanKind.SERVER)!;
		const client = spans.find(span => span.kind === SpanKind.CLIENT)!;
		expect(server.spanContext().traceId).toBe(clientTrace);
		expect(server.parentSpanContext?.spanId).toBe(clientSpan);
		expect(client.spanContext().traceId).toBe(clientTrace);
		expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
		expect(server.attributes).toMatchObject({'mcp.method.name': 'tools/call', 'hangar.upstream': 'echo', 'hangar.target': 'meta', 'hangar.instance': 'echo', 'hangar.outcome': 'ok', 'hangar.correlation_id': 'corr-1'});
		expect(client.attributes).toMatchObject({'hangar.upstream': 'echo', 'hangar.outcome': 'ok'});

		// The upstream's parent is the client span; the rest of the client's _meta is forwarded as it was.
		expect(received['traceparent']).toBe(`00-${clientTrace}-${client.spanContext().spanId}-01`);
		expect(received['tracestate']).toBe('vendor=1');
		expect(received['baggage']).toBe('user=alice');
		expect(received['other']).toBe('kept');
	});

	it('starts a new trace for a request without trace context, and marks a failed call with its error code', async () => {
		const dir = tempDir();
		const {supervisor} = await startSupervisor({echo: metaEchoServer(dir)}, {}, {launch: false});
		const exporter = new InMemorySpanExporter();
		supervisor.tracing = tracerWith(new SimpleSpanProcessor({exporter}));
		await call(supervisor, 'echo', undefined);
		await supervisor.act('echo', 'stop', 'a test');
		await expect(call(supervisor, 'echo', undefined)).rejects.toThrow();
		const spans = exporter.getFinishedSpans();
		expect(spans).toHaveLength(4);
		const servers = spans.filter(span => span.kind === SpanKind.SERVER);
		expect(servers[0]!.parentSpanContext).toBeUndefined();
		expect(servers[0]!.spanContext().traceId).not.toBe(servers[1]!.spanContext().traceId);
		// A person stopped it: the call is refused, and both spans say so.
		for (const span of spans.filter(span => span.spanContext().traceId === servers[1]!.spanContext().traceId)) {
			expect(span.attributes).toMatchObject({'hangar.outcome': 'error', 'hangar.error_code': 'UpstreamUnavailable'});
			expect(span.status.code).toBe(2);
		}
	});

	it('marks the spans of a tool call whose result is an error (isError) as failed, with error.type tool_error', async () => {
		const dir = tempDir();
		const {supervisor} = await startSupervisor({echo: metaEchoServer(dir)}, {}, {launch: false});
		const exporter = new InMemorySpanExporter();
		supervisor.tracing = tracerWith(new SimpleSpanProcessor({exporter}));
		expect((await call(supervisor, 'echo', undefined, 'tool-error')).isError).toBe(true);
		const spans = exporter.getFinishedSpans();
		expect(spans).toHaveLength(2);
		for (const span of spans) {
			expect(span.attributes).toMatchObject({'hangar.outcome': 'tool-error', 'error.type': 'tool_error'});
			expect(span.status.code).toBe(SpanStatusCode.ERROR);
		}
	});

	it('masks the config\'s secrets in what a failed call\'s spans carry to the collector, as the calls log does', async () => {
		const dir = tempDir();
		const secret = 'planted-secret-0123456789';
		const {supervisor} = await startSupervisor({echo: {...metaEchoServer(dir), env: {API_TOKEN: secret}}}, {}, {launch: false});
		const exporter = new InMemorySpanExporter();
		const tracer = tracerWith(new SimpleSpanProcessor({exporter}));
		supervisor.tracing = tracer;
		await expect(call(supervisor, 'echo', undefined, 'fail', {message: `the upstream refused ${secret}`})).rejects.toThrow();
		const spans = exporter.getFinishedSpans();
		expect(spans).toHaveLength(2);
		for (const span of spans) {
			expect(span.status.code).toBe(SpanStatusCode.ERROR);
			expect(span.status.message).toContain('the upstream refused');
			expect(JSON.stringify([span.status, span.attributes, span.name])).not.toContain(secret);
		}

		// A resource's URI with a token in its query: the spans name it masked.
		const read = new LiveRequest({id: 8, method: 'resources/read'});
		tracer.begin(read, 'echo', 'https://docs.example/page?access_token=abcdef123456', 'echo').end('ok');
		read.end();
		const readSpans = exporter.getFinishedSpans().slice(2);
		expect(readSpans.map(span => span.attributes['hangar.target'])).toEqual(['https://docs.example/page?access_token=***', 'https://docs.example/page?access_token=***']);
		expect(JSON.stringify(readSpans.map(span => [span.name, span.attributes]))).not.toContain('abcdef123456');
	});

	it('sends a remote upstream the upstream call\'s trace context in HTTP headers as well as in _meta', async () => {
		const remote = await headerRecordingServer();
		servers.push(remote);
		const {supervisor} = await startSupervisor({remote: {url: remote.url}}, {}, {launch: false});
		const exporter = new InMemorySpanExporter();
		supervisor.tracing = tracerWith(new SimpleSpanProcessor({exporter}));
		await call(supervisor, 'remote', {traceparent, tracestate: 'vendor=1'});
		const client = exporter.getFinishedSpans().find(span => span.kind === SpanKind.CLIENT)!;
		const expected = `00-${clientTrace}-${client.spanContext().spanId}-01`;
		expect(remote.calls).toHaveLength(1);
		expect(remote.calls[0]!.headers['traceparent']).toBe(expected);
		expect(remote.calls[0]!.headers['tracestate']).toBe('vendor=1');
		expect((remote.calls[0]!.body['params'] as {_meta: Record<string, string>})._meta['traceparent']).toBe(expected);
	});

	it('forwards a client\'s malformed trace context to a remote upstream in _meta as it came, and copies into headers only what is a valid one', async () => {
		const remote = await headerRecordingServer();
		servers.push(remote);
		const {supervisor} = await startSupervisor({remote: {url: remote.url}}, {}, {launch: false});
		const broken = {traceparent: `00-${clientTrace}-${clientSpan}-01\r\nX-Injected: 1`, tracestate: 'vendor=€'};
		await call(supervisor, 'remote', broken);
		await call(supervisor, 'remote', {traceparent, tracestate: 'bad\nstate', baggage: 'user=alice'});
		expect(remote.calls).toHaveLength(2);
		expect((remote.calls[0]!.body['params'] as {_meta: unknown})._meta).toEqual(broken);
		expect(remote.calls[0]!.headers['traceparent']).toBeUndefined();
		expect(remote.calls[0]!.headers['x-injected']).toBeUndefined();
		// A valid traceparent goes in its header; a field that cannot be a header value stays in _meta only.
		expect(remote.calls[1]!.headers['traceparent']).toBe(traceparent);
		expect(remote.calls[1]!.headers['tracestate']).toBeUndefined();
		expect(remote.calls[1]!.headers['baggage']).toBe('user=alice');
	});

	it('forwards a client\'s traceparent untouched when tracing is off', async () => {
		const dir = tempDir();
		const {supervisor} = await startSupervisor({echo: metaEchoServer(dir)}, {}, {launch: false});
		const result = await call(supervisor, 'echo', {traceparent});
		expect(JSON.parse((result.content[0] as {text: string}).text)).toEqual({traceparent});
	});

	it('is on only when the standard OTEL_* variables ask for OTLP traces', () => {
		expect(tracingEnabled({})).toBe(false);
		expect(tracingEnabled({OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318'})).toBe(true);
		expect(tracingEnabled({OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces'})).toBe(true);
		expect(tracingEnabled({OTEL_TRACES_EXPORTER: 'otlp'})).toBe(true);
		expect(tracingEnabled({OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x'})).toBe(false);
		expect(tracingEnabled({OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp'})).toBe(false);
	});
});
