/**
 * The engine's side of what upstreams send their client. A request an
 * upstream makes of its client (sampling, elicitation, roots, or any other)
 * reaches only the client whose request caused it, and its answer returns
 * only there; where hangar cannot tell whose it is, the upstream gets an
 * error that says why, never another client's answer.
 *
 * - `SessionRelay`: the client side of a per-client instance. It has one
 *   client, so every request goes to that session and nowhere else, and it
 *   is told exactly the capabilities that client declared.
 * - `SharedRelay`: the client side of an instance every client shares. A
 *   request belongs to a client when that client's calls are the only ones
 *   in flight on the instance (`CallersInFlight`), or when it names a task
 *   that client created (`related-task`); outside any call, or with calls
 *   of several clients in flight, it is refused. With
 *   "instances": "auto" the first such request teaches the supervisor that
 *   the upstream is client-scoped (`instance-mode.ts`): from then on each
 *   client session gets its own instance.
 *
 * Log messages go to the sessions that asked for them (a per-client
 * instance's to its own session only). One the upstream's transport ties to
 * a call (it came on that call's Streamable HTTP stream) goes to that call's
 * client only, tied to that call.
 */
import type {HangarError} from '../../base/errors.js';
import type {Logger} from '../../base/logger.js';
import {
	declares,
	describeNeed,
	isLoggingLevel,
	neededCapability,
	severity,
	type ClientCapability,
	type NeededCapability,
	type ClientSide,
	type LoggingLevel,
	type RelayOptions,
	type RelayedMethod,
} from '../../link/client-side.js';
import type {ClientRecord, ClientRegistry, HeldCallPeer} from './clients.js';
import {describeClient, type Caller, type CallersInFlight} from './calls-in-flight.js';
import type {InstancesSetting} from './instance-mode.js';
import {clientUnknown, noClientAnswer} from '../refusals.js';
import {ClientTaskBook} from './client-tasks.js';
import {relatedTaskKey} from '../../link/upstream-asks.js';
import {isPlainObject} from '../../wire/message-classifier.js';

/**
 * Sends an upstream's log message to one session, when its level admits it;
 * `logger` names the upstream. `requestId`: the session's call it belongs to.
 */
function logTo(record: ClientRecord, server: string, params: Record<string, unknown>, level: LoggingLevel, requestId?: string | number): void {
	if (record.peer === undefined || record.logLevel === undefined || severity(level) < severity(record.logLevel)) return;
	const own = params['logger'];
	record.peer.log({...params, logger: typeof own === 'string' && own !== '' ? `${server}/${own}` : server}, server, requestId);
}

/**
 * Whether a session's client can answer a request that needs `need`: what it
 * declared at initialize, read to the sub-capability (`sampling.tools`,
 * `elicitation.url`), once it has initialized. A session only known by its
 * capability kinds counts as having declared them empty.
 */
function canAnswer(record: ClientRecord, need: NeededCapability): boolean {
	// The relayed kinds are set once the client has initialized: before that it is asked nothing.
	if (!record.capabilities.has(need.capability)) return false;
	const declared = record.declaredCapabilities[need.capability] === undefined ? {[need.capability]: {}} : record.declaredCapabilities;
	return declares(declared, need);
}

/** Why a session's client cannot answer: the capability it did not declare, named to the sub-capability. */
function notDeclared(record: ClientRecord, who: string, need: NeededCapability): string {
	if (need.feature === undefined || !record.capabilities.has(need.capability)) return `${who} did not declare the "${need.capability}" capability`;
	return `${who} did not declare "${describeNeed(need)}" (the capability the request needs)`;
}

/**
 * An upstream's request made during a call hangar holds for a modern
 * (2026-07-28) client: held, and asked of the client in the call's
 * `input_required` answer, when the client's request declared the
 * capability in its `_meta`; refused otherwise, in words that fit that era.
 */
async function askHeld(held: HeldCallPeer, server: string, method: RelayedMethod, params: Record<string, unknown> | undefined, options: RelayOptions, logger: Logger): Promise<Record<string, unknown>> {
	const need = neededCapability(method, params);
	if (method.startsWith('tasks/') || !declares(held.capabilities, need)) {
		const why = method.startsWith('tasks/')
			? `${held.who}, whose call it belongs to, speaks 2026-07-28, where a task's own requests cannot be asked of the client`
			: `${held.who}, whose call it belongs to, did not declare "${describeNeed(need)}" in the clientCapabilities of its request's _meta`;
		logger.info(`upstream "${server}" sent ${method}, answered with an error: ${why}`);
		throw noClientAnswer(server, method, need.capability, why, {clients: 1, era: '2026-07-28'});
	}

	logger.debug(`holding ${method} from upstream "${server}" for ${held.who}: asked in its call's input_required answer`);
	return held.ask(server, method, params, options.signal, options.inputKey);
}

