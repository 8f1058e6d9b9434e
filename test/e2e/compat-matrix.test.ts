/**
 * The compatibility matrix (issue 31): real SDK clients of each generation
 * (v2 pinned to 2026-07-28, v1, v2 in auto mode) × real SDK upstreams of each
 * generation (test/fixtures/matrix-upstream.mjs: v2 modern-only, v1, v2
 * dual-era) × hangar's `--stdio` (the shared supervisor, as clients launch
 * it) and `serve --http`. In every cell: a call, lists, a list change, a
 * resource subscription, the upstream's sampling and elicitation
 * (input_required where a side is 2026-07-28) and a task. One hangar per transport with the three upstreams,
 * one client of each kind per transport, the cells run side by side.
 *
 * `expected` below is what hangar does today; the test fails when a cell
 * measures otherwise. The measured matrix is test/compat-matrix.json and the
 * README's table (test/drift/compat-matrix.test.ts checks the two agree);
 * `UPDATE_COMPAT_MATRIX=1` rewrites both from a run whose cells all passed.
 */
import fs from 'node:fs';
import path from 'node:path';
import {randomUUID} from 'node:crypto';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {CreateMessageRequestSchema, ElicitRequestSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema} from '@modelcontextprotocol/sdk/types.js';
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
	withReadmeSection,
	type Cell,
	type ClientKind,
	type Feature,
	type Matrix,
	type Outcome,
	type Transport,
	type UpstreamKind,
} from '../support/compat-matrix.js';

const modern = '2026-07-28';
const upstreamScript = path.join(root, 'test', 'fixtures', 'matrix-upstream.mjs');

/**
 * What each cell does today, the same on both transports. One line per
 * feature and pair: flip it when hangar or a fixture learns it.
 * An outcome other than works/translated carries a pattern the measured
 * reason must match (the error the client got, or what it waited for) and
 * why, which the README shows.
 */
type Expectation = 'works' | 'translated' | {outcome: 'refused' | 'missing'; reason: RegExp; why: string};
const noTask: Expectation = {
	outcome: 'missing',
	reason: /^no task: the upstream answered the call in full/,
	why: 'the upstream offers no tasks (the v2 server SDK 2.4.0 implements neither 2025 tasks nor the 2026-07-28 tasks extension), so a task-augmented call is answered as a plain one',
};
const untranslatedTask: Expectation = {
	outcome: 'missing',
	reason: /^no task: the upstream answered the call in full/,
	why: 'the v2 client SDK 2.4.0 does not implement the 2026-07-28 tasks extension: the 2025 task param it sends is ignored, as the extension says (the server decides), and the call is answered in full; a client that declares the extension gets the upstream\'s 2025 tasks translated (test/e2e/modern-tasks.test.ts)',
};
const expected: Record<ClientKind, Record<UpstreamKind, Record<Feature, Expectation>>> = {
	modern: {
		modern: {call: 'works', lists: 'works', listChanged: 'works', resourceUpdates: 'works', sampling: 'works', elicitation: 'works', tasks: noTask},
		legacy: {call: 'translated', lists: 'translated', listChanged: 'translated', resourceUpdates: 'translated', sampling: 'translated', elicitation: 'translated', tasks: untranslatedTask},
		dual: {call: 'translated', lists: 'translated', listChanged: 'translated', resourceUpdates: 'translated', sampling: 'translated', elicitation: 'translated', tasks: noTask},
	},
	legacy: {
		modern: {call: 'translated', lists: 'translated', listChanged: 'translated', resourceUpdates: 'translated', sampling: 'translated', elicitation: 'translated', tasks: noTask},
		legacy: {call: 'works', lists: 'works', listChanged: 'works', resourceUpdates: 'works', sampling: 'works', elicitation: 'works', tasks: 'works'},
		dual: {call: 'works', lists: 'works', listChanged: 'works', resourceUpdates: 'works', sampling: 'works', elicitation: 'works', tasks: noTask},
	},
	dual: {
		modern: {call: 'works', lists: 'works', listChanged: 'works', resourceUpdates: 'works', sampling: 'works', elicitation: 'works', tasks: noTask},
		legacy: {call: 'translated', lists: 'translated', listChanged: 'translated', resourceUpdates: 'translated', sampling: 'translated', elicitation: 'translated', tasks: untranslatedTask},
		dual: {call: 'translated', lists: 'translated', listChanged: 'translated', resourceUpdates: 'translated', sampling: 'translated', elicitation: 'translated', tasks: noTask},
	},
};

