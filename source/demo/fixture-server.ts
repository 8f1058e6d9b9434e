// A small MCP server used as a test fixture for mcp-hangar's fault handling and as
// a demo upstream in the example config. It speaks newline-delimited JSON-RPC 2.0
// over stdin/stdout, written by hand (no MCP SDK) so that it can misbehave on purpose.
// Run as `node dist/demo/fixture-server.js --mode MODE [options]`.
//
// Modes (--mode, default "normal"):
//   normal            well-behaved server with the tools echo, add, sleep, fail, stderr, pid
//   crash-on-call     any tools/call (except `pid`) exits with code 3 before answering
//   crash-during-init `initialize` exits with code 4 without answering
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
// --tools-count N, --long-names, --change-description (echo's description changes after the
// first call, with list_changed), --echo-description TEXT (echo's description from the start),
// --ignore-sigterm, --tag STRING (for `ps`, and named in what resources and prompts return),
// --resources-count N (resources fixture://item/0..N-1, the template fixture://item/{id} and a
// tool `link` that returns a resource_link to fixture://item/0), --prompts-count N (prompts
// prompt_0..N-1, each with an optional argument `topic`).
// --client-features: adds `logging` to its capabilities (logging/setLevel is honoured) and the tools
// ask (sends its client sampling/createMessage, elicitation/create or roots/list and returns the
// answer; optionally waits for open-gate first, or asks for the client's progress), open-gate, log
// (one notifications/message per level), logging-level, progress-burst (progress and the result in
// one write), roots-seen (roots it fetched after each notifications/roots/list_changed) and
// client-capabilities (what its client declared at initialize),
// --flood-stderr / --flood-stdout: write to stderr / garbage to stdout as fast as the pipe takes it
//   (lines of ~100 bytes, now and then one of 1 MiB), while requests are still answered,
// --setsid-grandchild: start a grandchild in its own session (setsid) that ignores SIGTERM and
//   SIGHUP and runs until killed,
// --ignore-stdin-close: keep running when stdin ends,
// --log-args: write the arguments after `--` to stderr at start. Arguments after `--` are
//   otherwise ignored (tests plant things there, such as secrets).
// Unless --ignore-stdin-close, the server exits with code 0 when stdin ends, so it never outlives its parent.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

// ---------------------------------------------------------------------------
// Arguments

const MODES = [
	'normal',
	'crash-on-call',
	'crash-during-init',
	'hang',
	'hang-all',
	'slow',
	'garbage',
	'tools-change',
	'slow-start',
	'flaky',
] as const;
type Mode = (typeof MODES)[number];

function isMode(value: string): value is Mode {
	return (MODES as readonly string[]).includes(value);
}

function usageError(message: string): never {
	process.stderr.write(`fixture-server: ${message}\n`);
	process.exit(2);
}

const separator = process.argv.indexOf('--', 2);
const ignoredArgs = separator === -1 ? [] : process.argv.slice(separator + 1);

function parseCliArgs() {
	try {
		return parseArgs({
			args: process.argv.slice(2, separator === -1 ? undefined : separator),
			strict: true,
			allowPositionals: false,
			options: {
				mode: { type: 'string', default: 'normal' },
				'page-size': { type: 'string' },
				'delay-ms': { type: 'string' },
				'fail-rate': { type: 'string' },
				'crash-rate': { type: 'string' },
				'bad-patch-every-ms': { type: 'string' },
				'bad-patch-ms': { type: 'string' },
				seed: { type: 'string' },
				'exit-after-ms': { type: 'string' },
				'tools-count': { type: 'string' },
				'long-names': { type: 'boolean', default: false },
				'change-description': { type: 'boolean', default: false },
				'echo-description': { type: 'string' },
				'ignore-sigterm': { type: 'boolean', default: false },
				'client-features': { type: 'boolean', default: false },
				'error-rate': { type: 'string' },
				'flood-stderr': { type: 'boolean', default: false },
				'flood-stdout': { type: 'boolean', default: false },
				'setsid-grandchild': { type: 'boolean', default: false },
				'ignore-stdin-close': { type: 'boolean', default: false },
				'log-args': { type: 'boolean', default: false },
				tag: { type: 'string' },
				'resources-count': { type: 'string' },
				'prompts-count': { type: 'string' },
			},
		}).values;
	} catch (error) {
		usageError(error instanceof Error ? error.message : String(error));
	}
}