/** The task id an upstream's request names in its `related-task` `_meta` (hangar's id by then, when hangar handed it out). */
function relatedTaskId(params: Record<string, unknown> | undefined): string | undefined {
	const meta = params?.['_meta'];
	const related = isPlainObject(meta) ? meta[relatedTaskKey] : undefined;
	const taskId = isPlainObject(related) ? related['taskId'] : undefined;
	return typeof taskId === 'string' ? taskId : undefined;
}

/**
 * The held peer collecting the questions of the task an upstream's request
 * names in its `related-task` `_meta` (hangar's id by then: upstream-asks.ts
 * maps the upstream's own), among `records`' held calls: a modern client's
 * 2025 task (gateway/task-inputs.ts). Hangar's task ids are random and its
 * own, and the instance must be the one that runs the task, so the request
 * reaches that task's owner alone, whatever else is in flight.
 */
function heldForTask(records: Iterable<ClientRecord>, instance: string, params: Record<string, unknown> | undefined): HeldCallPeer | undefined {
	const taskId = relatedTaskId(params);
	if (taskId === undefined) return undefined;
	for (const record of records) {
		for (const held of record.heldCalls.values()) if (held.task?.id === taskId && held.task.instance === instance) return held;
	}

	return undefined;
}

/** The URL elicitations awaiting completion that can be held per relay: past it, the oldest is forgotten. */
export const pendingElicitationLimit = 256;

/**
 * Which client got each URL-mode elicitation (by its `elicitationId`), so
 * that the upstream's `notifications/elicitation/complete` reaches that
 * client and no other. Bounded: a completion hangar has forgotten, or never
 * saw the request of, is dropped (a client ignores unknown ids anyway).
 */
export class ElicitationBook {
	private readonly sessions = new Map<string, ClientRecord>();

	/** Notes the client a relayed `elicitation/create` went to, when it is URL mode. */
	sent(method: RelayedMethod, params: Record<string, unknown> | undefined, record: ClientRecord): void {
		const id = params?.['elicitationId'];
		if (method !== 'elicitation/create' || params?.['mode'] !== 'url' || typeof id !== 'string') return;
		this.sessions.delete(id);
		this.sessions.set(id, record);
		if (this.sessions.size > pendingElicitationLimit) this.sessions.delete(this.sessions.keys().next().value!);
	}

	/** The client a completion belongs to (once: it completes the elicitation), or undefined. */
	complete(params: Record<string, unknown> | undefined): ClientRecord | undefined {
		const id = params?.['elicitationId'];
		if (typeof id !== 'string') return undefined;
		const record = this.sessions.get(id);
		this.sessions.delete(id);
		return record;
	}

	get size(): number {
		return this.sessions.size;
	}
}

/** Relays a completion notification to the client that got its elicitation, only that one; logs a drop. */
function relayCompletion(book: ElicitationBook, method: string, params: Record<string, unknown> | undefined, logger: Logger, from: string): void {
	if (method !== 'notifications/elicitation/complete') return;
	const record = book.complete(params);
	if (record?.peer === undefined) {
		logger.debug(`${from} sent ${method} for elicitation ${JSON.stringify(params?.['elicitationId'])}, which no connected client was asked: dropped`);
		return;
	}

	record.peer.notify(method, params);
}

/** What a shared instance's relay needs of its upstream, read when a request arrives. */
export type SharedHost = {
	/** The config's "instances". */
	readonly setting: InstancesSetting;
	/** Whether the upstream already runs per client (an "auto" one that learned it, or "per-client": this is its template). */
	runsPerClient(): boolean;
	/** The calls in flight on this instance, by caller. */
	readonly callers: CallersInFlight;
	/** The upstream sent a client-scoped request: an "auto" one runs per client from now on. */
	clientScoped(method: RelayedMethod): void;
	/** The session that created the task hangar handed out as `taskId` on this instance (a 2025 tasks/call of a client's), if any. */
	taskOwner(taskId: string): ClientRecord | undefined;
};

