// A small MCP server used as a test fixture for mcp-hangar's fault handling and as
// a demo upstream in the example config. It speaks newline-delimited JSON-RPC 2.0
// over stdin/stdout, written by hand (no MCP SDK) so that it can misbehave on purpose.
// Run as `node dist/demo/fixture-server.js --mode MODE [options]`.
//
// Modes (--mode, default "normal"):
//   normal            well-behaved server with the tools echo, add, sleep, fail, stderr, pid
//   crash-on-call     any tools/call (except `pid`) exits with code 3 before answering
//   crash-during-init `initialize` exits with code 4 without answering
//   strict-init       any request before `initialize` (a server/discover probe) exits with code 2,
//                     as servers whose SDK stops on anything before initialize do
//   hang              tools/call is never answered (ping, initialize, tools/list are)
//   hang-all          only initialize and tools/list are answered
//   slow              every tools/call is delayed by --delay-ms (default 2000)
//   garbage           non-JSON-RPC lines are written to stdout at startup and before each response
//   tools-change      the tool set changes (gen_N tool) after initialized and after each call
//   slow-start        initialize is delayed by --delay-ms (default 2000)
//   flaky             demo mode: calls randomly fail (--fail-rate), stall (--delay-ms) or crash
//                     with exit code 5 (--crash-rate); --seed N makes it deterministic;
//                     --error-rate R: calls answered with a JSON-RPC error (default 0);
//                     --bad-patch-every-ms N --bad-patch-ms M: for M ms of every N (by the wall
//                     clock, so restarts do not reset it) every call stalls, as a sick server's do
// Options for any mode: --page-size N (pages every list), --exit-after-ms N (exit code 6),
// --tools-count N, --long-names, --big-answers (a tool `big` whose answer has `bytes` bytes of text), --change-description (echo's description changes after the
// first call, with list_changed), --echo-description TEXT (echo's description from the start),
// --ignore-sigterm, --tag STRING (for `ps`, and named in what resources and prompts return),
// --resources-count N (resources fixture://item/0..N-1, the template fixture://item/{id} and a
// tool `link` that returns a resource_link to fixture://item/0), --prompts-count N (prompts
// prompt_0..N-1, each with an optional argument `topic`). A resources/read or prompts/get
// request with a progress token gets two progress notifications (with `_meta`) before its answer;
// resources/subscribe is answered and followed by one notifications/resources/updated (with `_meta`).
// --client-features: adds `logging` to its capabilities (logging/setLevel is honoured) and the tools
// ask (sends its client sampling/createMessage, elicitation/create or roots/list and returns the
// answer; optionally waits for open-gate first, or asks for the client's progress), open-gate, log
// (one notifications/message per level), logging-level, progress-burst (progress and the result in
// one write), roots-seen (roots it fetched after each notifications/roots/list_changed),
// subscriptions-seen (its resources/subscribe and unsubscribe requests, each also logged at info before
// its answer) and client-capabilities (what its client declared at initialize),
// --flood-stderr / --flood-stdout: write to stderr / garbage to stdout as fast as the pipe takes it
//   (lines of ~100 bytes, now and then one of 1 MiB), while requests are still answered,
// --setsid-grandchild: start a grandchild in its own session (setsid) that ignores SIGTERM and
//   SIGHUP and runs until killed,
// --ignore-stdin-close: keep running when stdin ends,
// --starts-file PATH: append its pid to PATH at start (a test counts spawns),
// --protocol-version V: answer initialize with protocol version V whatever the client asked for,
// --tasks: the `tasks` capability and a task tool, task-steps (see fixture/tasks.ts),
// --log-args: write the arguments after `--` to stderr at start. Arguments after `--` are
//   otherwise ignored (tests plant things there, such as secrets).
// Unless --ignore-stdin-close, the server exits with code 0 when stdin ends, so it never outlives its parent.
//
// The fault families live in fixture/: options.ts (arguments), output.ts (writing and exiting),
// tools.ts, client-features.ts and process-faults.ts; this file serves the requests.

import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ignoredArgs, args, mode, pageSize, delayMs, failRate, crashRate, errorRate, badPatchEveryMs, badPatchMs, exitAfterMs, changeDescription, echoDescription, ignoreSigterm, clientFeatures, rootsAtStart, ignoreStdinClose, tag, startsFile, answeredVersion, resourcesCount, promptsCount, random, tasks } from './fixture/options.js';
import { type RequestId, type JsonObject, terminating, markTerminating, log, terminate, writeGarbage, sendResponse, sendError, sendNotification, crash, RpcError, CancelledError, isObject, isRequestId, idKey, delay, forever, NO_RESPONSE } from './fixture/output.js';
import { type ToolResult, type ToolDefinition, text, InvalidArguments, baseTools, extraTools } from './fixture/tools.js';
import { LOG_LEVELS, clientFeatureTools, clientState, outgoing, clientProgress, requestClient, progressBurst } from './fixture/client-features.js';
import { flood, floodChunk, startGrandchild } from './fixture/process-faults.js';
import { taskCapability, taskTools, createTask, handleTaskRequest } from './fixture/tasks.js';

