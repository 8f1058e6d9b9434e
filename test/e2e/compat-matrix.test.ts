/**
 * The compatibility matrix (issue 31): real SDK clients of each generation
 * (v2 pinned to 2026-07-28, v1, v2 in auto mode) × real SDK upstreams of each
 * generation (test/fixtures/matrix-upstream.mjs: v2 modern-only, v1, v2
 * dual-era), each as a stdio subprocess and as a remote Streamable HTTP
 * server on loopback, × hangar's `--stdio` (the shared supervisor, as clients
 * launch it) and `serve --http`. In every cell: a call, lists, a list change,
 * a resource subscription, the upstream's sampling and elicitation
 * (input_required where a side is 2026-07-28), a task, a log message at the
 * client's level and a progress notification. One hangar per endpoint with
 * the six upstreams (both reach the same remote ones), one client of each
 * kind per endpoint; the cells run side by side, each stdio upstream serving
 * one cell at a time.
 *
 * `expected` below is what hangar does today; the test fails when a cell
 * measures otherwise. The measured matrix is test/compat-matrix.json and the
 * README's table (test/drift/compat-matrix.test.ts checks the two agree);
 * `UPDATE_COMPAT_MATRIX=1` rewrites both from a run whose cells all passed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {ChildProcess} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import {once} from 'node:events';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
	CreateMessageRequestSchema,
	ElicitRequestSchema,
	LoggingMessageNotificationSchema,
	ResourceUpdatedNotificationSchema,
	ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {Client as ModernClient, StreamableHTTPClientTransport as ModernHttp} from '@modelcontextprotocol/client';
import {StdioClientTransport as ModernStdio} from '@modelcontextprotocol/client/stdio';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {z} from 'zod';
import {cliPath, fastHangar, root, runCli, spawnEnv, tempDir, writeConfig} from '../support/hangar.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';
import {
	clientKinds,
	features,
	matrixFile,
	readmeSection,
	renderMatrix,
	transports,
	upstreamKinds,
	upstreamTransports,
	withReadmeSection,
	type Cell,
	type ClientKind,
	type Feature,
	type Matrix,
	type Outcome,
	type Transport,
	type UpstreamKind,
	type UpstreamTransport,
	matrixUpstreamScript,
	startMatrixUpstreamOverHttp,
} from '../support/compat-matrix.js';

const modern = '2026-07-28';
const upstreamScript = matrixUpstreamScript;

/**
 * What each cell does today, the same through both of hangar's endpoints
 * (`expected` with a stdio upstream, `overHttp` where a remote one differs).
 * One entry per feature and pair: flip it when hangar or a fixture learns it.
 * An outcome other than works/translated carries a pattern the measured
 * reason must match (the error the client got, or what it waited for) and
 * why, which the README shows.
 */
type Expectation = 'works' | 'translated' | {outcome: 'refused' | 'missing'; reason: RegExp; why: string};
const noTask: Expectation = {
	outcome: 'missing',
	reason: /^no task: the upstream answered the call in full/,
	why: 'the upstream offers no tasks (the v2 server SDK 2.4.0 implements neither 2025 tasks nor the 2026-07-28 tasks extension), so a task-augmented call is answered as a plain one; a 2026-07-28 upstream that offers the tasks extension runs tasks through hangar for both generations (test/e2e/modern-upstream-tasks.test.ts)',
};
const untranslatedTask: Expectation = {
	outcome: 'missing',
	reason: /^no task: the upstream answered the call in full/,
	why: 'the v2 client SDK 2.4.0 does not implement the 2026-07-28 tasks extension: the 2025 task param it sends is ignored, as the extension says (the server decides), and the call is answered in full; a client that declares the extension gets the upstream\'s 2025 tasks translated (test/e2e/modern-tasks.test.ts)',
};
/**
 * How long a notification (a list change, a resource update, a log message)
 * may take to reach a client before it counts as not delivered. It only
 * bounds a hang: what is delivered comes within milliseconds, so no outcome
 * depends on the machine's speed.
 */
