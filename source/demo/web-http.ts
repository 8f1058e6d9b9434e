/**
 * Node's http request and response as the web-standard Request and Response
 * the v2 SDK's Streamable HTTP server transport speaks
 * (`WebStandardStreamableHTTPServerTransport.handleRequest`), for the demo
 * servers. A dozen lines instead of @modelcontextprotocol/node (and its
 * Hono adapter) for two test upstreams.
 */
import type http from 'node:http';

/** `req` as a web Request (its body already read and parsed by the caller, if any), aborted when the connection closes. */
export function webRequest(req: http.IncomingMessage, res: http.ServerResponse): Request {
	const headers = new Headers();
	for (const [name, value] of Object.entries(req.headers)) {
		for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
	}

	const closed = new AbortController();
	res.on('close', () => closed.abort());
	return new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), {method: req.method ?? 'GET', headers, signal: closed.signal});
}

/** Writes `response` to `res`, streaming its body (an SSE stream stays open until either side ends it). */
export async function sendWebResponse(res: http.ServerResponse, response: Response): Promise<void> {
	res.writeHead(response.status, Object.fromEntries(response.headers));
	if (response.body === null) {
		res.end();
		return;
	}

	res.flushHeaders();
	const reader = response.body.getReader();
	res.on('close', () => {
		reader.cancel().catch(() => {});
	});
	try {
		for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) res.write(chunk.value);
	} catch {
		// The client went away mid-stream.
	}

	res.end();
}
