/**
 * The HTTP endpoint's body limits, in process: a body over maxMessageBytes
 * that never ends (or ends too slowly) is still answered with 413, after the
 * drain deadline, and its connection is closed.
 */
import {once} from 'node:events';
import http from 'node:http';
import {afterEach, describe, expect, it} from 'vitest';
import {silentLogger} from '../../source/core/base/logger.js';
import {HttpEndpoint, drainLimits} from '../../source/core/endpoints/http-endpoint.js';
import {fixture} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

const endpoints: HttpEndpoint[] = [];
const drainMs = drainLimits.ms;
afterEach(async () => {
	drainLimits.ms = drainMs;
	await Promise.all(endpoints.splice(0).map(async endpoint => endpoint.close()));
	await closeAll();
});

describe('HTTP body limits', () => {
	it('answers an endless body over the limit with 413 once the drain deadline passes, and closes the connection', async () => {
		drainLimits.ms = 300;
		const t = await startSupervisor({fx: fixture('normal')}, {maxMessageBytes: 1024}, {launch: false});
		const endpoint = await HttpEndpoint.listen({supervisor: t.supervisor, logger: silentLogger, host: '127.0.0.1', port: 0, token: undefined});
		endpoints.push(endpoint);
		const request = http.request(endpoint.url, {method: 'POST', headers: {'Content-Type': 'application/json', Accept: 'application/json, text/event-stream'}});
		request.on('error', () => {});
		// Past the limit, and then nothing more: the body never ends.
		request.write('x'.repeat(4096));
		const [response] = (await once(request, 'response')) as [http.IncomingMessage];
		expect(response.statusCode).toBe(413);
		const chunks: Buffer[] = [];
		for await (const chunk of response) chunks.push(chunk as Buffer);
		expect(JSON.parse(Buffer.concat(chunks).toString('utf8'))).toMatchObject({error: {code: -32_009, message: 'Message too large: the limit is 1024 bytes (hangar.maxMessageBytes)'}});
		if (!request.socket?.destroyed) await once(request.socket!, 'close');
	});
});