const notificationWaitMs = 8000;
/** The same for a call that gets no answer (hangar ends it with its error): a hang, bounded. */
const callTimeoutSeconds = 10;
/** Every feature as it goes between two generations: `works` where both legs speak one, `translated` where hangar carries it across. */
const alike = (outcome: 'works' | 'translated', tasks: Expectation): Record<Feature, Expectation> => ({
	call: outcome,
	lists: outcome,
	listChanged: outcome,
	resourceUpdates: outcome,
	sampling: outcome,
	elicitation: outcome,
	tasks,
	logging: outcome,
	progress: outcome,
});
/** With a stdio upstream. */
const expected: Record<ClientKind, Record<UpstreamKind, Record<Feature, Expectation>>> = {
	// A 2026-07-28 client reaches a dual-era upstream's era twin (its 2026-07-28 mode), a 2025 client its 2025 mode: each speaks its own generation.
	modern: {modern: alike('works', noTask), legacy: alike('translated', untranslatedTask), dual: alike('works', noTask)},
	legacy: {modern: alike('translated', noTask), legacy: alike('works', 'works'), dual: alike('works', noTask)},
	dual: {modern: alike('works', noTask), legacy: alike('translated', untranslatedTask), dual: alike('works', noTask)},
};
/**
 * A dual-era upstream over HTTP, as the v2 server SDK serves one
 * (`createMcpHandler`'s default, `legacy: 'stateless'`), to a 2025 client:
 * every 2025 request is served by a fresh instance, with no session and no
 * event stream of its own. (A 2026-07-28 client reaches its 2026-07-28 path
 * through the era twin, where all of these work.)
 */
const statelessDual: Partial<Record<Feature, Expectation>> = {
	listChanged: {
		outcome: 'missing',
		reason: /^no list_changed that shows the upstream's new tool/,
		why: 'a 2025 client reaches a dual-era upstream\'s 2025 mode, which the v2 server SDK serves over HTTP statelessly: with no session and no event stream, its list changes go nowhere (as for a v1 client connected to it directly)',
	},
	resourceUpdates: {
		outcome: 'missing',
		reason: /^no notifications\/resources\/updated within/,
		why: 'as for list changes: the stateless 2025 leg of the v2 server SDK has no stream to send a resource update on',
	},
	sampling: {
		outcome: 'refused',
		reason: new RegExp(`^upstream "dual-http": tools/call "sample" failed: no answer within ${callTimeoutSeconds} s`),
		why: 'the stateless 2025 leg of the v2 server SDK never delivers its sampling request (a v1 client connected to it directly is not asked either, and times out), so the call waits until its deadline (callTimeoutSeconds)',
	},
	elicitation: {
		outcome: 'refused',
		reason: /^Client does not support form elicitation/,
		why: 'the stateless 2025 leg\'s fresh instance never saw an initialize, so it knows no client capabilities and the v2 server SDK refuses to elicit, as it does to a v1 client connected directly (the tool\'s error reaches the client)',
	},
};
/** Where a remote HTTP upstream does otherwise than the same generation over stdio. */
const overHttp: Partial<Record<ClientKind, Partial<Record<UpstreamKind, Partial<Record<Feature, Expectation>>>>>> = {
	legacy: {dual: statelessDual},
};

function expectation(client: ClientKind, upstream: UpstreamKind, upstreamTransport: UpstreamTransport, feature: Feature): Expectation {
	return (upstreamTransport === 'http' ? overHttp[client]?.[upstream]?.[feature] : undefined) ?? expected[client][upstream][feature];
}

const anyResult = z.looseObject({});