function numberOption(
	name: string,
	raw: string | undefined,
	fallback: number,
	check: (value: number) => boolean = (value) => value >= 0,
): number {
	if (raw === undefined) return fallback;
	const value = Number(raw);
	if (raw.trim() === '' || !Number.isFinite(value) || !check(value)) {
		usageError(`invalid value for --${name}: ${raw}`);
	}
	return value;
}

const isNonNegativeInteger = (value: number) => Number.isInteger(value) && value >= 0;
const isProbability = (value: number) => value >= 0 && value <= 1;

const args = parseCliArgs();
const modeArg = args.mode ?? 'normal';
if (!isMode(modeArg)) usageError(`unknown mode "${modeArg}" (expected one of: ${MODES.join(', ')})`);
const mode: Mode = modeArg;

const pageSize = numberOption('page-size', args['page-size'], 0, (v) => Number.isInteger(v) && v > 0);
const defaultDelay = mode === 'flaky' ? 1500 : 2000;
const delayMs = numberOption('delay-ms', args['delay-ms'], defaultDelay);
const failRate = numberOption('fail-rate', args['fail-rate'], 0.2, isProbability);
const crashRate = numberOption('crash-rate', args['crash-rate'], 0.02, isProbability);
const errorRate = numberOption('error-rate', args['error-rate'], 0, isProbability);
const badPatchEveryMs = numberOption('bad-patch-every-ms', args['bad-patch-every-ms'], 0);
const badPatchMs = numberOption('bad-patch-ms', args['bad-patch-ms'], 0);
const seed = args.seed === undefined ? undefined : numberOption('seed', args.seed, 0, Number.isInteger);
const exitAfterMs =
	args['exit-after-ms'] === undefined ? undefined : numberOption('exit-after-ms', args['exit-after-ms'], 0);
const toolsCount = numberOption('tools-count', args['tools-count'], 0, isNonNegativeInteger);
const longNames = args['long-names'] === true;
const changeDescription = args['change-description'] === true;
const echoDescription = typeof args['echo-description'] === 'string' ? args['echo-description'] : undefined;
const ignoreSigterm = args['ignore-sigterm'] === true;
const clientFeatures = args['client-features'] === true;
const ignoreStdinClose = args['ignore-stdin-close'] === true;
const tag = args.tag ?? 'fixture';
const resourcesCount = numberOption('resources-count', args['resources-count'], 0, isNonNegativeInteger);
const promptsCount = numberOption('prompts-count', args['prompts-count'], 0, isNonNegativeInteger);

// ---------------------------------------------------------------------------
// Randomness (flaky mode)

function mulberry32(initial: number): () => number {
	let state = initial >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const random: () => number = seed === undefined ? Math.random : mulberry32(seed);

// ---------------------------------------------------------------------------
// Output and termination

type RequestId = string | number;
type JsonObject = Record<string, unknown>;

let terminating = false;

function log(line: string): void {
	process.stderr.write(`${line}\n`);
}

/** Exits once stdout/stderr have flushed (pipes are asynchronous on some platforms). */
function terminate(code: number): void {
	if (terminating) return;
	terminating = true;
	const flushed = () => process.stdout.writableLength === 0 && process.stderr.writableLength === 0;
	if (flushed()) process.exit(code);
	const deadline = Date.now() + 1000;
	const timer = setInterval(() => {
		if (flushed() || Date.now() > deadline) {
			clearInterval(timer);
			process.exit(code);
		}
	}, 5);
}

const GARBAGE_LINES = ['this is not json', '{broken', '{"hello":1}'];

function writeGarbage(): void {
	process.stdout.write(GARBAGE_LINES.map((line) => `${line}\n`).join(''));
}

function send(message: JsonObject): void {
	if (terminating) return;
	process.stdout.write(`${JSON.stringify(message)}\n`);
}

function sendResponse(id: RequestId, result: unknown): void {
	if (terminating) return;
	if (mode === 'garbage') writeGarbage();
	send({ jsonrpc: '2.0', id, result });
}

function sendError(id: RequestId, code: number, message: string): void {
	if (terminating) return;
	if (mode === 'garbage') writeGarbage();
	send({ jsonrpc: '2.0', id, error: { code, message } });
}

function sendNotification(method: string, params?: JsonObject): void {
	send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
}

function crash(code: number, message: string): void {
	log(message);
	terminate(code);
}

// ---------------------------------------------------------------------------
// Errors and helpers

class RpcError extends Error {
	constructor(
		readonly code: number,
		message: string,
	) {
		super(message);
		this.name = 'RpcError';
	}
}

class CancelledError extends Error {
	constructor() {
		super('cancelled');
		this.name = 'CancelledError';
	}
}

function isObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
	return typeof value === 'string' || typeof value === 'number';
}