let descriptionChanged = false;
let initializeSeen = false;
if (startsFile !== undefined) appendFileSync(startsFile, `${process.pid}\n`);
let generation = 0;

function currentTools(): ToolDefinition[] {
	const tools = baseTools.map((tool) =>
		tool.name !== 'echo'
			? tool
			: descriptionChanged
				? { ...tool, description: 'Echo (changed)' }
				: echoDescription !== undefined
					? { ...tool, description: echoDescription }
					: tool,
	);
	tools.push(...extraTools);
	if (clientFeatures) tools.push(...clientFeatureTools);
	if (tasks) tools.push(...taskTools);
	if (mode === 'tools-change' && generation > 0) {
		const gen = generation;
		tools.push({
			name: `gen_${gen}`,
			description: `Tool of generation ${gen}; it disappears after the next tool call.`,
			inputSchema: { type: 'object', properties: {} },
			run: () => text(`generation ${gen}`),
		});
	}
	return tools;
}

function describeTool(tool: ToolDefinition): JsonObject {
	const described: JsonObject = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
	if (tool.outputSchema !== undefined) described['outputSchema'] = tool.outputSchema;
	if (tool.execution !== undefined) described['execution'] = tool.execution;
	return described;
}

/** Called after a tools/call has been answered: changes the tool set where the mode asks for it. */
function afterToolCall(): void {
	let changed = false;
	if (mode === 'tools-change') {
		generation++;
		changed = true;
	}
	if (changeDescription && !descriptionChanged) {
		descriptionChanged = true;
		changed = true;
	}
	// With a _meta, as an upstream may send one: hangar's own list_changed must carry it.
	if (changed) sendNotification('notifications/tools/list_changed', { _meta: { 'fixture/generation': generation } });
}

// ---------------------------------------------------------------------------
// Request handlers

function handleInitialize(params: JsonObject): JsonObject {
	const requested = params['protocolVersion'];
	clientState.clientCapabilities = isObject(params['capabilities']) ? params['capabilities'] : {};
	return {
		protocolVersion: answeredVersion ?? (typeof requested === 'string' ? requested : '2025-06-18'),
		capabilities: {
			tools: { listChanged: true },
			...(clientFeatures ? { logging: {} } : {}),
			...(resourcesCount > 0 ? { resources: {} } : {}),
			...(promptsCount > 0 ? { prompts: {} } : {}),
			...(tasks ? { tasks: taskCapability } : {}),
		},
		serverInfo: { name: 'hangar-fixture', version: '1.0.0' },
	};
}

function handleToolsList(params: JsonObject): JsonObject {
	return paged('tools', currentTools().map(describeTool), params);
}

/** One page of `items` as the answer of a list request (all of them without --page-size). */
function paged(key: string, items: JsonObject[], params: JsonObject): JsonObject {
	const tools = items;
	if (pageSize === 0) return { [key]: tools };
	const cursor = params['cursor'];
	let offset = 0;
	if (cursor !== undefined) {
		offset = typeof cursor === 'string' && /^\d+$/.test(cursor) ? Number(cursor) : NaN;
		if (!Number.isSafeInteger(offset) || offset > tools.length) {
			throw new RpcError(-32602, `Invalid cursor: ${JSON.stringify(cursor)}`);
		}
	}
	const end = offset + pageSize;
	const page: JsonObject = { [key]: tools.slice(offset, end) };
	if (end < tools.length) page['nextCursor'] = String(end);
	return page;
}

