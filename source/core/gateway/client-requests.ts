/**
 * Requests an upstream sends a client through its session (sampling,
 * elicitation, roots/list): sent under an id of hangar's, with the
 * upstream's progress token replaced by that id, and settled by the
 * client's answer, its cancel, or the session's close.
 */
import {randomBytes} from 'node:crypto';
import type {JSONRPCMessage} from '@modelcontextprotocol/server';
import {HangarError, JsonRpcCode, JsonRpcError} from '../base/errors.js';
import type {RelayedMethod} from '../link/client-side.js';
import {isPlainObject} from '../wire/message-classifier.js';

/** A request sent to the client for an upstream, awaiting the client's answer. */
type Asked = {
	settle: (message: {result?: unknown; error?: {code?: unknown; message?: unknown; data?: unknown}} | Error) => void;
	onProgress: ((params: Record<string, unknown>) => void) | undefined;
};

/** The ids of requests hangar sends its clients: strings with this prefix. */
const askedPrefix = 'hangar-';

export type AskOptions = {
	signal: AbortSignal;
	/** The client's request this one belongs to: over HTTP it goes on that request's own stream. */
	relatedRequestId: string | number | undefined;
	onProgress?: ((params: Record<string, unknown>) => void) | undefined;
};

export class ClientRequests {
	private readonly asked = new Map<string, Asked>();
	private next = 0;
	/**
	 * Makes this session's request ids its own: a bridge that reconnects to a
	 * new supervisor may still deliver its client's late answer to a request
	 * of the old session, which must not pass for the answer to a new one.
	 */
	private readonly nonce = randomBytes(4).toString('hex');
	/** Why no request can be answered any more (the client's input ended), once it cannot. */
	private unanswerable: string | undefined;

	constructor(
		private readonly send: (message: JSONRPCMessage, options: {relatedRequestId: string | number} | undefined) => void,
		/** Who is asked, for errors ("MCP client \"cursor\""). */
		private readonly who: () => string,
	) {}

	/**
	 * Sends an upstream's request to the client and resolves with the
	 * client's result. Aborting `signal` (the upstream cancelled) sends
	 * notifications/cancelled to the client. Hangar sets no deadline of its
	 * own: the upstream decides how long it waits, and cancels.
	 */
	async ask(method: RelayedMethod, params: Record<string, unknown> | undefined, options: AskOptions): Promise<Record<string, unknown>> {
		if (this.unanswerable !== undefined) throw this.noAnswer(method, this.unanswerable);
		const id = `${askedPrefix}${this.nonce}-${++this.next}`;
		const meta = params?.['_meta'];
		const outgoing = isPlainObject(meta) && meta['progressToken'] !== undefined ? {...params, _meta: {...meta, progressToken: id}} : params;
		const sendOptions = options.relatedRequestId === undefined ? undefined : {relatedRequestId: options.relatedRequestId};
		return new Promise<Record<string, unknown>>((resolve, reject) => {
			const onAbort = () => {
				if (!this.asked.delete(id)) return;
				this.send({jsonrpc: '2.0', method: 'notifications/cancelled', params: {requestId: id, reason: 'the upstream cancelled its request'}} as JSONRPCMessage, sendOptions);
				reject(new Error('cancelled by the upstream'));
			};

			this.asked.set(id, {
				onProgress: options.onProgress,
				settle: message => {
					options.signal.removeEventListener('abort', onAbort);
					if (message instanceof Error) {
						reject(this.noAnswer(method, message.message));
					} else if (message.error !== undefined) {
						const {code, message: text, data} = message.error;
						reject(new JsonRpcError(typeof code === 'number' ? code : JsonRpcCode.InternalError, typeof text === 'string' ? text : 'the client answered with an error', data));
					} else if (isPlainObject(message.result)) {
						resolve(message.result);
					} else {
						reject(new JsonRpcError(JsonRpcCode.InternalError, `the client answered ${method} with a result that is not an object`));
					}
				},
			});
			if (options.signal.aborted) {
				onAbort();
				return;
			}

			options.signal.addEventListener('abort', onAbort, {once: true});
			this.send({jsonrpc: '2.0', id, method, ...(outgoing === undefined ? {} : {params: outgoing})} as JSONRPCMessage, sendOptions);
		});
	}

	/** A response from the client: settles the request of ours it answers (any other is dropped: never answered). */
	answered(message: JSONRPCMessage): void {
		const id = (message as {id?: unknown}).id;
		if (typeof id !== 'string' || !id.startsWith(askedPrefix)) return;
		const asked = this.asked.get(id);
		this.asked.delete(id);
		asked?.settle(message as Parameters<Asked['settle']>[0]);
	}

	/** The client's notifications/progress for one of our requests (its token is our id). */
	progress(params: Record<string, unknown> | undefined): void {
		const token = params?.['progressToken'];
		if (typeof token !== 'string' || !token.startsWith(askedPrefix)) return;
		const {progressToken: _token, ...progress} = params!;
		this.asked.get(token)?.onProgress?.(progress);
	}

	/**
	 * The session closed, or the client's input ended (it can send no answer
	 * then, though hangar may still write it the answers to its calls): every
	 * request still waiting fails, and so does every later one, at once. The
	 * calls they belong to can end, and stop counting as in flight.
	 */
	closeAll(why = 'the client disconnected before answering'): void {
		this.unanswerable ??= why;
		const asked = [...this.asked.values()];
		this.asked.clear();
		for (const request of asked) request.settle(new Error(why));
	}

	private noAnswer(method: RelayedMethod, why: string): HangarError {
		return new HangarError({code: 'NoClientAnswer', operation: method, message: `${why} (${this.who()})`, hint: 'The upstream may send it again; another client can answer it then.'});
	}
}