function idKey(id: RequestId): string {
	return `${typeof id}:${String(id)}`;
}

/** Resolves after `ms`, or rejects with CancelledError when the signal aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal.aborted) {
			reject(new CancelledError());
			return;
		}
		const onAbort = () => {
			clearTimeout(timer);
			reject(new CancelledError());
		};
		const timer = setTimeout(() => {
			signal.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		signal.addEventListener('abort', onAbort, { once: true });
	});
}

/** Never resolves; rejects with CancelledError when the signal aborts. */
function forever(signal: AbortSignal): Promise<never> {
	return new Promise((_resolve, reject) => {
		if (signal.aborted) {
			reject(new CancelledError());
			return;
		}
		signal.addEventListener('abort', () => reject(new CancelledError()), { once: true });
	});
}

/** Marker for requests that are deliberately never answered. */
const NO_RESPONSE = Symbol('no-response');

// ---------------------------------------------------------------------------
// Tools

interface TextContent {
	type: 'text';
	text: string;
}

interface ToolResult {
	content: Array<TextContent | { type: 'resource_link'; uri: string; name: string }>;
	structuredContent?: JsonObject;
	isError?: boolean;
}

interface CallContext {
	signal: AbortSignal;
	progressToken: RequestId | undefined;
}

interface ToolDefinition {
	name: string;
	description: string;
	inputSchema: JsonObject;
	outputSchema?: JsonObject;
	run: (input: JsonObject, context: CallContext) => ToolResult | Promise<ToolResult>;
}

function text(value: string, isError = false): ToolResult {
	return isError ? { content: [{ type: 'text', text: value }], isError: true } : { content: [{ type: 'text', text: value }] };
}

class InvalidArguments extends Error {}

function requireString(input: JsonObject, key: string): string {
	const value = input[key];
	if (typeof value !== 'string') throw new InvalidArguments(`"${key}" must be a string`);
	return value;
}

function requireNumber(input: JsonObject, key: string, min = -Infinity): number {
	const value = input[key];
	if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
		throw new InvalidArguments(`"${key}" must be a number${min > -Infinity ? ` >= ${min}` : ''}`);
	}
	return value;
}

const echoArgsSchema: JsonObject = { type: 'object', properties: {}, additionalProperties: true };

function echoArgsTool(name: string, description: string): ToolDefinition {
	return {
		name,
		description,
		inputSchema: echoArgsSchema,
		run: (input) => text(JSON.stringify(input)),
	};
}

let descriptionChanged = false;
let generation = 0;