async function handleToolsCall(params: JsonObject, signal: AbortSignal): Promise<ToolResult | typeof NO_RESPONSE> {
	const name = params['name'];
	if (typeof name !== 'string') throw new RpcError(-32602, 'Invalid params: "name" must be a string');
	const rawArguments = params['arguments'];
	if (rawArguments !== undefined && !isObject(rawArguments)) {
		throw new RpcError(-32602, 'Invalid params: "arguments" must be an object');
	}
	const input: JsonObject = rawArguments ?? {};
	const meta = params['_meta'];
	const token = isObject(meta) ? meta['progressToken'] : undefined;
	const progressToken = isRequestId(token) ? token : undefined;

	switch (mode) {
		case 'crash-on-call':
			if (name !== 'pid') {
				crash(3, `crashing on call to ${name}`);
				return NO_RESPONSE;
			}
			break;
		case 'hang':
		case 'hang-all':
			return forever(signal);
		case 'slow':
			await delay(delayMs, signal);
			break;
		case 'flaky':
			if (badPatchEveryMs > 0 && Date.now() % badPatchEveryMs < badPatchMs) {
				log(`flaky: in a bad patch, stalling call to ${name} by ${delayMs} ms`);
				await delay(delayMs, signal);
				break;
			}
			if (random() < crashRate) {
				crash(5, `flaky: crashing on call to ${name}`);
				return NO_RESPONSE;
			}
			if (errorRate > 0 && random() < errorRate) {
				throw new RpcError(-32603, `flaky: simulated internal error in ${name}`);
			}
			if (random() < failRate) {
				if (random() < 0.5) {
					log(`flaky: failing call to ${name}`);
					return text(`flaky: simulated failure of ${name}`, true);
				}
				log(`flaky: delaying call to ${name} by ${delayMs} ms`);
				await delay(delayMs, signal);
			}
			break;
		default:
			break;
	}

	const tool = currentTools().find((candidate) => candidate.name === name);
	if (tool === undefined) throw new RpcError(-32602, `Unknown tool: ${name}`);
	try {
		return await tool.run(input, { signal, progressToken });
	} catch (error) {
		if (error instanceof InvalidArguments) return text(`Invalid arguments for tool ${name}: ${error.message}`, true);
		throw error;
	}
}

async function dispatch(
	method: string,
	params: JsonObject,
	signal: AbortSignal,
): Promise<unknown | typeof NO_RESPONSE> {
	if (mode === 'hang-all' && method !== 'initialize' && method !== 'tools/list') return forever(signal);
	if (mode === 'strict-init' && !initializeSeen && method !== 'initialize') {
		crash(2, `fatal: ${method} before initialize`);
		return NO_RESPONSE;
	}
	switch (method) {
		case 'initialize':
			initializeSeen = true;
			if (mode === 'crash-during-init') {
				crash(4, 'fatal: cannot initialize');
				return NO_RESPONSE;
			}
			if (mode === 'slow-start') await delay(delayMs, signal);
			return handleInitialize(params);
		case 'ping':
			return {};
		case 'tools/list':
			if (rootsAtStart) await startRoots;
			return handleToolsList(params);
		case 'tools/call':
			if (tasks && params['name'] === 'task-steps' && isObject(params['task'])) return createTask(params);
			return handleToolsCall(params, signal);
		case 'tasks/get':
		case 'tasks/result':
		case 'tasks/list':
		case 'tasks/cancel':
			if (!tasks) throw new RpcError(-32601, `Method not found: ${method}`);
			return handleTaskRequest(method, params);
		case 'logging/setLevel': {
			if (!clientFeatures) throw new RpcError(-32601, `Method not found: ${method}`);
			const level = params['level'];
			if (typeof level !== 'string' || !LOG_LEVELS.includes(level)) throw new RpcError(-32602, `Invalid params: unknown level ${JSON.stringify(level)}`);
			clientState.logLevel = level;
			clientState.setLevelCount++;
			return {};
		}
		case 'resources/list':
		case 'resources/templates/list':
		case 'resources/read':
			if (resourcesCount === 0) throw new RpcError(-32601, `Method not found: ${method}`);
			reportProgress(method, params);
			return handleResources(method, params);
		case 'resources/subscribe':
		case 'resources/unsubscribe': {
			if (resourcesCount === 0) throw new RpcError(-32601, `Method not found: ${method}`);
			const uri = params['uri'];
			if (clientFeatures) logSubscription(method, uri);
			// Told at once that it changed, after the answer: a subscriber's first update, with `_meta`.
			if (method === 'resources/subscribe' && typeof uri === 'string') setTimeout(() => sendNotification('notifications/resources/updated', { uri, _meta: { 'fixture/why': 'subscribed' } }), 20);
			return {};
		}
		case 'prompts/list':
		case 'prompts/get':
			if (promptsCount === 0) throw new RpcError(-32601, `Method not found: ${method}`);
			reportProgress(method, params);
			return handlePrompts(method, params);
		default:
			throw new RpcError(-32601, `Method not found: ${method}`);
	}
}

/**
 * --client-features: a subscription request is recorded (the tool subscriptions-seen) and logged (info, as the level set
 * admits) before its answer, naming its URI, as server-everything logs them: a message about whichever client subscribed.
 */
