/**
 * Traces end to end: the built CLI's `serve --http` with the standard
 * OTEL_* variables pointing at an OTLP/HTTP receiver on loopback. A client
 * request carries a W3C `traceparent` header; the receiver gets hangar's
 * spans (OTLP JSON) in the client's trace, and the stdio upstream gets the
 * upstream call's span as its parent in `_meta`.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type net from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {fastHangar, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {connectHttp, serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {metaEchoServer} from '../support/trace-upstreams.js';

type OtlpSpan = {traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes: Array<{key: string; value: {stringValue?: string}}>};
type OtlpExport = {resourceSpans: Array<{resource: {attributes: Array<{key: string; value: {stringValue?: string}}>}; scopeSpans: Array<{spans: OtlpSpan[]}>}>};

const receivers: http.Server[] = [];

afterEach(async () => {
	await stopHttpHangars();
	for (const receiver of receivers.splice(0)) receiver.close();
});

/** An OTLP/HTTP trace receiver: every POST to /v1/traces parsed and kept. */
async function otlpReceiver(options: {refuse?: () => boolean} = {}): Promise<{endpoint: string; exports: OtlpExport[]; contentTypes: string[]}> {
	const exports: OtlpExport[] = [];
	const contentTypes: string[] = [];
	const server = http.createServer((req, res) => {
		let text = '';
		req.on('data', chunk => {
			text += chunk;
		});
		req.on('end', () => {
			if (options.refuse?.() === true) {
				// A collector that is up but refuses (misconfigured, overloaded): a 400 is not retried by the exporter.
				res.writeHead(400, {'Content-Type': 'application/json'}).end('{"message":"refused by the test"}');
				return;
			}

			if (req.url === '/v1/traces') {
				contentTypes.push(req.headers['content-type'] ?? '');
				exports.push(JSON.parse(text) as OtlpExport);
			}

			res.writeHead(200, {'Content-Type': 'application/json'}).end('{}');
		});
	});
	await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
	receivers.push(server);
	return {endpoint: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, exports, contentTypes};
}