const baseTools: ToolDefinition[] = [
	{
		name: 'echo',
		description: 'Echo the given message back as text.',
		inputSchema: {
			type: 'object',
			properties: { message: { type: 'string', description: 'Text to echo back' } },
			required: ['message'],
		},
		run: (input) => text(requireString(input, 'message')),
	},
	{
		name: 'add',
		description: 'Add two numbers and return the sum (also as structured content).',
		inputSchema: {
			type: 'object',
			properties: {
				a: { type: 'number', description: 'First addend' },
				b: { type: 'number', description: 'Second addend' },
			},
			required: ['a', 'b'],
		},
		outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
		run: (input) => {
			const sum = requireNumber(input, 'a') + requireNumber(input, 'b');
			return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
		},
	},
	{
		name: 'sleep',
		description: 'Wait for the given number of milliseconds, reporting progress if a progress token is given.',
		inputSchema: {
			type: 'object',
			properties: { ms: { type: 'number', minimum: 0, description: 'Milliseconds to wait' } },
			required: ['ms'],
		},
		run: async (input, { signal, progressToken }) => {
			const ms = requireNumber(input, 'ms', 0);
			const steps = Math.max(1, Math.ceil(ms / 100));
			const stepMs = ms / steps;
			for (let i = 1; i <= steps; i++) {
				await delay(stepMs, signal);
				if (progressToken !== undefined && !signal.aborted) {
					sendNotification('notifications/progress', {
						progressToken,
						progress: i,
						total: steps,
						message: `slept ${Math.round(stepMs * i)} of ${ms} ms`,
					});
				}
			}
			// Let the last progress notification arrive in its own read before the result: SDK clients
			// drop progress that is processed after the response it belongs to.
			if (progressToken !== undefined) await delay(10, signal);
			return text(`slept ${ms}`);
		},
	},
	{
		name: 'fail',
		description: 'Return a tool-level error (isError: true) with the given message.',
		inputSchema: {
			type: 'object',
			properties: { message: { type: 'string', description: 'Error message to return' } },
		},
		run: (input) => {
			const message = input['message'];
			return text(typeof message === 'string' ? message : 'Tool failed as requested', true);
		},
	},
	{
		name: 'stderr',
		description: 'Write the given number of lines to stderr.',
		inputSchema: {
			type: 'object',
			properties: { lines: { type: 'integer', minimum: 0, description: 'Number of lines to write' } },
			required: ['lines'],
		},
		run: (input) => {
			const lines = Math.floor(requireNumber(input, 'lines', 0));
			let out = '';
			for (let n = 1; n <= lines; n++) out += `stderr line ${n}\n`;
			if (out !== '') process.stderr.write(out);
			return text('ok');
		},
	},
	{
		name: 'pid',
		description: 'Return the process id of this server.',
		inputSchema: { type: 'object', properties: {} },
		run: () => text(String(process.pid)),
	},
];

const extraTools: ToolDefinition[] = [];
for (let i = 1; i <= toolsCount; i++) {
	extraTools.push(echoArgsTool(`tool_${i}`, `Extra tool number ${i}; echoes its arguments as JSON.`));
}
if (resourcesCount > 0) {
	extraTools.push({
		name: 'link',
		description: 'Returns a resource_link to fixture://item/0.',
		inputSchema: { type: 'object', properties: {} },
		run: () => ({ content: [{ type: 'resource_link', uri: 'fixture://item/0', name: 'item-0' }] }),
	});
}
if (longNames) {
	extraTools.push(
		echoArgsTool('a_very_long_tool_name_'.padEnd(80, 'x'), 'Tool with an 80 character name; echoes its arguments.'),
		echoArgsTool('dotted.name/with:chars', 'Tool with punctuation in its name; echoes its arguments.'),
	);
}

// ---------------------------------------------------------------------------
// What a server asks of its client (--client-features)

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
/** The level the client set with logging/setLevel; undefined: every message is sent, as SDK servers do. */
let logLevel: string | undefined;
let setLevelCount = 0;
let clientCapabilities: JsonObject = {};
let rootsChanges = 0;
let lastRoots: unknown = null;

/** Requests this server sent its client, by id, awaiting the client's response. */
const outgoing = new Map<string, (response: JsonObject) => void>();
/** Progress notifications the client sent about those requests, by progress token. */
const clientProgress = new Map<string, JsonObject[]>();
let nextOutgoing = 0;

/** Sends a request to the client; resolves with its whole response (result or error). Cancels it when `signal` aborts. */
function requestClient(method: string, params: JsonObject, signal?: AbortSignal): Promise<JsonObject> {
	const id = `fx-${++nextOutgoing}`;
	return new Promise((resolve, reject) => {
		outgoing.set(id, resolve);
		signal?.addEventListener(
			'abort',
			() => {
				if (!outgoing.delete(id)) return;
				sendNotification('notifications/cancelled', { requestId: id, reason: 'the tool call that asked was cancelled' });
				reject(new CancelledError());
			},
			{ once: true },
		);
		send({ jsonrpc: '2.0', id, method, params });
	});
}

const gates = new Map<string, { open: boolean; waiters: Array<() => void> }>();

function gate(name: string) {
	let entry = gates.get(name);
	if (entry === undefined) {
		entry = { open: false, waiters: [] };
		gates.set(name, entry);
	}
	return entry;
}

function waitForGate(name: string, signal: AbortSignal): Promise<void> {
	const entry = gate(name);
	if (entry.open) return Promise.resolve();
	return new Promise((resolve, reject) => {
		entry.waiters.push(resolve);
		signal.addEventListener('abort', () => reject(new CancelledError()), { once: true });
	});
}