/** How long a list change may take to reach a client before it counts as not delivered. */
const listChangeWaitMs = 2000;
/** The same for a subscribed resource's update. */
const updateWaitMs = 2000;
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
	close: () => Promise<void>;
};

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

function textOf(result: {content?: unknown; isError?: unknown}): {text: string; isError: boolean} {
	const content = (result.content ?? []) as Array<{type: string; text?: string}>;
	return {text: content.map(part => part.text ?? `[${part.type}]`).join(''), isError: result.isError === true};
}

async function legacyClient(transport: Transport, target: string): Promise<Probe> {
	const changes = waiter();
	const updates = waiter<string>((uri, wanted) => uri === wanted);
	const client = new Client({name: 'matrix-v1', version: '1.0.0'}, {capabilities: {sampling: {}, elicitation: {}}});
	client.setRequestHandler(CreateMessageRequestSchema, async () => sampling);
	client.setRequestHandler(ElicitRequestSchema, async () => elicitation);
	client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changes.notify());
	client.setNotificationHandler(ResourceUpdatedNotificationSchema, async notification => updates.notify(notification.params.uri));
	await client.connect(
		transport === 'http'
			? new StreamableHTTPClientTransport(new URL(target))
			: new StdioClientTransport({command: process.execPath, args: [cliPath, '--stdio', '--config', target], env: spawnEnv({HANGAR_TEST_TAG: randomUUID()}), stderr: 'pipe'}),
	);
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
		close: async () => client.close(),
	};
}

async function modernClient(transport: Transport, target: string, pinned: boolean): Promise<Probe> {
	const changes = waiter();
	const updates = waiter<string>((uri, wanted) => uri === wanted);
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
	await client.connect(
		transport === 'http'
			? new ModernHttp(new URL(target))
			: new ModernStdio({command: process.execPath, args: [cliPath, '--stdio', '--config', target], env: spawnEnv({HANGAR_TEST_TAG: randomUUID()}), stderr: 'pipe'}),
	);
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
	const own = /upstream \\?"(\w+)\\?": (.*?)(?:"}}|$)/.exec(message.split('\n')[0]!);
	if (own !== null) return `upstream "${own[1]}": ${own[2]!.replaceAll('\\"', '"')}`;
	return message.split('\n')[0]!.replaceAll(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>').replaceAll(/\d{4,}/g, 'N').slice(0, 300);
}

/** Runs every feature of one cell. Each feature's failure is its outcome, never the cell's end. */
async function measureCell(probe: Probe, upstream: UpstreamKind, transport: Transport, client: ClientKind): Promise<Cell> {
	const tool = (name: string) => `${upstream}__${name}`;
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
		const missing = ['echo', 'era', 'sample', 'elicit', 'grow', 'slow'].filter(name => !names.includes(tool(name)));
		return missing.length === 0 ? same : {outcome: 'missing', reason: `tools/list lacks ${missing.join(', ')}`};
	});
	result.listChanged = await attempt(async () => {
		// Armed before the change, and again before each look at the list, so no notification falls between.
		const deadline = Date.now() + listChangeWaitMs;
		let change = probe.nextListChange(listChangeWaitMs);
		const grown = tool((await probe.call(tool('grow'))).text);
		// Another cell's change may come first: the list must come to show this one's.
		while (await change) {
			change = probe.nextListChange(deadline - Date.now());
			if ((await probe.toolNames()).includes(grown)) return same;
		}

		return {outcome: 'missing', reason: `no list_changed that shows the upstream's new tool within ${listChangeWaitMs / 1000} s`};
	});
	result.resourceUpdates = await attempt(async () => {
		const uri = `matrix://${upstream}/note`;
		const unsubscribe = await probe.subscribe(uri);
		try {
			const update = probe.nextUpdate(uri, updateWaitMs);
			await probe.call(tool('touch'));
			return (await update) ? same : {outcome: 'missing', reason: `no notifications/resources/updated within ${updateWaitMs / 1000} s of the upstream's`};
		} finally {
			await unsubscribe();
		}
	});
	result.sampling = await attempt(answered('sample:sampled: hello from the model'));
	result.elicitation = await attempt(answered('elicit:elicited: accept {"name":"Ada"}'));
	result.tasks = await attempt(async () => {
		const created = await probe.request('tools/call', {name: tool('slow'), arguments: {}, task: {ttl: 60_000}});
		const task = created['task'] as {taskId?: string} | undefined;
		if (task?.taskId === undefined) return {outcome: 'missing', reason: `no task: the upstream answered the call in full${textOf(created).text === 'slow done' ? '' : ` (${reasonOf(JSON.stringify(created))})`}`};
		const done = textOf(await probe.request('tasks/result', {taskId: task.taskId}));
		return done.text === 'slow done' ? same : {outcome: 'refused', reason: `tasks/result: ${reasonOf(done.text)}`};
	});
	return {client, upstream, transport, clientEra: probe.era, upstreamEra, features: result as Record<Feature, Outcome>};
}

