/**
 * The routed calls: a tools/call, or another routed request (resources/read,
 * prompts/get, completion/complete, tasks/*), sent to the route's upstream or
 * to the session's own instance of a per-client server, traced when tracing
 * is on, and written once to the calls log. While a call is in flight, what
 * that upstream asks a client goes to the call's client.
 */
import type {ClientRecord} from './clients/clients.js';
import type {CallLog} from './call-log.js';
import {LiveRequest, type ProgressUpdate, type RequestContext} from './request-context.js';
import type {Upstream} from './upstream/upstream.js';
import {callTimeout, requestFailed, shuttingDown, taskLost} from './refusals.js';
import type {Route} from './routing/router.js';
import {isCreateTaskResult, type TaskBook, type TaskEntry} from './routing/task-book.js';
import {ForwardedResult, UpstreamRpcError, parsedAnswer, relatedTaskKey, type CallToolResult, type ToolAnswer} from '../link/connection.js';
import {isPlainObject} from '../wire/message-classifier.js';
import type {RequestTracing, TraceScope} from './observe/trace-scope.js';
import {callLimit, type CallContext} from './upstream/call-path.js';

/** What the routed calls are given by the supervisor. */
export type RoutedCallDeps = {
	/** Whether the supervisor is shutting down: every call is refused then. */
	shuttingDown(): boolean;
	/** The upstream that serves a client's requests for a server (see Supervisor.instanceFor). */
	instanceFor(template: Upstream, client: ClientRecord | undefined): Upstream;
	/** OpenTelemetry spans, when tracing is on (set on the supervisor after it starts). */
	tracing(): RequestTracing | undefined;
	calls: CallLog;
	tasks: TaskBook;
	/** An upstream by name, or the refusal that names the known ones. */
	upstream(name: string): Upstream;
	/** hangar.taskResultTimeoutSeconds, as now configured (ms). */
	taskResultTimeoutMs(): number;
};

/** A tasks/result answer's `related-task` `_meta` with hangar's id for the task. */
function exposeRelatedTask(result: Record<string, unknown>, entry: TaskEntry): Record<string, unknown> {
	const meta = result['_meta'];
	if (!isPlainObject(meta) || !isPlainObject(meta[relatedTaskKey]) || meta[relatedTaskKey]['taskId'] !== entry.upstreamId) return result;
	return {...result, _meta: {...meta, [relatedTaskKey]: {...meta[relatedTaskKey], taskId: entry.id}}};
}

export class RoutedCalls {
	private inProcessCalls = 0;

	constructor(private readonly deps: RoutedCallDeps) {}

	/**
	 * The instance that serves `context`'s client for `upstream`, or
	 * undefined when it must wait for a start in progress first
	 * (`instanceAfterStart`). An `"auto"` server's shared instance that is
	 * starting may learn in that start (a roots/list at start-up) that it runs
	 * one instance per client: a call that waited for it goes to its client's
	 * own instance then, not to the shared one, which stops and could not
	 * answer for that client. (A call that starts a cold one runs on it as
	 * before: see docs/protocol.md.) Not async: an await costs every call a
	 * turn of the microtask queue.
	 */
	private instanceNow(upstream: Upstream, context: RequestContext): Upstream | undefined {
		const instance = this.deps.instanceFor(upstream, context.client);
		return instance !== upstream || upstream.state !== 'starting' || upstream.config.instances !== 'auto' ? instance : undefined;
	}

	/**
	 * The wait `instanceNow` calls for, within the call's deadline (the
	 * upstream's callTimeoutSeconds, or the caller's shorter one: the
	 * deadline covers a start); a failed wait ends the request's time in
	 * flight (`ended`).
	 */
	private async instanceAfterStart(upstream: Upstream, context: RequestContext, ended: (() => void) | undefined, timedOut: (limit: ReturnType<typeof callLimit>) => Error): Promise<Upstream> {
		try {
			const limit = callLimit(context.deadline, upstream.config.callTimeoutMs);
			const timeout = AbortSignal.timeout(limit.timeoutMs);
			// Only a start already in progress is waited for here (its errors reach the call below, as they would have): this starts nothing.
			await upstream.warm('', AbortSignal.any([context.signal, timeout]));
			if (timeout.aborted && !context.signal.aborted && upstream.state === 'starting') throw timedOut(limit);
			return this.deps.instanceFor(upstream, context.client);
		} catch (error) {
			ended?.();
			throw error;
		}
	}