/** One connected client, whichever SDK, behind the few operations the cells need. */
type Probe = {
	era: string;
	call: (name: string, args?: Record<string, unknown>) => Promise<{text: string; isError: boolean}>;
	toolNames: () => Promise<string[]>;
	request: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
	/** Resolves at the first tool list change after it was called, or after `ms`. */
	nextListChange: (ms: number) => Promise<boolean>;
	/** Subscribes to a resource's updates (resources/subscribe, or subscriptions/listen on 2026-07-28); resolves with the way to end it. */
	subscribe: (uri: string) => Promise<() => Promise<void>>;
	/** Resolves at the first notifications/resources/updated for `uri` after it was called, or after `ms`. */
	nextUpdate: (uri: string, ms: number) => Promise<boolean>;
	/** The data of every log message that reached the client. */
	logsReceived: ReadonlySet<string>;
	/** Calls `name` at the client's log level ("info": set once on 2025, in the request's `_meta` on 2026-07-28); resolves once the log message carrying `data` arrived, or false after `ms`. */
	logged: (name: string, token: string, data: string, ms: number) => Promise<boolean>;
	/** Calls `name` with a progressToken; resolves with how many progress notifications for it reached the client before its answer. */
	progressed: (name: string) => Promise<number>;
	close: () => Promise<void>;
};

/** The client's log level in every cell. */
const logLevel = 'info';
const logLevelKey = 'io.modelcontextprotocol/logLevel';

const sampling = {role: 'assistant' as const, content: {type: 'text' as const, text: 'hello from the model'}, model: 'test-model'};
const elicitation = {action: 'accept' as const, content: {name: 'Ada'}};

/** Waiters for a notification (of a value `matches` accepts), each woken by the first one after it began to wait. */
function waiter<T = void>(matches: (value: T, wanted: T) => boolean = () => true): {notify: (value: T) => void; next: (wanted: T, ms: number) => Promise<boolean>} {
	const waiting = new Set<{wanted: T; wake: () => void}>();
	return {
		notify: value => {
			for (const entry of waiting) {
				if (!matches(value, entry.wanted)) continue;
				waiting.delete(entry);
				entry.wake();
			}
		},
		next: async (wanted, ms) =>
			new Promise(resolve => {
				const entry = {
					wanted,
					wake: () => {
						clearTimeout(timer);
						resolve(true);
					},
				};
				const timer = setTimeout(() => {
					waiting.delete(entry);
					resolve(false);
				}, Math.max(0, ms));
				waiting.add(entry);
			}),
	};
}

/**
 * Counts, at the client's transport, the progress notifications a call's own
 * token gets before its answer. Not the SDK's `onprogress`: both SDKs run a
 * notification handler a microtask after the messages of the same read, but
 * handle an answer at once and drop its progress handler, so a progress
 * notification read in one chunk with the answer (as hangar's coalesced
 * writes usually deliver the last one) never reaches `onprogress`
 * (modelcontextprotocol/typescript-sdk#2580, v1 and v2); that is the client
 * SDK's doing, the same with any server that writes the two together, and
 * would make the cell depend on how the bytes were read.
 */
function tapProgress(wire: {onmessage?: ((message: never, extra?: never) => void) | undefined}): (call: (progressToken: string) => Promise<unknown>) => Promise<number> {
	const counts = new Map<string, number>();
	const sdk = wire.onmessage!;
	wire.onmessage = (message, extra) => {
		const record = message as {method?: string; params?: {progressToken?: unknown}};
		const token = record.params?.progressToken;
		if (record.method === 'notifications/progress' && typeof token === 'string' && counts.has(token)) counts.set(token, counts.get(token)! + 1);
		sdk(message, extra);
	};
	return async call => {
		const token = `matrix-${randomUUID()}`;
		counts.set(token, 0);
		try {
			await call(token);
			return counts.get(token)!;
		} finally {
			counts.delete(token);
		}
	};
}

function textOf(result: {content?: unknown; isError?: unknown}): {text: string; isError: boolean} {
	const content = (result.content ?? []) as Array<{type: string; text?: string}>;
	return {text: content.map(part => part.text ?? `[${part.type}]`).join(''), isError: result.isError === true};
}

