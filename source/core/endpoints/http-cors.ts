/**
 * CORS for the browser pages `serve --http` takes (hangar.httpAllowedOrigins,
 * and loopback pages on a loopback endpoint). Taking a page's request is not
 * enough for the page to use it: a browser first sends a preflight (`OPTIONS`
 * with `Access-Control-Request-Method`) for every MCP request, which carries
 * `Content-Type: application/json` and MCP's own headers, and it lets the
 * page read an answer only if the answer names the page's origin in
 * `Access-Control-Allow-Origin`, and read `Mcp-Session-Id` only if it is
 * exposed. An origin that is not allowed gets none of this: its requests are
 * refused with 403 before they get here (http-endpoint.ts `checkOrigin`).
 */
import type http from 'node:http';

/** What a page may send when the preflight does not list what it will send. */
const defaultAllowedHeaders = 'Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name, X-Correlation-ID, traceparent, tracestate, baggage';

/** The answer headers a page needs to read: the session id above all. */
const exposedHeaders = 'Mcp-Session-Id, MCP-Protocol-Version, X-Correlation-ID, WWW-Authenticate';

/** How long a browser may reuse a preflight's answer, in seconds. */
const preflightMaxAgeSeconds = 600;

/** Makes the answer to a request from `origin`, an allowed page, readable by that page; true, for the origin check's use. */
export function allowOrigin(res: http.ServerResponse, origin: string): true {
	res.setHeader('Access-Control-Allow-Origin', origin);
	res.setHeader('Access-Control-Expose-Headers', exposedHeaders);
	res.setHeader('Vary', 'Origin');
	return true;
}

/**
 * Answers a browser's preflight from an allowed page with 204 and what it
 * may send (`methods`, and the headers it asked for); true when `req` was
 * one. Asked before the token check: a preflight never carries credentials.
 */
export function answeredPreflight(req: http.IncomingMessage, res: http.ServerResponse, methods: string): boolean {
	if (req.method !== 'OPTIONS' || req.headers.origin === undefined || req.headers['access-control-request-method'] === undefined) return false;
	const asked = req.headers['access-control-request-headers'];
	// Header names only (a token list): anything else is not echoed.
	const headers = typeof asked === 'string' && /^[\w-]+(?:\s*,\s*[\w-]+)*$/.test(asked.trim()) ? asked.trim() : defaultAllowedHeaders;
	res.writeHead(204, {'Access-Control-Allow-Methods': methods, 'Access-Control-Allow-Headers': headers, 'Access-Control-Max-Age': String(preflightMaxAgeSeconds)}).end();
	return true;
}