	/**
	 * Sends a routed request other than a tool call (resources/read,
	 * prompts/get, completion/complete) to the route's upstream, or to the
	 * session's own instance of a per-client server (see Upstream.request).
	 * While it is in flight, what that upstream asks a client goes to this
	 * request's client.
	 */
	async request(route: Route, params: Record<string, unknown>, context: RequestContext): Promise<Record<string, unknown>> {
		const operation = `${context.method} "${route.localName}"`;
		if (this.deps.shuttingDown()) throw shuttingDown(route.upstream.name, operation);
		context.record.upstream = route.upstream.name;
		context.record.target = route.localName;
		const ended = context.client?.callBegan(route.upstream.name, context.id);
		const instance =
			this.instanceNow(route.upstream, context) ??
			(await this.instanceAfterStart(route.upstream, context, ended, limit => requestFailed(route.upstream.name, operation, {kind: 'timeout', timeoutMs: limit.budget?.deadline.ms ?? limit.timeoutMs, setting: limit.budget?.deadline.setting})));
		const scope = this.deps.tracing()?.begin(context, route.upstream.name, route.localName, instance.name);
		try {
			// The request's own `_meta` as the pipeline cleaned it (no progress token, no 2026-07-28 envelope: each upstream is told its own), as a tool call's.
			const {_meta: _sent, ...rest} = params;
			const meta = scope?.meta ?? context.meta;
			const result = await instance.request(context.method, meta === undefined ? rest : {...rest, _meta: meta}, operation, context);
			scope?.end('ok');
			return result;
		} catch (error) {
			scope?.end(context.cancellation.aborted ? 'cancelled' : 'error', error);
			throw error;
		} finally {
			ended?.();
		}
	}

	/**
	 * Sends tasks/get, tasks/result or tasks/cancel for a task the request's
	 * client created to the instance that runs it, under the upstream's own
	 * id; the answer comes back with hangar's. A task whose upstream crashed
	 * or stopped is answered from the book: tasks/get with its failed status,
	 * the rest with the reason.
	 */
	async taskRequest(entry: TaskEntry, params: Record<string, unknown>, context: RequestContext): Promise<Record<string, unknown>> {
		const operation = `${context.method} "${entry.id}"`;
		if (entry.lost !== undefined) {
			if (context.method === 'tasks/get') return this.deps.tasks.expose(entry, entry.task);
			throw taskLost(entry.instance.name, operation, entry.lost);
		}

		if (this.deps.shuttingDown()) throw shuttingDown(entry.server, operation);
		context.record.upstream = entry.server;
		context.record.target = entry.tool;
		const ended = context.client?.callBegan(entry.server, context.id);
		try {
			// tasks/result blocks until the task ends: it has a deadline of its own; the others answer at once, within callTimeoutSeconds.
			const callContext: CallContext =
				context.method === 'tasks/result' ? {cancellation: context.cancellation, onProgress: context.onProgress, meta: context.meta, correlationId: context.correlationId, client: context.client, id: context.id, ownDeadline: {ms: this.deps.taskResultTimeoutMs(), setting: 'taskResultTimeoutSeconds'}} : context;
			const result = await entry.instance.request(context.method, {...params, taskId: entry.upstreamId}, operation, callContext);
			if (context.method === 'tasks/result') {
				this.deps.tasks.ended(entry);
				return exposeRelatedTask(result, entry);
			}

			this.deps.tasks.observed(entry, result);
			return this.deps.tasks.expose(entry, result);
		} catch (error) {
			// The upstream answered tasks/result with the task's error: the result is fetched.
			if (context.method === 'tasks/result' && error instanceof UpstreamRpcError) this.deps.tasks.ended(entry);
			throw error;
		} finally {
			ended?.();
		}
	}