const askDefaults: Record<string, { method: string; params: JsonObject }> = {
	sampling: {
		method: 'sampling/createMessage',
		params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to the fixture.' } }], maxTokens: 20 },
	},
	elicitation: {
		method: 'elicitation/create',
		params: {
			message: 'What is your name?',
			requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
		},
	},
	roots: { method: 'roots/list', params: {} },
};

function json(value: JsonObject): ToolResult {
	return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

const clientFeatureTools: ToolDefinition[] = [
	{
		name: 'ask',
		description:
			'Send the client a sampling/createMessage, elicitation/create or roots/list request and return its answer ({result} or {error}, and the progress it sent).',
		inputSchema: {
			type: 'object',
			properties: {
				kind: { type: 'string', enum: ['sampling', 'elicitation', 'roots'] },
				gate: { type: 'string', description: 'Wait until open-gate opens this gate before asking' },
				progress: { type: 'boolean', description: 'Ask the client for progress (a progress token in _meta)' },
				params: { type: 'object', description: 'The request params (default: a small request of that kind)' },
			},
			required: ['kind'],
		},
		run: async (input, { signal }) => {
			const kind = requireString(input, 'kind');
			const ask = askDefaults[kind];
			if (ask === undefined) throw new InvalidArguments('"kind" must be sampling, elicitation or roots');
			if (typeof input['gate'] === 'string') await waitForGate(input['gate'], signal);
			const params: JsonObject = isObject(input['params']) ? { ...input['params'] } : { ...ask.params };
			const token = `fx-progress-${nextOutgoing + 1}`;
			if (input['progress'] === true) {
				params['_meta'] = { progressToken: token };
				clientProgress.set(token, []);
			}
			const response = await requestClient(ask.method, params, signal);
			const progress = clientProgress.get(token);
			clientProgress.delete(token);
			const answer: JsonObject = 'error' in response ? { error: response['error'] } : { result: response['result'] };
			if (progress !== undefined) answer['progress'] = progress;
			return json(answer);
		},
	},
	{
		name: 'open-gate',
		description: 'Open a gate: ask calls waiting for it go on.',
		inputSchema: { type: 'object', properties: { gate: { type: 'string' } }, required: ['gate'] },
		run: (input) => {
			const entry = gate(requireString(input, 'gate'));
			entry.open = true;
			for (const waiter of entry.waiters.splice(0)) waiter();
			return text('opened');
		},
	},
	{
		name: 'log',
		description: 'Send one notifications/message per level (default: all eight), as the level set with logging/setLevel admits.',
		inputSchema: {
			type: 'object',
			properties: {
				levels: { type: 'array', items: { type: 'string' } },
				logger: { type: 'string', description: 'The logger name (default "fixture"; "" for none)' },
			},
		},
		run: (input) => {
			const levels = Array.isArray(input['levels']) ? input['levels'].filter((level): level is string => LOG_LEVELS.includes(String(level))) : LOG_LEVELS;
			const logger = typeof input['logger'] === 'string' ? input['logger'] : 'fixture';
			const sent: string[] = [];
			for (const level of levels) {
				if (logLevel !== undefined && LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(logLevel)) continue;
				sendNotification('notifications/message', { level, ...(logger === '' ? {} : { logger }), data: `message at ${level}` });
				sent.push(level);
			}
			return json({ sent });
		},
	},
	{
		name: 'logging-level',
		description: 'The level the client set with logging/setLevel (null if none), and how often it set one.',
		inputSchema: { type: 'object', properties: {} },
		run: () => json({ level: logLevel ?? null, setLevelCount }),
	},
	{
		name: 'progress-burst',
		description: 'Send `steps` progress notifications and the result in one write, the hardest case for a proxy to keep in order.',
		inputSchema: { type: 'object', properties: { steps: { type: 'integer', minimum: 0 } }, required: ['steps'] },
		run: () => text('burst'),
	},
	{
		name: 'roots-seen',
		description: 'How many notifications/roots/list_changed arrived, and the roots fetched with roots/list after the last one.',
		inputSchema: { type: 'object', properties: {} },
		run: () => json({ changes: rootsChanges, roots: lastRoots }),
	},
	{
		name: 'client-capabilities',
		description: 'The capabilities the client declared at initialize.',
		inputSchema: { type: 'object', properties: {} },
		run: () => json({ capabilities: clientCapabilities }),
	},
];

/** A tools/call of progress-burst: every progress line and the response in a single write. */
function progressBurst(id: RequestId, input: JsonObject, progressToken: RequestId | undefined): void {
	const steps = Math.floor(requireNumber(input, 'steps', 0));
	let out = '';
	if (progressToken !== undefined) {
		for (let step = 1; step <= steps; step++) {
			out += `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: step, total: steps, message: `step ${step} of ${steps}` } })}\n`;
		}
	}
	out += `${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `burst of ${steps}` }] } })}\n`;
	if (!terminating) process.stdout.write(out);
}

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
	if (changed) sendNotification('notifications/tools/list_changed');
}