/**
 * What a shared instance is told its client can do: only what hangar can
 * honour for whichever client it would ask. Sampling (with tools) and
 * elicitation (form and URL, whose completion hangar routes back to the
 * client that got it) reach the caller when it declared them, to the
 * sub-capability; a caller that did not gets `NoClientAnswer`. Roots never:
 * one client's roots would scope the instance for all of them. An "auto"
 * upstream is told roots too, so that an upstream that scopes itself by
 * roots asks at once and is moved to per-client instances before it serves
 * anyone. A per-client server's template is told the "auto" set, so it lists
 * the tools of the most capable client (each session's own instance lists
 * its own). Tasks: sampling and elicitation may come as tasks (a client
 * without `tasks` answers them as plain requests, as the protocol says), and
 * the upstream's tasks/* about them go to the caller like the request did.
 */
const sharedTasks = {list: {}, cancel: {}, requests: {sampling: {createMessage: {}}, elicitation: {create: {}}}};
export const sharedCapabilities: Record<'auto' | 'shared', Record<string, unknown>> = {
	auto: {sampling: {tools: {}}, elicitation: {form: {}, url: {}}, roots: {listChanged: true}, tasks: sharedTasks},
	shared: {sampling: {tools: {}}, elicitation: {form: {}, url: {}}, tasks: sharedTasks},
};

export class SharedRelay implements ClientSide {
	private readonly elicitations = new ElicitationBook();
	private readonly clientTasks = new ClientTaskBook();

	constructor(
		private readonly clients: ClientRegistry,
		private readonly host: SharedHost,
		private readonly logger: Logger,
	) {}

	get capabilities(): Record<string, unknown> {
		// A per-client template runs only to learn its tools: it is told what "auto" is told, so it lists what a capable client sees.
		return this.host.setting === 'shared' ? sharedCapabilities.shared : sharedCapabilities.auto;
	}

	async request(server: string, method: RelayedMethod, params: Record<string, unknown> | undefined, options: RelayOptions): Promise<Record<string, unknown>> {
		const host = this.host;
		const need = neededCapability(method, params);
		const wasShared = !host.runsPerClient();
		if (host.setting === 'auto') host.clientScoped(method);
		const learned = host.setting === 'auto' && wasShared;
		const forTask = heldForTask(this.clients.sessions(), server, params);
		if (forTask !== undefined) return askHeld(forTask, server, method, params, options, this.logger);
		const cause = this.causeOf(server, method, params, options);
		if ('why' in cause) {
			const hint =
				host.setting === 'shared'
					? `Set "instances": "auto" or "per-client" for "${server}" in the config, so each client session gets its own instance and every request it sends has one client.`
					: learned
						? `"${server}" runs one instance per client session from now on ("instances": "auto" learned it from this request); retry the call that caused it.`
						: `Each client session gets its own instance of "${server}": a request it sends from there reaches its own client.`;
			throw this.refuse(server, method, cause.why, hint);
		}

		const {client} = cause.caller;
		if (method === 'roots/list' && host.setting === 'shared') {
			throw this.refuse(server, method, `it runs one instance for every client ("instances": "shared"), and one client's roots would scope it for all of them`, `Set "instances": "auto" or "per-client" for "${server}" in the config, so each client session's instance gets that client's roots.`);
		}

		const {requestId} = cause.caller;
		const held = requestId === undefined ? undefined : client.heldCalls.get(requestId);
		if (held !== undefined) return askHeld(held, server, method, params, options, this.logger);

		if (client.peer === undefined) throw this.unable(server, method, need.capability, `${describeClient(client)}, whose call it belongs to, has disconnected`);
		if (!canAnswer(client, need)) throw this.unable(server, method, need.capability, notDeclared(client, `${describeClient(client)}, whose call it belongs to,`, need));
		this.logger.debug(`relaying ${method} from upstream "${server}" to ${describeClient(client)}, ${requestId === undefined ? 'about its task' : `for its call ${JSON.stringify(requestId)}`}`);
		this.elicitations.sent(method, params, client);
		const answer = await client.peer.request(method, params, {signal: options.signal, relatedRequestId: requestId, onProgress: options.onProgress});
		this.clientTasks.answered(params, answer, client);
		return answer;
	}