async function legacyClient(transport: Transport, target: string): Promise<Probe> {
	const changes = waiter();
	const updates = waiter<string>((uri, wanted) => uri === wanted);
	const logs = waiter<string>((data, wanted) => data === wanted);
	const received = new Set<string>();
	const client = new Client({name: 'matrix-v1', version: '1.0.0'}, {capabilities: {sampling: {}, elicitation: {}}});
	client.setRequestHandler(CreateMessageRequestSchema, async () => sampling);
	client.setRequestHandler(ElicitRequestSchema, async () => elicitation);
	client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changes.notify());
	client.setNotificationHandler(ResourceUpdatedNotificationSchema, async notification => updates.notify(notification.params.uri));
	client.setNotificationHandler(LoggingMessageNotificationSchema, async notification => {
		received.add(String(notification.params.data));
		logs.notify(String(notification.params.data));
	});
	const wire =
		transport === 'http'
			? new StreamableHTTPClientTransport(new URL(target))
			: new StdioClientTransport({command: process.execPath, args: [cliPath, '--stdio', '--config', target], env: spawnEnv({HANGAR_TEST_TAG: randomUUID()}), stderr: 'pipe'});
	await client.connect(wire);
	const progress = tapProgress(wire);
	await client.setLoggingLevel(logLevel);
	return {
		era: '2025-11-25',
		call: async (name, args = {}) => textOf((await client.callTool({name, arguments: args})) as {content?: unknown; isError?: unknown}),
		toolNames: async () => (await client.listTools()).tools.map(tool => tool.name),
		request: async (method, params) => client.request({method, params} as never, anyResult) as Promise<Record<string, unknown>>,
		nextListChange: async ms => changes.next(undefined, ms),
		subscribe: async uri => {
			await client.subscribeResource({uri});
			return async () => {
				await client.unsubscribeResource({uri});
			};
		},
		nextUpdate: updates.next,
		logsReceived: received,
		logged: async (name, token, data, ms) => {
			const arrived = logs.next(data, ms);
			await client.callTool({name, arguments: {token}});
			return arrived;
		},
		progressed: async name => progress(async progressToken => client.callTool({name, arguments: {}, _meta: {progressToken}})),
		close: async () => client.close(),
	};
}

async function modernClient(transport: Transport, target: string, pinned: boolean): Promise<Probe> {
	const changes = waiter();
	const updates = waiter<string>((uri, wanted) => uri === wanted);
	const logs = waiter<string>((data, wanted) => data === wanted);
	const received = new Set<string>();
	const client = new ModernClient(
		{name: pinned ? 'matrix-v2-pinned' : 'matrix-v2-auto', version: '1.0.0'},
		{
			capabilities: {sampling: {}, elicitation: {}},
			versionNegotiation: {mode: pinned ? {pin: modern} : 'auto'},
			listChanged: {tools: {onChanged: () => changes.notify()}},
		},
	);
	client.setRequestHandler('sampling/createMessage', async () => sampling);
	client.setRequestHandler('elicitation/create', async () => elicitation);
	client.setNotificationHandler('notifications/resources/updated', notification => updates.notify(notification.params.uri));
	client.setNotificationHandler('notifications/message', notification => {
		received.add(String(notification.params.data));
		logs.notify(String(notification.params.data));
	});
	const wire =
		transport === 'http'
			? new ModernHttp(new URL(target))
			: new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', target], env: spawnEnv({HANGAR_TEST_TAG: randomUUID()}), stderr: 'pipe'});
	await client.connect(wire);
	const progress = tapProgress(wire);
	// A 2025 session (auto mode against a 2025 server) sets its level once, as a v1 client does.
	if (client.getNegotiatedProtocolVersion() !== modern) await client.setLoggingLevel(logLevel);
	return {
		era: client.getNegotiatedProtocolVersion() ?? 'unknown',
		call: async (name, args = {}) => textOf(await client.callTool({name, arguments: args})),
		toolNames: async () => (await client.listTools()).tools.map(tool => tool.name),
		request: async (method, params) => client.request({method, params} as never, anyResult) as Promise<Record<string, unknown>>,
		nextListChange: async ms => changes.next(undefined, ms),
		subscribe: async uri => {
			if (client.getNegotiatedProtocolVersion() !== modern) {
				await client.subscribeResource({uri});
				return async () => {
					await client.unsubscribeResource({uri});
				};
			}

			const subscription = await client.listen({resourceSubscriptions: [uri]});
			return async () => subscription.close();
		},
		nextUpdate: updates.next,
		logsReceived: received,
		logged: async (name, token, data, ms) => {
			const arrived = logs.next(data, ms);
			await client.callTool({name, arguments: {token}, _meta: {[logLevelKey]: logLevel}});
			return arrived;
		},
		progressed: async name => progress(async progressToken => client.callTool({name, arguments: {}, _meta: {progressToken}})),
		close: async () => client.close(),
	};
}