const measured: Cell[] = [];
const opened: Probe[] = [];
let stdioConfig = '';

beforeAll(async () => {
	const dir = tempDir();
	// "shared": one instance of each upstream for every client of a hangar, as the generations are what is measured
	// here ("auto" would move an upstream to an instance per client once it asks for sampling: docs/protocol.md).
	const upstreams = Object.fromEntries(upstreamKinds.map(kind => [kind, {command: process.execPath, args: [upstreamScript, '--era', kind], instances: 'shared'}]));
	// lingerSeconds: the shared supervisor the stdio clients attach to ends soon after the last one leaves.
	stdioConfig = writeConfig(dir, upstreams, {...fastHangar, lingerSeconds: 1});
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
	// Three rounds: in each, every client of a transport works with a different upstream (no upstream serves two
	// cells at once, so an upstream's sampling request on a shared stdio instance is never ambiguous between them).
	for (let round = 0; round < upstreamKinds.length; round++) {
		await Promise.all(
			probes.map(async ({client, transport, probe}) => {
				const upstream = upstreamKinds[(clientKinds.indexOf(client) + round) % upstreamKinds.length]!;
				measured.push(await measureCell(probe, upstream, transport, client));
			}),
		);
	}
}, 120_000);

afterAll(async () => {
	await Promise.all(opened.map(async probe => probe.close().catch(() => undefined)));
	await stopHttpHangars();
	if (stdioConfig !== '') await runCli(['shutdown', '--config', stdioConfig]);
});

/** How a measured cell differs from `expected`, one line per feature (none: as expected). */
function differences(cell: Cell): string[] {
	return features.flatMap(feature => {
		const want = expected[cell.client][cell.upstream][feature];
		const got = cell.features[feature];
		const outcome = typeof want === 'string' ? want : want.outcome;
		if (got.outcome !== outcome) return [`${feature}: expected ${outcome}, measured ${got.outcome}${got.reason === undefined ? '' : ` (${got.reason})`}`];
		if (typeof want !== 'string' && !want.reason.test(got.reason ?? '')) return [`${feature}: ${outcome} as expected, but "${got.reason ?? ''}" does not match ${String(want.reason)}`];
		return [];
	});
}

describe('the compatibility matrix: client generation × upstream generation × transport', () => {
	for (const transport of transports) {
		for (const client of clientKinds) {
			for (const upstream of upstreamKinds) {
				it(`${client} client → ${upstream} upstream over ${transport}`, () => {
					const cell = measured.find(entry => entry.client === client && entry.upstream === upstream && entry.transport === transport);
					expect(cell, 'the cell was measured').toBeDefined();
					expect(differences(cell!)).toEqual([]);
				});
			}
		}
	}

	it('is what test/compat-matrix.json and the README say', () => {
		const order = (cell: Cell) => transports.indexOf(cell.transport) * 9 + clientKinds.indexOf(cell.client) * 3 + upstreamKinds.indexOf(cell.upstream);
		// Each gap with the test's account of why (the README shows it).
		const explained = (cell: Cell): Cell => ({
			...cell,
			features: Object.fromEntries(
				features.map(feature => {
					const want = expected[cell.client][cell.upstream][feature];
					const got = cell.features[feature];
					return [feature, typeof want !== 'string' && want.outcome === got.outcome ? {...got, why: want.why} : got];
				}),
			) as Record<Feature, Outcome>,
		});
		const matrix: Matrix = {measuredWith: 'MCP SDK v1 1.32.2 and v2 2.4.0', cells: [...measured].sort((a, b) => order(a) - order(b)).map(explained)};
		expect(matrix.cells).toHaveLength(clientKinds.length * upstreamKinds.length * transports.length);
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
