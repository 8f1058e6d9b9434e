/**
 * How a request to an upstream can fail, as the engine sees it: the
 * upstream's own JSON-RPC error, no answer in time, the caller's cancel, or
 * a lost connection. `UpstreamConnection` maps the SDK's errors to these.
 */
import {JsonRpcError} from '../base/errors.js';

/** A JSON-RPC error the upstream itself answered with (not a transport failure). */
export class UpstreamRpcError extends JsonRpcError {
	constructor(code: number, message: string, data: unknown) {
		super(code, message, data);
		this.name = 'UpstreamRpcError';
	}
}

/** The request got no answer within its timeout; notifications/cancelled has been sent upstream. */
export class UpstreamTimeoutError extends Error {
	constructor(readonly timeoutMs: number) {
		super(`no answer within ${timeoutMs} ms`);
		this.name = 'UpstreamTimeoutError';
	}
}

/** The caller's signal aborted the request; notifications/cancelled has been sent upstream. */
export class RequestCancelledError extends Error {
	constructor() {
		super('cancelled by the caller');
		this.name = 'RequestCancelledError';
	}
}

/** The connection closed under a request (crash, exit, network drop). */
export class ConnectionLostError extends Error {
	constructor(message = 'connection to the upstream closed') {
		super(message);
		this.name = 'ConnectionLostError';
	}
}