	/**
	 * The call the request belongs to, or why hangar cannot tell. A request
	 * that names a task in its `related-task` `_meta` belongs to the session
	 * that created that task (hangar's task ids are its own and random, so
	 * the upstream can only name one it was given), and a poll of a task a
	 * client runs for the upstream (`client-tasks.ts`) to that client,
	 * whatever other sessions have in flight: tied to that session's call the transport names, else
	 * to its latest call on the instance (its tasks/result, say), else to
	 * none (it is sent to the session on its own).
	 */
	private causeOf(server: string, method: RelayedMethod, params: Record<string, unknown> | undefined, options: RelayOptions): {caller: Caller | {client: ClientRecord; requestId: undefined}} | {why: string} {
		const taskId = relatedTaskId(params);
		const owner = taskId === undefined ? this.clientTasks.ownerOf(method, params) : this.host.taskOwner(taskId);
		if (owner !== undefined) {
			const named = options.origin?.kind === 'call' ? (options.origin.caller as Caller | undefined) : undefined;
			return {caller: named?.client === owner ? named : (this.host.callers.latestOf(owner) ?? {client: owner, requestId: undefined})};
		}

		if (options.origin?.kind === 'outside') return {why: `it came outside any call (on the upstream's own event stream), so no client caused it`};
		if (options.origin?.kind === 'call') {
			const caller = options.origin.caller as Caller | undefined;
			return caller === undefined ? {why: 'it belongs to a call hangar made itself, not a client'} : {caller};
		}

		const attribution = this.host.callers.attribute(options.hangarRequests);
		if (attribution.kind === 'idle') return {why: `no client has a call to "${server}" in flight, so no client caused it`};
		if (attribution.kind === 'unknown') return {why: attribution.why};
		// A modern client's several calls (over HTTP, on several connections): the one that asked gets the question in its answer, so never a guess.
		const only = attribution.client;
		const calls = this.host.callers.callsOf(only);
		if (calls.length > 1 && calls.some(call => only.heldCalls.has(call.requestId))) {
			return {why: `${calls.length} calls of ${describeClient(only)} are in flight on its shared instance, and nothing in the request says which one it belongs to`};
		}

		return {caller: this.host.callers.latestOf(only)!};
	}

	/** `notifications/elicitation/complete`: to the client that got the elicitation, only that one. */
	notify(method: string, params: Record<string, unknown> | undefined): void {
		relayCompletion(this.elicitations, method, params, this.logger, 'a shared instance');
	}

	/**
	 * Sends the message to the client of the call it came with (`caller`),
	 * else to the one session it can only be for (`CallersInFlight.attribute`):
	 * the session whose requests are the only ones in flight on this
	 * instance, or, with nothing in flight at all, the only session there is
	 * when no other session's request was the last to run here.
	 * Otherwise (requests of several sessions in flight, a call cancelled
	 * that may still run, a request of hangar's own in flight, or several
	 * sessions and nothing in flight) nothing tells whose it is, and no
	 * client gets it: it could carry one client's data to another. It is in
	 * the upstream's log either way. A session gets it when its level admits
	 * it, with `logger` naming the upstream: "<server>", or "<server>/<its own logger>".
	 */
	log(server: string, params: Record<string, unknown>, caller?: unknown, hangarRequests?: number): void {
		const level = params['level'];
		if (!isLoggingLevel(level)) return;
		const call = caller as Caller | undefined;
		if (call !== undefined) {
			logTo(call.client, server, params, level, call.requestId);
			return;
		}

		const only = this.onlySession(hangarRequests);
		if (only !== undefined) logTo(only, server, params, level);
	}

	/**
	 * The session an untied message of this instance can only be for (see
	 * `log`), if there is one. With nothing in flight, the only session, unless
	 * another session's request was the last to run here: the message may be
	 * about that one, gone since.
	 */
	private onlySession(hangarRequests: number | undefined): ClientRecord | undefined {
		const attribution = this.host.callers.attribute(hangarRequests);
		if (attribution.kind !== 'idle') return attribution.kind === 'one' ? attribution.client : undefined;
		const only = this.clients.size === 1 ? this.clients.sessions().next().value : undefined;
		const last = this.host.callers.lastSession;
		return last === undefined || last === only ? only : undefined;
	}

	get logLevel(): LoggingLevel | undefined {
		return this.clients.logLevel;
	}

	onLogLevel(listener: (level: LoggingLevel | undefined) => void): () => void {
		this.clients.on('logLevel', listener);
		return () => this.clients.off('logLevel', listener);
	}

	/** A shared instance is told no roots (see `sharedCapabilities`): a client's roots changing is not its business. */
	onRootsChanged(_listener: () => void): () => void {
		return () => {};
	}

	private refuse(server: string, method: RelayedMethod, why: string, hint: string): HangarError {
		this.logger.info(`upstream "${server}" sent ${method}, answered with an error: hangar cannot tell which client it belongs to: ${why}`);
		return clientUnknown(server, method, why, hint, {clients: this.clients.size, instances: this.host.setting});
	}

	private unable(server: string, method: RelayedMethod, capability: ClientCapability, why: string): HangarError {
		this.logger.info(`upstream "${server}" sent ${method}, answered with an error: ${why}`);
		return noClientAnswer(server, method, capability, why, {clients: [...this.clients.sessions()].length});
	}
}