// ---------------------------------------------------------------------------
// Request handlers

function handleInitialize(params: JsonObject): JsonObject {
	const requested = params['protocolVersion'];
	clientCapabilities = isObject(params['capabilities']) ? params['capabilities'] : {};
	return {
		protocolVersion: typeof requested === 'string' ? requested : '2025-06-18',
		capabilities: {
			tools: { listChanged: true },
			...(clientFeatures ? { logging: {} } : {}),
			...(resourcesCount > 0 ? { resources: {} } : {}),
			...(promptsCount > 0 ? { prompts: {} } : {}),
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
	switch (method) {
		case 'initialize':
			if (mode === 'crash-during-init') {
				crash(4, 'fatal: cannot initialize');
				return NO_RESPONSE;
			}
			if (mode === 'slow-start') await delay(delayMs, signal);
			return handleInitialize(params);
		case 'ping':
			return {};
		case 'tools/list':
			return handleToolsList(params);
		case 'tools/call':
			return handleToolsCall(params, signal);
		case 'logging/setLevel': {
			if (!clientFeatures) throw new RpcError(-32601, `Method not found: ${method}`);
			const level = params['level'];
			if (typeof level !== 'string' || !LOG_LEVELS.includes(level)) throw new RpcError(-32602, `Invalid params: unknown level ${JSON.stringify(level)}`);
			logLevel = level;
			setLevelCount++;
			return {};
		}
		case 'resources/list':
		case 'resources/templates/list':
		case 'resources/read':
			if (resourcesCount === 0) throw new RpcError(-32601, `Method not found: ${method}`);
			return handleResources(method, params);
		case 'prompts/list':
		case 'prompts/get':
			if (promptsCount === 0) throw new RpcError(-32601, `Method not found: ${method}`);
			return handlePrompts(method, params);
		default:
			throw new RpcError(-32601, `Method not found: ${method}`);
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

function handleNotification(method: string, params: JsonObject): void {
	switch (method) {
		case 'notifications/initialized':
			log('client sent notifications/initialized');
			if (mode === 'tools-change') {
				generation++;
				sendNotification('notifications/tools/list_changed');
			}
			return;
		case 'notifications/roots/list_changed':
			rootsChanges++;
			if (clientFeatures) {
				requestClient('roots/list', {}).then(
					(response) => {
						lastRoots = isObject(response['result']) ? response['result']['roots'] : { error: response['error'] };
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
	terminating = true;
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

if (args['setsid-grandchild'] === true) {
	// detached: the grandchild calls setsid, so it is in neither this process's group nor its session.
	const grandchild = spawn(
		process.execPath,
		['-e', "process.on('SIGTERM', () => {}); process.on('SIGHUP', () => {}); setInterval(() => {}, 1 << 30);"],
		{ detached: true, stdio: 'ignore' },
	);
	grandchild.unref();
	log(`started a grandchild in its own session: pid ${grandchild.pid}`);
}

/** Writes `chunk()` to `stream` as fast as the pipe takes it, until the server terminates. */
function flood(stream: NodeJS.WriteStream, chunk: () => string): void {
	const pump = () => {
		while (!terminating) {
			if (!stream.write(chunk())) {
				stream.once('drain', pump);
				return;
			}
		}
	};
	// After the current turn: initialize must be read first.
	setImmediate(pump);
}

let floodLines = 0;
/** ~64 KiB of lines of ~100 bytes; every 64th chunk is one line of 1 MiB instead. */
function floodChunk(kind: string): () => string {
	const filler = 'x'.repeat(80);
	const huge = `${kind} ${'y'.repeat(1024 * 1024)}\n`;
	return () => {
		floodLines++;
		if (floodLines % 64 === 0) return huge;
		let out = '';
		for (let i = 0; i < 640; i++) out += `${kind} ${floodLines}.${i} ${filler}\n`;
		return out;
	};
}

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