const generation = (version: string) => (version === modern ? 'modern' : 'legacy');

/** An error as the matrix states it: its message, without what changes from run to run. */
function reasonOf(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	// What a v2 client says of a 2025 CreateTaskResult in a 2026-07-28 exchange (checked by hand: hangar answers
	// with the upstream's {task, resultType: "complete"}).
	if (message.startsWith('Invalid result for tools/call')) {
		return 'the client\'s SDK rejects the answer as an invalid tools/call result: it is the upstream\'s 2025-11-25 CreateTaskResult, not translated to the 2026-07-28 tasks extension';
	}

	// hangar's own error, without the wrapping each SDK and transport adds (e.g. an HTTP error body as JSON).
	const own = /upstream \\?"([\w-]+)\\?": (.*?)(?:"}}|$)/.exec(message.split('\n')[0]!);
	if (own !== null) return `upstream "${own[1]}": ${own[2]!.replaceAll('\\"', '"')}`;
	return message.split('\n')[0]!.replaceAll(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>').replaceAll(/\d{4,}/g, 'N').slice(0, 300);
}

/** The config's name for an upstream: its era, and `-http` for the remote one. */
const upstreamName = (upstream: UpstreamKind, upstreamTransport: UpstreamTransport) => (upstreamTransport === 'stdio' ? upstream : `${upstream}-http`);

/** Runs every feature of one cell. Each feature's failure is its outcome, never the cell's end. */
async function measureCell(probe: Probe, client: ClientKind, upstream: UpstreamKind, upstreamTransport: UpstreamTransport, transport: Transport): Promise<Cell> {
	const name = upstreamName(upstream, upstreamTransport);
	const tool = (tool: string) => `${name}__${tool}`;
	const upstreamEra = (await probe.call(tool('era'))).text;
	const same: Outcome = {outcome: generation(probe.era) === generation(upstreamEra) ? 'works' : 'translated'};
	const attempt = async (run: () => Promise<Outcome>): Promise<Outcome> => run().catch((error: unknown) => ({outcome: 'refused', reason: reasonOf(error)}));
	const answered = (expected: string) => async (): Promise<Outcome> => {
		const {text, isError} = await probe.call(tool(expected.split(':')[0]!));
		if (isError || !text.includes(expected.split(':')[1]!)) return {outcome: 'refused', reason: reasonOf(text)};
		return same;
	};

	const result: Partial<Record<Feature, Outcome>> = {};
	result.call = await attempt(async () => ((await probe.call(tool('echo'), {message: 'hi'})).text === 'Echo: hi' ? same : {outcome: 'refused', reason: 'echo answered otherwise'}));
	result.lists = await attempt(async () => {
		const names = await probe.toolNames();
		const missing = ['echo', 'era', 'sample', 'elicit', 'grow', 'slow', 'touch', 'log', 'progress'].filter(name => !names.includes(tool(name)));
		return missing.length === 0 ? same : {outcome: 'missing', reason: `tools/list lacks ${missing.join(', ')}`};
	});
	// The two waits for a notification run side by side: a cell that gets neither waits once.
	const notifications = async () => {
		[result.listChanged, result.resourceUpdates] = await Promise.all([
			attempt(async () => {
				// Armed before the change, and again before each look at the list, so no notification falls between.
				const deadline = Date.now() + notificationWaitMs;
				let change = probe.nextListChange(notificationWaitMs);
				const grown = tool((await probe.call(tool('grow'))).text);
				// Another cell's change may come first: the list must come to show this one's.
				while (await change) {
					change = probe.nextListChange(deadline - Date.now());
					if ((await probe.toolNames()).includes(grown)) return same;
				}

				return {outcome: 'missing', reason: `no list_changed that shows the upstream's new tool within ${notificationWaitMs / 1000} s`};
			}),
			attempt(async () => {
				const uri = `matrix://${name}/note`;
				const unsubscribe = await probe.subscribe(uri);
				try {
					const update = probe.nextUpdate(uri, notificationWaitMs);
					await probe.call(tool('touch'));
					return (await update) ? same : {outcome: 'missing', reason: `no notifications/resources/updated within ${notificationWaitMs / 1000} s of the upstream's`};
				} finally {
					await unsubscribe();
				}
			}),
		]);
	};
	const calls = async () => {
		result.sampling = await attempt(answered('sample:sampled: hello from the model'));
		result.elicitation = await attempt(answered('elicit:elicited: accept {"name":"Ada"}'));
		result.tasks = await attempt(async () => {
			const created = await probe.request('tools/call', {name: tool('slow'), arguments: {}, task: {ttl: 60_000}});
			const task = created['task'] as {taskId?: string} | undefined;
			if (task?.taskId === undefined) return {outcome: 'missing', reason: `no task: the upstream answered the call in full${textOf(created).text === 'slow done' ? '' : ` (${reasonOf(JSON.stringify(created))})`}`};
			const done = textOf(await probe.request('tasks/result', {taskId: task.taskId}));
			return done.text === 'slow done' ? same : {outcome: 'refused', reason: `tasks/result: ${reasonOf(done.text)}`};
		});
		result.logging = await attempt(async () => {
			// The upstream logs "debug TOKEN" then "info TOKEN": the second is at the client's level.
			const token = randomUUID();
			logTokens.set(token, probe);
			return (await probe.logged(tool('log'), token, `info ${token}`, notificationWaitMs))
				? same
				: {outcome: 'missing', reason: `no notifications/message at the client's level within ${notificationWaitMs / 1000} s`};
		});
		result.progress = await attempt(async () =>
			(await probe.progressed(tool('progress'))) > 0 ? same : {outcome: 'missing', reason: 'no notifications/progress for the call\'s progressToken before its answer'},
		);
	};
	// Over HTTP what an upstream asks during a call comes on that call's stream, so the calls need not wait for the
	// notifications; a shared stdio instance's sampling request names no call, so there each cell has one call at a time.
	if (upstreamTransport === 'http') await Promise.all([notifications(), calls()]);
	else {
		await notifications();
		await calls();
	}

	return {client, upstream, upstreamTransport, transport, clientEra: probe.era, upstreamEra, features: result as Record<Feature, Outcome>};
}

const measured: Cell[] = [];
/** Each log message's token, with the client whose call caused it. */
const logTokens = new Map<string, Probe>();
const opened: Probe[] = [];
const remoteUpstreams: ChildProcess[] = [];
let stdioConfig = '';

/** A matrix upstream as a remote Streamable HTTP server on loopback; resolves with its URL. */
async function startRemoteUpstream(era: UpstreamKind): Promise<string> {
	return startMatrixUpstreamOverHttp(era, upstreamName(era, 'http'), remoteUpstreams);
}

/** A hangar's six upstreams: each generation over stdio (one instance shared by the clients) and over HTTP (`urls`). */
function upstreamsConfig(urls: string[]): Record<string, Record<string, unknown>> {
	return Object.fromEntries(
		upstreamKinds.flatMap((kind, at) => [
			[upstreamName(kind, 'stdio'), {command: process.execPath, args: [upstreamScript, '--era', kind], instances: 'shared', callTimeoutSeconds}],
			[upstreamName(kind, 'http'), {url: urls[at], instances: 'shared', callTimeoutSeconds}],
		]),
	);
}

beforeAll(async () => {
	// "shared": one instance of each stdio upstream for every client of a hangar, as the generations are what is measured
	// here ("auto" would move an upstream to an instance per client once it asks for sampling: docs/protocol.md).
	// Both hangars reach the same remote upstreams, each in sessions (or, for the v2 SDK, requests) of its own.
	const upstreams = upstreamsConfig(await Promise.all(upstreamKinds.map(startRemoteUpstream)));
	// lingerSeconds: the shared supervisor the stdio clients attach to ends soon after the last one leaves.
	stdioConfig = writeConfig(tempDir(), upstreams, {...fastHangar, lingerSeconds: 1});
	const targets: Record<Transport, string> = {stdio: stdioConfig, http: ''};
	const connect = async (client: ClientKind, transport: Transport) =>
		client === 'legacy' ? legacyClient(transport, targets[transport]) : modernClient(transport, targets[transport], client === 'modern');
	// The first stdio client starts the shared supervisor (the others attach to it) while serve --http starts.
	const [first, http] = await Promise.all([connect('legacy', 'stdio'), serveHttp(writeConfig(tempDir(), upstreams, fastHangar))]);
	targets.http = http.url;
	opened.push(first);
	const rest = await Promise.all(transports.flatMap(transport => clientKinds.filter(client => !(transport === 'stdio' && client === 'legacy')).map(async client => ({client, transport, probe: await connect(client, transport)}))));
	opened.push(...rest.map(entry => entry.probe));
	const probes = [{client: 'legacy' as const, transport: 'stdio' as const, probe: first}, ...rest];
	const measure = async (probe: Probe, client: ClientKind, upstream: UpstreamKind, upstreamTransport: UpstreamTransport, transport: Transport) =>
		void measured.push(await measureCell(probe, client, upstream, upstreamTransport, transport));
	await Promise.all([
		// The stdio upstreams in three rounds: in each, every client of a hangar works with a different one, so no
		// upstream serves two cells at once (a v1 server's sampling request on stdio says not which call it is for).
		(async () => {
			for (let round = 0; round < upstreamKinds.length; round++) {
				await Promise.all(probes.map(async ({client, transport, probe}) => measure(probe, client, upstreamKinds[(clientKinds.indexOf(client) + round) % upstreamKinds.length]!, 'stdio', transport)));
			}
		})(),
		// The remote ones all at once: over HTTP, what an upstream asks or sends during a call comes on that call's own stream.
		...probes.flatMap(({client, transport, probe}) => upstreamKinds.map(async upstream => measure(probe, client, upstream, 'http', transport))),
	]);
	if (process.env['COMPAT_MATRIX_DUMP'] !== undefined) fs.writeFileSync(process.env['COMPAT_MATRIX_DUMP'], JSON.stringify(measured, null, 1));
}, 240_000);

afterAll(async () => {
	await Promise.all(opened.map(async probe => probe.close().catch(() => undefined)));
	await stopHttpHangars();
	if (stdioConfig !== '') await runCli(['shutdown', '--config', stdioConfig]);
	// Each remote upstream ends when its stdin does.
	await Promise.all(
		remoteUpstreams.map(async child => {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = once(child, 'exit');
			child.stdin!.end();
			await exited;
		}),
	);
});

/** How a measured cell differs from `expected`, one line per feature (none: as expected). */
function differences(cell: Cell): string[] {
	return features.flatMap(feature => {
		const want = expectation(cell.client, cell.upstream, cell.upstreamTransport, feature);
		const got = cell.features[feature];
		const outcome = typeof want === 'string' ? want : want.outcome;
		if (got.outcome !== outcome) return [`${feature}: expected ${outcome}, measured ${got.outcome}${got.reason === undefined ? '' : ` (${got.reason})`}`];
		if (typeof want !== 'string' && !want.reason.test(got.reason ?? '')) return [`${feature}: ${outcome} as expected, but "${got.reason ?? ''}" does not match ${String(want.reason)}`];
		return [];
	});
}

describe('the compatibility matrix: client generation × upstream generation × upstream transport × hangar endpoint', () => {
	for (const transport of transports) {
		for (const upstreamTransport of upstreamTransports) {
			for (const client of clientKinds) {
				for (const upstream of upstreamKinds) {
					it(`${client} client → ${upstream} upstream over ${upstreamTransport}, through hangar's ${transport} endpoint`, () => {
						const cell = measured.find(entry => entry.client === client && entry.upstream === upstream && entry.upstreamTransport === upstreamTransport && entry.transport === transport);
						expect(cell, 'the cell was measured').toBeDefined();
						expect(differences(cell!)).toEqual([]);
					});
				}
			}
		}
	}

	// Each cell's own message reached its caller (the logging column). Others' may too: on a shared instance a 2025
	// session gets every message its level admits, a 2026-07-28 identity those during its requests to that upstream
	// (docs/protocol.md); but none below the client's level.
	it('sends no client a log message below its level', () => {
		expect(logTokens.size, 'every cell logged').toBe(measured.length);
		const below = opened.flatMap((probe, at) => [...probe.logsReceived].filter(data => logTokens.has(data.split(' ')[1] ?? '') && !data.startsWith(`${logLevel} `)).map(data => `client ${at}: ${data}`));
		expect(below).toEqual([]);
	});

	it('is what test/compat-matrix.json and the README say', () => {
		const order = (cell: Cell) =>
			((transports.indexOf(cell.transport) * upstreamTransports.length + upstreamTransports.indexOf(cell.upstreamTransport)) * clientKinds.length + clientKinds.indexOf(cell.client)) * upstreamKinds.length +
			upstreamKinds.indexOf(cell.upstream);
		// Each gap with the test's account of why (the README shows it).
		const explained = (cell: Cell): Cell => ({
			...cell,
			features: Object.fromEntries(
				features.map(feature => {
					const want = expectation(cell.client, cell.upstream, cell.upstreamTransport, feature);
					const got = cell.features[feature];
					return [feature, typeof want !== 'string' && want.outcome === got.outcome ? {...got, why: want.why} : got];
				}),
			) as Record<Feature, Outcome>,
		});
		const matrix: Matrix = {measuredWith: 'MCP SDK v1 1.32.2 and v2 2.4.0', cells: [...measured].sort((a, b) => order(a) - order(b)).map(explained)};
		expect(matrix.cells).toHaveLength(clientKinds.length * upstreamKinds.length * upstreamTransports.length * transports.length);
		const readmePath = path.join(root, 'README.md');
		const readme = fs.readFileSync(readmePath, 'utf8');
		// Rewritten only from a run in which every cell measured what `expected` says.
		if (process.env['UPDATE_COMPAT_MATRIX'] === '1' && matrix.cells.every(cell => differences(cell).length === 0)) {
			fs.writeFileSync(matrixFile, `${JSON.stringify(matrix, null, '\t')}\n`);
			fs.writeFileSync(readmePath, withReadmeSection(readme, renderMatrix(matrix)));
		}

		expect(JSON.parse(fs.readFileSync(matrixFile, 'utf8'))).toEqual(matrix);
		expect(readmeSection(fs.readFileSync(readmePath, 'utf8'))).toBe(renderMatrix(matrix));
	});
});
