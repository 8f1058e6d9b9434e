/**
 * A fetch over a keep-alive `http.Agent` of its own, as a separate client
 * process has (in one test process every global fetch shares one pool), that
 * notes the TCP connection (its local port) each request went on: the proof
 * that one client's requests really came on several connections.
 */
import http from 'node:http';
import {Readable} from 'node:stream';

/** A request as it went: its Mcp-Method header and the local port of the connection that carried it. */
export type Carried = {method: string; port: number};

export function pooledFetch(agent = new http.Agent({keepAlive: true}), carried: Carried[] = []): typeof fetch {
	return async (input, init) =>
		new Promise<Response>((resolve, reject) => {
			const url = new URL(input instanceof Request ? input.url : String(input));
			const headers = Object.fromEntries(new Headers(init?.headers).entries());
			const request = http.request(url, {method: init?.method ?? 'GET', headers, agent}, response => {
				carried.push({method: headers['mcp-method'] ?? '', port: response.socket.localPort ?? 0});
				const body = response.statusCode === 202 || response.statusCode === 204 ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
				const responseHeaders = new Headers();
				for (const [key, value] of Object.entries(response.headers)) if (typeof value === 'string') responseHeaders.set(key, value);
				resolve(new Response(body, {status: response.statusCode, headers: responseHeaders}));
			});
			init?.signal?.addEventListener('abort', () => request.destroy(new Error('aborted')), {once: true});
			request.on('error', reject);
			request.end(typeof init?.body === 'string' ? init.body : undefined);
		});
}