describe('OTLP traces', () => {
	it('exports a request\'s spans to the OTLP/HTTP endpoint in the trace of the client\'s traceparent header, and the upstream gets its parent in _meta', async () => {
		const receiver = await otlpReceiver();
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {echo: metaEchoServer(dir)}, fastHangar), {
			env: {OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: 'hangar-under-test', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,service.name=overridden'},
		});
		const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
		const traced: typeof fetch = async (input, init) => {
			const headers = new Headers(init?.headers);
			headers.set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`);
			return fetch(input, {...init, headers});
		};

		const {client} = await connectHttp(hangar.url, {fetch: traced});
		await waitFor(async () => (await client.listTools()).tools.some(tool => tool.name === 'echo__meta'), 'echo to list its tools');
		const result = await client.callTool({name: 'echo__meta', arguments: {}});
		const received = JSON.parse((result.content as Array<{text: string}>)[0]!.text) as Record<string, string>;
		await client.close();

		const spans = await waitFor(() => {
			const all = receiver.exports.flatMap(batch => batch.resourceSpans.flatMap(resource => resource.scopeSpans.flatMap(scope => scope.spans)));
			return all.length >= 2 ? all : undefined;
		}, 'the spans to be exported');
		expect(receiver.contentTypes[0]).toMatch(/application\/json/);
		// The resource: OTEL_SERVICE_NAME over OTEL_RESOURCE_ATTRIBUTES' service.name, the rest of those attributes, hangar's version.
		const resource = new Map(receiver.exports[0]!.resourceSpans[0]!.resource.attributes.map(attribute => [attribute.key, attribute.value.stringValue]));
		expect(resource.get('service.name')).toBe('hangar-under-test');
		expect(resource.get('deployment.environment.name')).toBe('staging');
		expect(resource.get('service.version')).toMatch(/^\d+\.\d+\.\d+/);

		// OTLP JSON carries ids as hex strings.
		const server = spans.find(span => span.kind === 2)!;
		const upstreamCall = spans.find(span => span.kind === 3)!;
		expect(server.traceId).toBe(traceId);
		expect(server.parentSpanId).toBe('00f067aa0ba902b7');
		expect(upstreamCall.traceId).toBe(traceId);
		expect(upstreamCall.parentSpanId).toBe(server.spanId);
		const attribute = (span: OtlpSpan, key: string) => span.attributes.find(item => item.key === key)?.value.stringValue;
		expect([attribute(server, 'hangar.upstream'), attribute(server, 'hangar.target'), attribute(server, 'hangar.outcome')]).toEqual(['echo', 'meta', 'ok']);
		expect(attribute(server, 'hangar.correlation_id')).toMatch(/.+/);
		expect(received['traceparent']).toBe(`00-${traceId}-${upstreamCall.spanId}-01`);
	});

	it('batches as the standard OTEL_BSP_* variables say: with OTEL_BSP_MAX_EXPORT_BATCH_SIZE=1 each span goes in an export of its own', async () => {
		const receiver = await otlpReceiver();
		const dir = tempDir();
		const hangar = await serveHttp(writeConfig(dir, {echo: metaEchoServer(dir)}, fastHangar), {
			env: {OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1', OTEL_BSP_SCHEDULE_DELAY: '100'},
		});
		const {client} = await connectHttp(hangar.url);
		await waitFor(async () => (await client.listTools()).tools.some(tool => tool.name === 'echo__meta'), 'echo to list its tools');
		for (let index = 0; index < 3; index++) await client.callTool({name: 'echo__meta', arguments: {}});
		await client.close();
		const spansOf = (batch: OtlpExport) => batch.resourceSpans.flatMap(resource => resource.scopeSpans.flatMap(scope => scope.spans));
		// Three calls, two spans each: six exports (the SDK's default of 512 a batch would send them in one or two).
		await waitFor(() => receiver.exports.flatMap(spansOf).length >= 6 || undefined, 'the six spans to be exported');
		expect(receiver.exports.map(batch => spansOf(batch).length)).toEqual([1, 1, 1, 1, 1, 1]);
	});

	it('says in its log when the spans cannot be exported, naming the endpoint, once, and when they get through again', async () => {
		let refusing = true;
		let refused = 0;
		const receiver = await otlpReceiver({refuse: () => refusing && ++refused > 0});
		const dir = tempDir();
		const logFile = path.join(dir, 'hangar.log');
		const hangar = await serveHttp(writeConfig(dir, {echo: metaEchoServer(dir)}, fastHangar), {
			args: ['--log-file', logFile],
			env: {OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50'},
		});
		const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
		expect(log()).toContain(`exporting OpenTelemetry traces over OTLP/HTTP to ${receiver.endpoint}/v1/traces`);
		const {client} = await connectHttp(hangar.url);
		await waitFor(async () => (await client.listTools()).tools.some(tool => tool.name === 'echo__meta'), 'echo to list its tools');
		for (let index = 1; index <= 3; index++) {
			await client.callTool({name: 'echo__meta', arguments: {}});
			// Each call's spans in a batch of their own: three failed exports in a row.
			await waitFor(() => refused >= index, 'the export to be refused');
		}

		await waitFor(() => /warn \[traces\] cannot export traces to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: .+Spans are dropped until it answers; check OTEL_EXPORTER_OTLP_ENDPOINT/.test(log()), 'the failure to be logged');
		refusing = false;
		await client.callTool({name: 'echo__meta', arguments: {}});
		await waitFor(() => log().includes(`traces reach ${receiver.endpoint}/v1/traces again`), 'the recovery to be logged');
		await waitFor(() => receiver.exports.length > 0, 'the spans to arrive');
		await client.close();
		expect(log().match(/cannot export traces/g)).toHaveLength(1);
	});
});
