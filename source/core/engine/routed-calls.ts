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
import {shuttingDown, taskLost} from './refusals.js';
import type {Route} from './routing/router.js';
import {isCreateTaskResult, type TaskBook, type TaskEntry} from './routing/task-book.js';
import {ForwardedResult, RequestCancelledError, UpstreamRpcError, UpstreamTimeoutError, parsedAnswer, relatedTaskKey, type CallToolResult, type ToolAnswer} from '../link/connection.js';
import {isPlainObject} from '../wire/message-classifier.js';
import type {RequestTracing} from './observe/trace-scope.js';
import type {CallContext, StartedBefore} from './upstream/call-path.js';
import type {OperationOf} from './clients/instance-limit.js';

/** What the routed calls are given by the supervisor. */
export type RoutedCallDeps = {
	/** Whether the supervisor is shutting down: every call is refused then. */
	shuttingDown(): boolean;
	/** The upstream that serves a client's requests for a server (see Supervisor.instanceFor). */
	instanceFor(template: Upstream, client: ClientRecord | undefined, operation: OperationOf): Upstream;
	/** OpenTelemetry spans, when tracing is on (set on the supervisor after it starts). */
	tracing(): RequestTracing | undefined;
	calls: CallLog;
	tasks: TaskBook;
	/** An upstream by name, or the refusal that names the known ones. */
	upstream(name: string): Upstream;
	/** hangar.taskResultTimeoutSeconds, as now configured (ms). */
	taskResultTimeoutMs(): number;
};

/** The instance a request goes to, and the start it waited for (if it did). */
type Chosen = {instance: Upstream; before: StartedBefore | undefined};

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
	 * undefined when a start must come first (`instanceAfterStart`): an
	 * `"auto"` server that still runs one shared instance may learn in its
	 * start (a roots/list, sampling or elicitation while it starts) that it
	 * runs one instance per client. A call waits for that start before it
	 * chooses, so that it goes to its client's own instance then, never to
	 * the shared one, which was asked for roots no client gave it (with two
	 * clients' calls waiting, say) and stops. Not async: an await costs
	 * every call a turn of the microtask queue.
	 */
	private instanceNow(upstream: Upstream, context: RequestContext): Upstream | undefined {
		const instance = this.deps.instanceFor(upstream, context.client, context);
		if (instance !== upstream || upstream.config.instances !== 'auto') return instance;
		return upstream.state === 'starting' || upstream.state === 'cold' ? undefined : instance;
	}

	/**
	 * The start `instanceNow` calls for, waited for (or begun) on the shared
	 * instance as the call's own start would be: within its deadline, with
	 * its progress notes; then the instance, and what the call goes on from.
	 * The start's failure is the call's when the call stays on that instance
	 * (its own instance starts afresh); the call's deadline or cancel always.
	 */
	private async instanceAfterStart(upstream: Upstream, why: string, context: RequestContext): Promise<{instance: Upstream; before: StartedBefore}> {
		const before = await upstream.startBefore(why, context);
		const instance = this.deps.instanceFor(upstream, context.client, context);
		if (instance === upstream || before.failure instanceof UpstreamTimeoutError || before.failure instanceof RequestCancelledError) return {instance, before};
		return {instance, before: {...before, failure: undefined}};
	}

	/**
	 * The instance a request goes to (`instanceNow`, or after the start it
	 * waits for). When none can serve it (the per-client instance limit is
	 * reached: clients/instance-limit.ts), the request is no longer in flight
	 * and, for a tool call (`logged`), the calls log records it with `args` before
	 * the refusal is thrown (see endWith). No closure is made when the
	 * instance is known: this is on the path of every call.
	 */
	private instanceOrEnd(upstream: Upstream, why: string, context: RequestContext, ended: (() => void) | undefined, logged: boolean, args?: Record<string, unknown>): Chosen | Promise<Chosen> {
		let instance: Upstream | undefined;
		try {
			instance = this.instanceNow(upstream, context);
		} catch (error) {
			return this.endWith(error, context, ended, logged, args);
		}

		// Not async when the instance is known: an await costs every call a turn of the microtask queue.
		if (instance !== undefined) return {instance, before: undefined};
		return this.instanceAfterStart(upstream, why, context).catch((error: unknown) => this.endWith(error, context, ended, logged, args));
	}

	/** A request that got no instance: no longer in flight, a tool call written to the calls log with its error; the error thrown. */
	private endWith(error: unknown, context: RequestContext, ended: (() => void) | undefined, logged: boolean, args: Record<string, unknown> | undefined): never {
		ended?.();
		if (logged) this.deps.calls.write(context, args, {error});
		throw error;
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
		const chosen = this.instanceOrEnd(route.upstream, operation, context, ended, false);
		const {instance, before} = chosen instanceof Promise ? await chosen : chosen;
		const scope = this.deps.tracing()?.begin(context, route.upstream.name, route.localName, instance.name);
		try {
			// The request's own `_meta` as the pipeline cleaned it (no progress token, no 2026-07-28 envelope: each upstream is told its own), as a tool call's.
			const {_meta: _sent, ...rest} = params;
			const meta = scope?.meta ?? context.meta;
			const result = await instance.request(context.method, meta === undefined ? rest : {...rest, _meta: meta}, operation, before === undefined ? context : callContextOf(context, context.meta, before));
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
		const chosen = this.instanceOrEnd(upstream, `call to tool "${tool}"`, context, ended, true, args);
		const {instance, before} = chosen instanceof Promise ? await chosen : chosen;
		const scope = this.deps.tracing()?.begin(context, upstream.name, tool, instance.name);
		try {
			const result = await instance.callTool(tool, args, scope === undefined && before === undefined ? context : callContextOf(context, scope?.meta ?? context.meta, before));
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
/** The request's context as a call reads it, with the trace's `_meta` in place of its own or a start it waited for (see StartedBefore). */
function callContextOf(context: RequestContext, meta: Record<string, unknown> | undefined, startedBefore: StartedBefore | undefined): CallContext {
	return {cancellation: context.cancellation, deadline: context.deadline, onProgress: context.onProgress, meta, task: context.task, params: context.params, correlationId: context.correlationId, client: context.client, id: context.id, startedBefore};
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