function logSubscription(method: string, uri: unknown): void {
	const line = `${method} ${String(uri)}`;
	clientState.subscriptionRequests.push(line);
	if (clientState.subscriptionRequests.length > 100) clientState.subscriptionRequests.shift();
	if (clientState.logLevel === undefined || LOG_LEVELS.indexOf('info') >= LOG_LEVELS.indexOf(clientState.logLevel)) {
		sendNotification('notifications/message', { level: 'info', logger: 'fixture', data: `received ${line}` });
	}
}

/** Any request that carries a progress token gets two progress notifications (with `_meta`) before its answer. */
function reportProgress(method: string, params: JsonObject): void {
	const meta = params['_meta'];
	const token = isObject(meta) ? meta['progressToken'] : undefined;
	if (!isRequestId(token)) return;
	for (const progress of [1, 2]) {
		sendNotification('notifications/progress', { progressToken: token, progress, total: 2, message: `${method} step ${progress}`, _meta: { 'fixture/step': progress } });
	}
}

function handleResources(method: string, params: JsonObject): JsonObject {
	if (method === 'resources/list') {
		const resources = Array.from({ length: resourcesCount }, (_, i) => ({ uri: `fixture://item/${i}`, name: `item-${i}`, mimeType: 'text/plain' }));
		return paged('resources', resources, params);
	}
	if (method === 'resources/templates/list') {
		return paged('resourceTemplates', [{ uriTemplate: 'fixture://item/{id}', name: 'item', mimeType: 'text/plain' }], params);
	}
	const uri = params['uri'];
	const id = typeof uri === 'string' ? /^fixture:\/\/item\/([^/]+)$/.exec(uri)?.[1] : undefined;
	if (id === undefined) throw new RpcError(-32002, `Resource not found: ${JSON.stringify(uri)}`);
	return { contents: [{ uri, mimeType: 'text/plain', text: `item ${id} of ${tag}` }] };
}

function handlePrompts(method: string, params: JsonObject): JsonObject {
	if (method === 'prompts/list') {
		const prompts = Array.from({ length: promptsCount }, (_, i) => ({
			name: `prompt_${i}`,
			description: `Prompt number ${i} of ${tag}.`,
			arguments: [{ name: 'topic', description: 'What it is about.', required: false }],
		}));
		return paged('prompts', prompts, params);
	}
	const name = params['name'];
	const index = typeof name === 'string' ? /^prompt_(\d+)$/.exec(name)?.[1] : undefined;
	if (index === undefined || Number(index) >= promptsCount) throw new RpcError(-32602, `Unknown prompt: ${JSON.stringify(name)}`);
	const topic = (params['arguments'] as JsonObject | undefined)?.['topic'];
	return {
		messages: [
			{ role: 'user', content: { type: 'text', text: `prompt ${index} of ${tag}${typeof topic === 'string' ? ` about ${topic}` : ''}` } },
			{ role: 'user', content: { type: 'resource', resource: { uri: 'fixture://item/0', mimeType: 'text/plain', text: `item 0 of ${tag}` } } },
		],
	};
}

/** Requests still in progress, by idKey, so that notifications/cancelled can abort them. */
const inFlight = new Map<string, AbortController>();