	/**
	 * Calls a routed tool on its upstream, or on the session's own instance
	 * of a per-client server, and writes the request's one record to the
	 * calls log. While it is in flight, what that upstream asks a client goes
	 * to this call's client.
	 */
	async call(route: Route, args: Record<string, unknown> | undefined, context: RequestContext): Promise<ToolAnswer> {
		const {upstream, localName: tool} = route;
		if (this.deps.shuttingDown()) throw shuttingDown(upstream.name, `tools/call "${tool}"`);
		context.record.upstream = upstream.name;
		context.record.target = tool;
		// In flight from here, before a start it waits for: what the upstream asks during that start is placed with this call's client.
		const ended = context.client?.callBegan(upstream.name, context.id);
		const instance =
			this.instanceNow(upstream, context) ??
			(await this.instanceAfterStart(upstream, context, ended, limit => callTimeout({upstream: upstream.name, tool, timeoutMs: limit.budget?.deadline.ms ?? limit.timeoutMs, phase: 'start', setting: limit.budget?.deadline.setting})));
		const scope = this.deps.tracing()?.begin(context, upstream.name, tool, instance.name);
		try {
			const result = await instance.callTool(tool, args, scope === undefined ? context : traced(context, scope));
			scope?.end(result.isError === true ? 'tool-error' : 'ok');
			if (instance !== upstream) upstream.metrics.recordInHistory(performance.now() - context.record.began, false);
			this.deps.calls.write(context, args, {result});
			// Run as a task: the client gets hangar's id for it, and only it can reach the task.
			// (A result kept as text is parsed only when it has a task to rewrite.)
			const created = context.task === undefined || context.client === undefined ? undefined : result instanceof ForwardedResult ? (result.hasTask ? result.value() : undefined) : result;
			if (created !== undefined && isCreateTaskResult(created)) {
				return this.deps.tasks.created({instance, server: upstream.name, client: context.client!, tool, logSeq: this.deps.calls.lastSeq, began: context.record.began, progressToken: context.progressToken}, created) as CallToolResult;
			}

			return result;
		} catch (error) {
			scope?.end(context.cancellation.aborted ? 'cancelled' : 'error', error);
			if (instance !== upstream) upstream.metrics.recordInHistory(performance.now() - context.record.began, true);
			this.deps.calls.write(context, args, {error});
			throw error;
		} finally {
			ended?.();
		}
	}

	/**
	 * A tool call from inside hangar rather than from a client session (the
	 * CLI's `call` without a running supervisor, the demo's traffic, tests):
	 * its own request context, routed to `server` without the router.
	 */
	async callByName(server: string, tool: string, args: Record<string, unknown> | undefined, options: InProcessCall = {}): Promise<CallToolResult> {
		if (this.deps.shuttingDown()) throw shuttingDown(server, `tools/call "${tool}"`);
		const route: Route = {kind: 'tool', upstream: this.deps.upstream(server), localName: tool};
		const context = new LiveRequest({id: `in-process-${++this.inProcessCalls}`, method: 'tools/call', caller: options.caller, client: options.client, signal: options.signal, onProgress: options.onProgress});
		try {
			return parsedAnswer(await this.call(route, args, context));
		} finally {
			context.end();
		}
	}
}

/** A call's context with the `_meta` its trace gives the upstream (only when tracing is on). */
function traced(context: RequestContext, scope: TraceScope): CallContext {
	return {cancellation: context.cancellation, deadline: context.deadline, onProgress: context.onProgress, meta: scope.meta, correlationId: context.correlationId, client: context.client, id: context.id};
}

/** What an in-process caller may give a tool call (see Supervisor.callByName). */
export type InProcessCall = {
	signal?: AbortSignal | undefined;
	onProgress?: ((update: ProgressUpdate) => void) | undefined;
	/** Names the caller in the calls log (default "hangar"). */
	caller?: string | undefined;
	/** Calls as this client session would (tests, and in-process callers that stand in for one). */
	client?: ClientRecord | undefined;
};