/** What a per-client instance is told its client can do: exactly what that client declared at initialize (`tasks` included: its tasks/* requests are relayed). */
export function sessionCapabilities(declared: Readonly<Record<string, unknown>>): Record<string, unknown> {
	return {...declared};
}

/** The client side of one per-client instance: its own session, nobody else. */
export class SessionRelay implements ClientSide {
	private readonly elicitations = new ElicitationBook();

	constructor(
		private readonly clients: ClientRegistry,
		private readonly record: ClientRecord,
		/** The instance's name, for messages (`<server>#<n>`). */
		private readonly instance: string,
		private readonly logger: Logger,
	) {}

	get capabilities(): Record<string, unknown> {
		return sessionCapabilities(this.record.declaredCapabilities);
	}

	get clientInfo(): Readonly<Record<string, unknown>> | undefined {
		return this.record.clientInfo;
	}

	get protocolVersion(): string | undefined {
		// A 2026-07-28 client's instance negotiates by the modern era's rules (modern-mode.ts), not by a 2025 version.
		return this.record.modern ? undefined : (this.record.protocolVersion ?? undefined);
	}

	async request(server: string, method: RelayedMethod, params: Record<string, unknown> | undefined, options: RelayOptions): Promise<Record<string, unknown>> {
		const need = neededCapability(method, params);
		const {record} = this;
		const who = record.name === null ? `its client (${record.label})` : `its client "${record.name}" (${record.label})`;
		// The call it belongs to: the one its transport names, or the session's call in flight to this server (over HTTP
		// the request then travels on that call's stream). A modern client's question goes into that call's answer, so with
		// several of its calls in flight and none named, hangar refuses rather than guess.
		const forTask = heldForTask([record], this.instance, params);
		if (forTask !== undefined) return askHeld(forTask, this.instance, method, params, options, this.logger);
		const caller = options.origin?.kind === 'call' ? (options.origin.caller as Caller | undefined) : undefined;
		const named = caller?.client === record ? caller.requestId : undefined;
		const inFlight = record.requestsTo(server);
		if (named === undefined && inFlight.length > 1 && inFlight.some(id => record.heldCalls.has(id))) {
			throw this.refuse(method, need.capability, `${who} has ${inFlight.length} calls to it in flight, and nothing in the request says which one it belongs to; retry the call on its own`);
		}

		const relatedRequestId = named ?? record.callTo(server)?.requestId;
		const held = relatedRequestId === undefined ? undefined : record.heldCalls.get(relatedRequestId);
		if (held !== undefined) return askHeld(held, this.instance, method, params, options, this.logger);
		if (record.peer === undefined) throw this.refuse(method, need.capability, `${who} has disconnected`);
		if (!canAnswer(record, need)) throw this.refuse(method, need.capability, notDeclared(record, who, need));
		this.elicitations.sent(method, params, record);
		this.logger.debug(`relaying ${method} from per-client instance "${this.instance}" to ${who}`);
		return record.peer.request(method, params, {signal: options.signal, relatedRequestId, onProgress: options.onProgress});
	}

	log(server: string, params: Record<string, unknown>, caller?: unknown): void {
		const level = params['level'];
		const call = caller as Caller | undefined;
		if (isLoggingLevel(level)) logTo(this.record, server, params, level, call?.client === this.record ? call.requestId : undefined);
	}

	/** `notifications/elicitation/complete` of an elicitation its client got: to its client. */
	notify(method: string, params: Record<string, unknown> | undefined): void {
		relayCompletion(this.elicitations, method, params, this.logger, `per-client instance "${this.instance}"`);
	}

	get logLevel(): LoggingLevel | undefined {
		return this.record.logLevel;
	}

	onLogLevel(listener: (level: LoggingLevel | undefined) => void): () => void {
		const onSession = (record: ClientRecord): void => {
			if (record === this.record) listener(record.logLevel);
		};

		this.clients.on('sessionLogLevel', onSession);
		return () => this.clients.off('sessionLogLevel', onSession);
	}

	onRootsChanged(listener: () => void): () => void {
		const onRoots = (record: ClientRecord | undefined): void => {
			if (record === undefined || record === this.record) listener();
		};

		this.clients.on('rootsChanged', onRoots);
		return () => this.clients.off('rootsChanged', onRoots);
	}

	private refuse(method: RelayedMethod, capability: ClientCapability, why: string): HangarError {
		this.logger.info(`per-client instance "${this.instance}" sent ${method}, answered with an error: ${why}`);
		return noClientAnswer(this.instance, method, capability, why, {clients: 1, capableClients: this.record.capabilities.has(capability) ? 1 : 0});
	}
}