async function handleRequest(id: RequestId, method: string, params: JsonObject): Promise<void> {
	if (clientFeatures && method === 'tools/call' && params['name'] === 'progress-burst' && mode === 'normal') {
		const meta = params['_meta'];
		const token = isObject(meta) ? meta['progressToken'] : undefined;
		try {
			progressBurst(id, isObject(params['arguments']) ? params['arguments'] : {}, isRequestId(token) ? token : undefined);
		} catch (error) {
			sendResponse(id, text(`Invalid arguments for tool progress-burst: ${error instanceof Error ? error.message : String(error)}`, true));
		}
		return;
	}
	const key = idKey(id);
	const controller = new AbortController();
	inFlight.set(key, controller);
	let answered = false;
	try {
		const result = await dispatch(method, params, controller.signal);
		if (result === NO_RESPONSE || controller.signal.aborted) return;
		sendResponse(id, result);
		answered = true;
	} catch (error) {
		if (error instanceof CancelledError || controller.signal.aborted) return;
		if (error instanceof RpcError) {
			sendError(id, error.code, error.message);
		} else {
			log(`internal error handling ${method}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
			sendError(id, -32603, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
		}
		answered = true;
	} finally {
		if (inFlight.get(key) === controller) inFlight.delete(key);
		if (answered && method === 'tools/call' && !terminating) afterToolCall();
	}
}

/** The roots/list sent at start (--roots-at-start): tools/list waits for it to settle. */
let startRoots: Promise<void> = Promise.resolve();

function handleNotification(method: string, params: JsonObject): void {
	switch (method) {
		case 'notifications/initialized':
			log('client sent notifications/initialized');
			if (rootsAtStart) {
				startRoots = requestClient('roots/list', {}).then(
					(response) => {
						clientState.lastRoots = isObject(response['result']) ? response['result']['roots'] : { error: response['error'] };
					},
					() => {},
				);
			}
			if (mode === 'tools-change') {
				generation++;
				sendNotification('notifications/tools/list_changed', { _meta: { 'fixture/generation': generation } });
			}
			return;
		case 'notifications/roots/list_changed':
			clientState.rootsChanges++;
			if (clientFeatures) {
				requestClient('roots/list', {}).then(
					(response) => {
						clientState.lastRoots = isObject(response['result']) ? response['result']['roots'] : { error: response['error'] };
					},
					() => {},
				);
			}
			return;
		case 'notifications/progress': {
			const token = params['progressToken'];
			const seen = typeof token === 'string' ? clientProgress.get(token) : undefined;
			if (seen !== undefined) {
				const { progressToken: _token, ...progress } = params;
				seen.push(progress);
			}
			return;
		}
		case 'notifications/cancelled': {
			const requestId = params['requestId'];
			if (!isRequestId(requestId)) {
				log('notifications/cancelled without a valid requestId; ignored');
				return;
			}
			const controller = inFlight.get(idKey(requestId));
			if (controller === undefined) {
				log(`cancel ignored: request ${requestId} is not in progress`);
				return;
			}
			inFlight.delete(idKey(requestId));
			controller.abort();
			log(`cancelled ${requestId}`);
			return;
		}
		default:
			return;
	}
}

function handleMessage(message: unknown): void {
	if (Array.isArray(message)) {
		for (const item of message) handleMessage(item);
		return;
	}
	if (!isObject(message) || message['jsonrpc'] !== '2.0') {
		log(`ignoring message that is not JSON-RPC 2.0: ${JSON.stringify(message)}`);
		return;
	}
	const method = message['method'];
	const rawParams = message['params'];
	const params: JsonObject = isObject(rawParams) ? rawParams : {};
	if (typeof method !== 'string') {
		const id = message['id'];
		const waiter = typeof id === 'string' ? outgoing.get(id) : undefined;
		if (waiter !== undefined) {
			outgoing.delete(id as string);
			waiter(message);
			return;
		}
		log(`ignoring a response to no request of this server: ${JSON.stringify(message)}`);
		return;
	}
	if (!('id' in message)) {
		handleNotification(method, params);
		return;
	}
	const id = message['id'];
	if (!isRequestId(id)) {
		log(`ignoring request with invalid id: ${JSON.stringify(message)}`);
		return;
	}
	void handleRequest(id, method, params);
}

// ---------------------------------------------------------------------------
// Startup

log(`fixture-server mode=${mode} pid=${process.pid}`);

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
	// The reading end went away (EPIPE): nobody is listening any more.
	log(`stdout error: ${error.code ?? error.message}; exiting`);
	markTerminating();
	process.exit(0);
});

process.on('SIGTERM', () => {
	if (ignoreSigterm) {
		log('received SIGTERM; ignoring it (--ignore-sigterm)');
		return;
	}
	log('received SIGTERM; exiting');
	terminate(0);
});

if (exitAfterMs !== undefined) {
	setTimeout(() => crash(6, `exiting after ${exitAfterMs} ms (--exit-after-ms)`), exitAfterMs);
}

if (mode === 'garbage') writeGarbage();

if (args['log-args'] === true) log(`args after --: ${ignoredArgs.join(' ')}`);

if (args['setsid-grandchild'] === true) startGrandchild();

if (args['flood-stderr'] === true) flood(process.stderr, floodChunk('flood'));
if (args['flood-stdout'] === true) flood(process.stdout, floodChunk('garbage'));


const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });

lines.on('line', (line) => {
	if (terminating) return;
	const trimmed = line.trim();
	if (trimmed === '') return;
	let message: unknown;
	try {
		message = JSON.parse(trimmed);
	} catch {
		log(`ignoring line that is not valid JSON: ${trimmed.slice(0, 200)}`);
		return;
	}
	handleMessage(message);
});

lines.on('close', () => {
	if (ignoreStdinClose) {
		log('stdin closed; staying up (--ignore-stdin-close)');
		setInterval(() => {}, 1 << 30);
		return;
	}
	log('stdin closed; exiting');
	terminate(0);
});
