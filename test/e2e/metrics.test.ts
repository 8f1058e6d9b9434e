/**
 * Prometheus metrics end to end: the built CLI's `serve --http`, scripted
 * traffic through the SDK's Streamable HTTP client, and `/metrics` read
 * with a Prometheus text parser; `hangar.metricsPort` on a supervisor
 * without an HTTP endpoint.
 */
import http from 'node:http';
import {afterEach, describe, expect, it} from 'vitest';
import {fastHangar, fixture, freePort, openHangar, closeHangars, rpcError, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {connectHttp, serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {histogram, parseMetrics, samples, total} from '../support/prometheus.js';

const token = 'test-token-0123456789abcdef';

afterEach(async () => {
	await stopHttpHangars();
	await closeHangars();
});

describe('metrics', () => {
	it('counts every call of scripted traffic at /metrics on serve --http, behind the same token as /mcp, with consistent histograms', async () => {
		const dir = tempDir();
		// A call past fx's deadline fails with hangar's CallTimeout.
		const hangar = await serveHttp(writeConfig(dir, {fx: fixture('normal', [], {lazy: false, callTimeoutSeconds: 0.3})}, fastHangar), {env: {MCP_HANGAR_TOKEN: token}});
		const {client} = await connectHttp(hangar.url, {token});
		await waitFor(async () => (await client.listTools()).tools.some(tool => tool.name === 'fx__echo'), 'fx to list its tools');

		for (let index = 0; index < 7; index++) await client.callTool({name: 'fx__echo', arguments: {message: `call ${index}`}});
		for (let index = 0; index < 3; index++) expect((await client.callTool({name: 'fx__fail', arguments: {}})).isError).toBe(true);
		for (let index = 0; index < 2; index++) await rpcError(client.callTool({name: 'fx__sleep', arguments: {ms: 3000}}));

		expect((await fetch(`${hangar.origin}/metrics`)).status).toBe(401);
		const response = await fetch(`${hangar.origin}/metrics`, {headers: {Authorization: `Bearer ${token}`}});
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
		const text = await response.text();
		const families = parseMetrics(text);

		expect(total(families, 'hangar_upstream_calls_total', {upstream: 'fx', tool: 'echo', outcome: 'ok'})).toBe(7);
		expect(total(families, 'hangar_upstream_calls_total', {upstream: 'fx', tool: 'fail', outcome: 'tool-error'})).toBe(3);
		expect(total(families, 'hangar_upstream_calls_total', {upstream: 'fx', tool: 'sleep', outcome: 'error'})).toBe(2);
		expect(total(families, 'hangar_upstream_calls_total')).toBe(12);
		const failures = samples(families, 'hangar_upstream_call_failures_total', {upstream: 'fx', tool: 'sleep'});
		expect(failures.map(sample => [sample.labels?.['code'], Number(sample.value)])).toEqual([['CallTimeout', 2]]);
		expect(total(families, 'hangar_client_calls_total', {client: 'hangar-http-test'})).toBe(12);

		// One histogram for fx: 12 observations, buckets never decreasing, +Inf equal to the count, a positive sum.
		expect(families.get('hangar_upstream_call_duration_seconds')?.type).toBe('HISTOGRAM');
		const {buckets, count, sum} = histogram(text, 'hangar_upstream_call_duration_seconds', {upstream: 'fx'});
		expect(count).toBe(12);
		for (let index = 1; index < buckets.length; index++) expect(buckets[index]![1]).toBeGreaterThanOrEqual(buckets[index - 1]![1]);
		expect(buckets.at(-1)).toEqual([Number.POSITIVE_INFINITY, 12]);
		// The two timed-out calls took at least fx's 0.3 s deadline each.
		expect(sum).toBeGreaterThanOrEqual(0.6);
		expect(buckets.find(([le]) => le === 0.25)![1]).toBeLessThanOrEqual(10);

		expect(total(families, 'hangar_upstream_state', {upstream: 'fx', state: 'ready'})).toBe(1);
		expect(total(families, 'hangar_upstream_state', {upstream: 'fx'})).toBe(1);
		expect(total(families, 'hangar_upstream_in_flight', {upstream: 'fx'})).toBe(0);
		expect(total(families, 'hangar_upstream_context_tokens', {upstream: 'fx', kind: 'tools'})).toBeGreaterThan(0);
		expect(total(families, 'hangar_client_sessions', {client: 'hangar-http-test'})).toBe(1);
		expect(samples(families, 'hangar_upstream_restarts_total', {upstream: 'fx'}).map(sample => sample.value)).toEqual(['0']);
		// The default process collectors.
		expect(families.get('process_cpu_user_seconds_total')?.type).toBe('COUNTER');
		expect(families.has('nodejs_eventloop_lag_seconds')).toBe(true);
		await client.close();
	});

	it('serves /metrics on hangar.metricsPort (loopback) from a supervisor with no HTTP endpoint', async () => {
		const dir = tempDir();
		const port = await freePort();
		const handle = await openHangar(writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {...fastHangar, metricsPort: port}));
		await waitFor(async () => (await handle.client.listTools()).tools.some(tool => tool.name === 'fx__echo'), 'fx to list its tools');
		for (let index = 0; index < 4; index++) await handle.client.callTool({name: 'fx__echo', arguments: {message: 'hi'}});
		const families = parseMetrics(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
		expect(total(families, 'hangar_upstream_calls_total', {upstream: 'fx', tool: 'echo', outcome: 'ok'})).toBe(4);
		expect((await fetch(`http://127.0.0.1:${port}/mcp`)).status).toBe(404);
		// A page whose name resolves to 127.0.0.1 (DNS rebinding) names itself in Host: refused, as on serve --http.
		expect(await statusWithHost(port, `rebind.example:${port}`)).toBe(403);
		expect(await statusWithHost(port, `localhost:${port}`)).toBe(200);
	});
});

/** GET /metrics on loopback `port` with the Host header `host` (fetch does not let a caller set Host). */
async function statusWithHost(port: number, host: string): Promise<number | undefined> {
	return new Promise((resolve, reject) => {
		const request = http.get({host: '127.0.0.1', port, path: '/metrics', headers: {Host: host}}, response => {
			response.resume();
			resolve(response.statusCode);
		});
		request.on('error', reject);
	});
}
