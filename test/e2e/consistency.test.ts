/**
 * One source of truth (issue 3, seed 000): after each lifecycle event of an
 * upstream (start, crash, breaker open, idle stop, person stop, quarantine,
 * tool list change) every surface says the same thing about it, and a tool a
 * surface calls callable really is called.
 *
 * The surfaces: `hangar_list`, `hangar_details`, `hangar_find_tools`, the
 * exposed `tools/list`, and the call path itself, all read over the built
 * `mcp-hangar --stdio` by a real SDK client; the TUI reads the same views
 * in-process (`statusEntries`, `upstreamDetails`), checked against the
 * supervisor's events at the end.
 *
 * The rules (`assertAgree`), per upstream:
 * - hangar_list and hangar_details.server give the same state, admin state,
 *   ready, callable, stale, lastVerifiedAt, tool count, pid and breaker;
 * - its tools are exposed unless it is (or is being) stopped by a person,
 *   quarantined or disabled (`admin` is not "enabled"): tools/list then holds
 *   exactly its `<server>__<tool>` names (the ones hangar_details names), and
 *   hangar_find_tools finds them; otherwise neither shows any;
 * - every find_tools hit carries the hangar_list entry's state, callable,
 *   stale and lastVerifiedAt, names a tool tools/list lists, with the same
 *   input schema;
 * - `ready` is `state === "ready"`; `callable` is true for ready, starting and
 *   cold, false for degraded, dead, stopped, quarantined and disabled.
 *
 * The call check (`checkCall`): when hangar_list says callable, the call is
 * attempted (it succeeds, or fails as the upstream failed), never refused with
 * -32004 UpstreamUnavailable or -32005 CircuitOpen; when it says not callable,
 * the call is refused with one of those, and nothing was started (same
 * upstream processes, same pid, no new start in its transitions).
 */
import {afterEach, describe, expect, it} from 'vitest';
import type {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {CallToolResultSchema, McpError, ToolListChangedNotificationSchema, type CallToolResult, type Tool} from '@modelcontextprotocol/sdk/types.js';
import {managementTools} from '../../source/core/gateway/management-tools.js';
import {findTools, statusEntries, upstreamDetails, type StatusEntry, type ToolHit, type UpstreamDetails} from '../../source/core/views/views.js';
import type {TransitionEvent} from '../../source/core/engine/upstream/upstream.js';
import {
	everything,
	fastHangar,
	fixture,
	stubborn,
	memory,
	processesWithTag,
	closeHangars,
	openHangar,
	tempDir,
	waitFor,
	writeConfig,
	type HangarHandle,
	type ServerEntry,
} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

afterEach(async () => {
	await closeHangars();
	await closeAll();
});

async function open(servers: Record<string, ServerEntry>, hangar: Record<string, unknown> = {}): Promise<HangarHandle> {
	const handle = await openHangar(writeConfig(tempDir(), servers, {...fastHangar, ...hangar}));
	// A session's first tools/list waits for the upstreams' launch starts (hangar.firstListWaitSeconds), while the
	// other surfaces answer at once: taken here, so the surfaces a test reads together are read at one moment.
	await handle.client.listTools();
	return handle;
}

// ---------------------------------------------------------------------------
// Reading every surface

type Surfaces = {
	/** hangar_list's structuredContent.upstreams. */
	list: StatusEntry[];
	/** tools/list. */
	tools: Tool[];
	/** hangar_find_tools hits per upstream, for that upstream's query. */
	hits: Record<string, ToolHit[]>;
	/** hangar_details per upstream. */
	details: Record<string, UpstreamDetails>;
};

async function callRaw(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
	return client.request({method: 'tools/call', params: {name, arguments: args}}, CallToolResultSchema);
}

async function structured<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
	return (await callRaw(client, name, args)).structuredContent as T;
}

const listOf = async (client: Client) => (await structured<{upstreams: StatusEntry[]}>(client, 'hangar_list')).upstreams;
const entryOf = async (client: Client, name: string) => {
	const entry = (await listOf(client)).find(candidate => candidate.name === name);
	if (entry === undefined) throw new Error(`no upstream ${name} in hangar_list`);
	return entry;
};

/** What must not move while the surfaces are read, for the reading to count as one moment. */
const momentKey = (list: StatusEntry[]) =>
	JSON.stringify(list.map(entry => [entry.name, entry.state, entry.admin, entry.callable, entry.stale, entry.lastVerifiedAt, entry.tools, entry.pid, entry.breaker]));

/**
 * Reads hangar_list, tools/list, hangar_find_tools (per upstream: its
 * `queries` entry, else its own name, which matches every one of its
 * `<server>__<tool>` names) and hangar_details, all sent at once, between
 * two more hangar_list reads; if an upstream moved in between (a transition
 * racing the reads), it reads again. Disagreement in a settled state is never
 * retried away: it is what the caller asserts on.
 */
async function surfaces(client: Client, queries: Record<string, string> = {}): Promise<Surfaces> {
	const names = (await listOf(client)).map(entry => entry.name);
	for (let attempt = 0; attempt < 20; attempt++) {
		const [before, tools, hits, details, after] = await Promise.all([
			listOf(client),
			client.listTools(),
			Promise.all(names.map(async name => structured<{hits: ToolHit[]}>(client, 'hangar_find_tools', {query: queries[name] ?? name, limit: 50}))),
			Promise.all(names.map(async name => structured<UpstreamDetails>(client, 'hangar_details', {server: name}))),
			listOf(client),
		]);
		if (momentKey(before) !== momentKey(after)) continue;
		return {
			list: before,
			tools: tools.tools,
			hits: Object.fromEntries(names.map((name, i) => [name, hits[i]!.hits])),
			details: Object.fromEntries(names.map((name, i) => [name, details[i]!])),
		};
	}

	throw new Error('the upstreams never held still for one reading of every surface');
}

// ---------------------------------------------------------------------------
// Agreement

const notCallableStates = new Set(['degraded', 'dead', 'stopped', 'quarantined', 'disabled']);
const callableStates = new Set(['ready', 'starting', 'cold']);
const managementNames = managementTools.map(tool => tool.name).sort();

/** The tool-list part of a view, comparable across surfaces. */
const schemaOf = (tools: Tool[], name: string) => tools.find(tool => tool.name === name)?.inputSchema;

/**
 * Checks every rule in the header for every upstream; returns the surfaces for
 * further checks. In `search` exposure tools/list is the management tools
 * only, and everything else must hold as in `direct`.
 */
function assertAgree(s: Surfaces, exposure: 'direct' | 'search' = 'direct'): Surfaces {
	const configured = s.list.map(entry => entry.name);
	// tools/list holds the management tools and namespaced tools of configured upstreams, nothing else.
	for (const tool of s.tools) {
		if (managementNames.includes(tool.name)) continue;
		expect(exposure, `tools/list names ${tool.name} in search exposure`).toBe('direct');
		expect(configured, `tools/list names ${tool.name}, of no configured upstream`).toContain(tool.name.slice(0, tool.name.indexOf('__')));
	}

	expect(s.tools.filter(tool => tool.name.startsWith('hangar_')).map(tool => tool.name).sort()).toEqual(managementNames);

	for (const entry of s.list) {
		const where = `${entry.name} (${entry.state}, admin ${entry.admin})`;
		const details = s.details[entry.name]!;
		// hangar_list and hangar_details: the same view.
		expect(details.server.state, `${where}: hangar_details state`).toBe(entry.state);
		for (const key of ['admin', 'ready', 'callable', 'stale', 'lastVerifiedAt', 'tools', 'toolsSource', 'pid', 'breaker'] as const) {
			expect(details.server[key], `${where}: hangar_details ${key}`).toEqual(entry[key]);
		}

		expect(details.tools.length, `${where}: hangar_details tools vs hangar_list tools`).toBe(entry.tools);

		// ready, callable, admin, pid follow from the state.
		expect(entry.ready, `${where}: ready`).toBe(entry.state === 'ready');
		if (notCallableStates.has(entry.state)) expect(entry.callable, `${where}: callable`).toBe(false);
		if (callableStates.has(entry.state)) expect(entry.callable, `${where}: callable`).toBe(true);
		if (entry.state === 'stopped' || entry.state === 'quarantined' || entry.state === 'disabled') expect(entry.admin, `${where}: admin`).toBe(entry.state);
		if (entry.state === 'cold' || entry.state === 'dead' || entry.state === 'stopped' || entry.state === 'quarantined' || entry.state === 'disabled') {
			expect(entry.pid, `${where}: pid of an upstream that is not running`).toBeNull();
		}

		// Exposure: tools/list and find_tools show its tools exactly when nobody switched it off.
		const exposed = entry.admin === 'enabled';
		const listed = s.tools.filter(tool => tool.name.startsWith(`${entry.name}__`)).map(tool => tool.name).sort();
		const hits = s.hits[entry.name]!.filter(hit => hit.server === entry.name);
		if (exposed) {
			if (exposure === 'direct') {
				expect(listed, `${where}: tools/list vs the tools hangar_details names`).toEqual(details.tools.map(tool => tool.exposedName).sort());
				expect(listed.length, `${where}: tools/list vs hangar_list tools`).toBe(entry.tools);
				for (const tool of details.tools) expect(schemaOf(s.tools, tool.exposedName!), `${where}: input schema of ${tool.exposedName}`).toEqual(tool.inputSchema);
			}

			if (entry.tools > 0) expect(hits.length, `${where}: hangar_find_tools finds none of its ${entry.tools} tools`).toBeGreaterThan(0);
		} else {
			expect(listed, `${where}: tools/list lists tools of an upstream hangar_list says is ${entry.admin}`).toEqual([]);
			expect(hits.map(hit => hit.name), `${where}: hangar_find_tools finds tools of an upstream hangar_list says is ${entry.admin}`).toEqual([]);
		}

		for (const hit of hits) {
			const at = `${where}: hangar_find_tools hit ${hit.name}`;
			expect({state: hit.state, callable: hit.callable, stale: hit.stale, lastVerifiedAt: hit.lastVerifiedAt}, at).toEqual({
				state: entry.state,
				callable: entry.callable,
				stale: entry.stale,
				lastVerifiedAt: entry.lastVerifiedAt,
			});
			if (exposure === 'direct') {
				expect(listed, `${at} is not in tools/list`).toContain(hit.name);
				expect(schemaOf(s.tools, hit.name), `${at}: input schema`).toEqual(hit.inputSchema);
			}

			const detail = details.tools.find(tool => tool.name === hit.tool && tool.exposedName === hit.name);
			expect(detail, `${at}: hangar_details has no tool ${hit.tool}`).toBeDefined();
			expect(detail?.inputSchema, `${at}: input schema in hangar_details`).toEqual(hit.inputSchema);
		}
	}

	return s;
}

const entry = (s: Surfaces, name: string): StatusEntry => s.list.find(candidate => candidate.name === name)!;
const listedNames = (s: Surfaces, server: string): string[] => s.tools.filter(tool => tool.name.startsWith(`${server}__`)).map(tool => tool.name);

// ---------------------------------------------------------------------------
// The call path

type Outcome = {ok: true; result: CallToolResult} | {ok: false; code: number; message: string; data: Record<string, unknown> | undefined};

async function outcome(client: Client, name: string, args: Record<string, unknown>): Promise<Outcome> {
	try {
		return {ok: true, result: await callRaw(client, name, args)};
	} catch (error) {
		if (error instanceof McpError) return {ok: false, code: error.code, message: error.message, data: error.data as Record<string, unknown> | undefined};
		throw error;
	}
}

const refusals = [-32_004, -32_005];

/** Upstream processes of one hangar (everything carrying its tag but hangar itself). */
const upstreamProcesses = (h: HangarHandle) => processesWithTag(h.tag).filter(pid => pid !== h.pid).sort((a, b) => a - b);
const starts = (details: UpstreamDetails) => details.transitions.filter(record => record.event === 'start').length;

/**
 * Calls `tool` of `server` (as `<server>__<tool>`, or through hangar_call
 * with `via: 'hangar_call'`) and checks the outcome against what hangar_list
 * said just before: callable means attempted, not callable means refused
 * without a start.
 */
async function checkCall(h: HangarHandle, server: string, tool: string, args: Record<string, unknown> = {}, via: 'direct' | 'hangar_call' = 'direct'): Promise<Outcome> {
	const client = h.client;
	const before = await entryOf(client, server);
	const processesBefore = upstreamProcesses(h);
	const startsBefore = starts(await structured<UpstreamDetails>(client, 'hangar_details', {server}));
	const result =
		via === 'direct' ? await outcome(client, `${server}__${tool}`, args) : await outcome(client, 'hangar_call', {server, tool, arguments: args});
	const what = `${server}__${tool} (${via}) while hangar_list said ${before.state}, callable ${before.callable}`;
	if (before.callable) {
		if (!result.ok) expect(refusals, `${what}: refused: ${result.message}`).not.toContain(result.code);
		return result;
	}

	expect(result.ok, `${what}: the call went through`).toBe(false);
	if (result.ok) return result;
	expect(refusals, `${what}: ${result.message}`).toContain(result.code);
	if (result.code === -32_004) expect(result.data?.['state'], `${what}: the refusal's state`).toBe(before.state);
	const after = await entryOf(client, server);
	expect(after.state, `${what}: state after the refusal`).toBe(before.state);
	expect(after.pid, `${what}: pid after the refusal`).toBe(before.pid);
	expect(upstreamProcesses(h), `${what}: upstream processes after the refusal`).toEqual(processesBefore);
	expect(starts(await structured<UpstreamDetails>(client, 'hangar_details', {server})), `${what}: starts after the refusal`).toBe(startsBefore);
	return result;
}

const text = (result: Outcome): string => (result.ok ? JSON.stringify(result.result.content) : `error ${result.code}: ${result.message}`);
const firstText = (result: Outcome): string => (result.ok ? ((result.result.content[0] as {text?: string} | undefined)?.text ?? '') : text(result));

/** Waits until `server` is in `state` on hangar_list, then reads and checks every surface. */
async function settledIn(
	h: HangarHandle,
	server: string,
	state: string,
	{queries = {}, exposure = 'direct'}: {queries?: Record<string, string>; exposure?: 'direct' | 'search'} = {},
): Promise<Surfaces> {
	await waitFor(async () => (await entryOf(h.client, server)).state === state, `${server} to be ${state}`);
	const s = assertAgree(await surfaces(h.client, queries), exposure);
	expect(entry(s, server).state, `${server} left ${state} while the surfaces were read`).toBe(state);
	return s;
}

// ---------------------------------------------------------------------------

describe('every surface agrees after each lifecycle event (mcp-hangar --stdio)', () => {
	it('start: a lazy cold upstream is listed and callable, a call starts it, and every surface shows the live tools', async () => {
		const h = await open({
			fx: fixture('slow-start', ['--delay-ms', '800'], {tools: [{name: 'echo', description: 'Echo (predefined)', inputSchema: {type: 'object', properties: {message: {type: 'string'}}}}]}),
		});
		let s = await settledIn(h, 'fx', 'cold');
		expect(entry(s, 'fx')).toMatchObject({callable: true, ready: false, stale: true, lastVerifiedAt: null, toolsSource: 'config', tools: 1, pid: null});
		expect(listedNames(s, 'fx')).toEqual(['fx__echo']);
		expect(upstreamProcesses(h)).toEqual([]);

		// The first call starts it; while it starts, another call is attempted too (it waits for the start).
		const first = checkCall(h, 'fx', 'echo', {message: 'first'});
		await waitFor(async () => (await entryOf(h.client, 'fx')).state === 'starting', 'fx to be starting');
		s = assertAgree(await surfaces(h.client));
		if (entry(s, 'fx').state === 'starting') expect(entry(s, 'fx')).toMatchObject({callable: true, ready: false, tools: 1});
		const second = await checkCall(h, 'fx', 'echo', {message: 'second'}, 'hangar_call');
		expect(text(await first)).toContain('first');
		expect(text(second)).toContain('second');

		s = await settledIn(h, 'fx', 'ready');
		const fx = entry(s, 'fx');
		expect(fx).toMatchObject({callable: true, ready: true, stale: false, toolsSource: 'live', tools: 6});
		expect(Date.parse(fx.lastVerifiedAt!)).toBeGreaterThan(Date.now() - 60_000);
		expect(listedNames(s, 'fx').sort()).toEqual(['fx__add', 'fx__echo', 'fx__fail', 'fx__pid', 'fx__sleep', 'fx__stderr']);
		expect(s.tools.find(tool => tool.name === 'fx__echo')!.description).toBe('Echo the given message back as text.');
		expect(upstreamProcesses(h)).toEqual([fx.pid]);
		// The process hangar_list names is the one the call reaches.
		expect(text(await checkCall(h, 'fx', 'pid'))).toContain(String(fx.pid));
	});

	it('start: real upstreams (server-everything, server-memory) and shortened tool names agree on every surface once they are up', async () => {
		const dir = tempDir();
		// longnames: tool names hangar has to shorten and hash; every surface must name them the same way.
		// everything asks its client for roots at start-up: under the default "auto" it would run per client, and this test reads one shared instance.
		const h = await open({everything: everything({lazy: false, instances: 'shared'}), memory: memory(dir, {lazy: false}), longnames: fixture('normal', ['--long-names'], {lazy: false})});
		await waitFor(async () => (await listOf(h.client)).every(upstream => upstream.state === 'ready' && upstream.tools > 0), 'every upstream ready with tools');
		// server-everything adds tools after initialized and says so with list_changed: surfaces() reads again if that lands mid-reading.
		const s = assertAgree(await surfaces(h.client, {everything: 'echo', memory: 'knowledge graph entities', longnames: 'punctuation'}));
		const dotted = s.hits['longnames']!.find(hit => hit.tool === 'dotted.name/with:chars')!;
		expect(dotted.name).toMatch(/^longnames__dotted_name_with_chars_[0-9a-f]{8}$/);
		expect(listedNames(s, 'longnames')).toContain(dotted.name);
		expect(firstText(await checkCall(h, 'longnames', 'dotted.name/with:chars', {x: 1}, 'hangar_call'))).toBe('{"x":1}');
		expect(firstText(await outcome(h.client, dotted.name, {y: 2}))).toBe('{"y":2}');
		expect(entry(s, 'everything').tools).toBeGreaterThan(5);
		expect(s.hits['memory']!.some(hit => hit.name === 'memory__create_entities')).toBe(true);
		expect(s.hits['everything']!.some(hit => hit.name === 'everything__echo')).toBe(true);
		expect(text(await checkCall(h, 'everything', 'echo', {message: 'agree'}))).toContain('agree');
		expect(text(await checkCall(h, 'memory', 'read_graph', {}, 'hangar_call'))).toContain('entities');
	});

	it('crash: a crashed upstream is dead and refused everywhere, restarts by itself, and stays dead once its budget is spent', async () => {
		const h = await open(
			{fx: fixture('crash-on-call', [], {lazy: false})},
			{backoffMinSeconds: 0.5, backoffMaxSeconds: 0.5, restartBudget: {maxRestarts: 1, windowSeconds: 120}},
		);
		let s = await settledIn(h, 'fx', 'ready');
		const firstPid = entry(s, 'fx').pid;
		// Callable: the call reaches the upstream, which crashes on it (an upstream failure, not a refusal).
		const crashed = await checkCall(h, 'fx', 'echo', {message: 'boom'});
		expect(crashed.ok === false && crashed.code).toBe(-32_006);

		// Dead with a restart planned, then ready again (whichever the reading catches, the surfaces agree).
		s = assertAgree(await surfaces(h.client));
		expect(['dead', 'starting', 'ready']).toContain(entry(s, 'fx').state);
		s = await settledIn(h, 'fx', 'ready');
		expect(entry(s, 'fx').pid).not.toBe(firstPid);
		expect(entry(s, 'fx').restarts).toBe(1);
		expect(text(await checkCall(h, 'fx', 'pid'))).toContain(String(entry(s, 'fx').pid));

		// The second crash in the window spends the budget: dead for good, tools still listed (it is not
		// switched off), but not callable anywhere, and a call neither reaches nor starts it.
		await checkCall(h, 'fx', 'echo', {message: 'boom'});
		s = await settledIn(h, 'fx', 'dead');
		expect(entry(s, 'fx')).toMatchObject({callable: false, ready: false, pid: null, nextRetryAt: null, admin: 'enabled'});
		expect(listedNames(s, 'fx')).toContain('fx__echo');
		expect(s.hits['fx']!.every(hit => !hit.callable)).toBe(true);
		expect(upstreamProcesses(h)).toEqual([]);
		const refused = await checkCall(h, 'fx', 'pid');
		expect(refused.ok === false && refused.code).toBe(-32_004);
		await checkCall(h, 'fx', 'pid', {}, 'hangar_call');

		// A person's start brings it back.
		await callRaw(h.client, 'hangar_start', {server: 'fx'});
		s = await settledIn(h, 'fx', 'ready');
		expect(text(await checkCall(h, 'fx', 'pid'))).toContain(String(entry(s, 'fx').pid));
	});

	it('breaker open: a degraded upstream is listed but not callable anywhere, fails fast, and is not restarted by calls', async () => {
		const h = await open(
			{stuck: fixture('hang-all', [], {lazy: false, callTimeoutSeconds: 0.3}), fine: fixture('normal', [], {lazy: false})},
			{failureThreshold: 2, backoffMinSeconds: 60, backoffMaxSeconds: 60},
		);
		await waitFor(async () => (await listOf(h.client)).every(upstream => upstream.state === 'ready'), 'both ready');
		let s = assertAgree(await surfaces(h.client));
		const pid = entry(s, 'stuck').pid;
		// Callable while ready: both calls reach it and time out (upstream failures), which opens the breaker.
		for (let i = 0; i < 2; i++) {
			const timedOut = await checkCall(h, 'stuck', 'echo', {message: 'x'});
			expect(timedOut.ok === false && timedOut.code).toBe(-32_007);
		}

		s = await settledIn(h, 'stuck', 'degraded');
		expect(entry(s, 'stuck')).toMatchObject({callable: false, ready: false, breaker: 'open', pid, admin: 'enabled'});
		expect(Date.parse(entry(s, 'stuck').nextRetryAt!)).toBeGreaterThan(Date.now());
		expect(listedNames(s, 'stuck')).toContain('stuck__echo');
		expect(s.hits['stuck']!.length).toBeGreaterThan(0);
		const fast = await checkCall(h, 'stuck', 'echo', {message: 'x'});
		expect(fast.ok === false && fast.code).toBe(-32_005);
		await checkCall(h, 'stuck', 'pid', {}, 'hangar_call');
		// The other upstream is untouched by it.
		expect(entry(s, 'fine')).toMatchObject({state: 'ready', callable: true});
		expect(text(await checkCall(h, 'fine', 'echo', {message: 'fine'}))).toContain('fine');

		// A person's restart closes the breaker; it is callable (and called) again.
		await callRaw(h.client, 'hangar_restart', {server: 'stuck'});
		s = await settledIn(h, 'stuck', 'ready');
		expect(entry(s, 'stuck').breaker).toBe('closed');
		const again = await checkCall(h, 'stuck', 'echo', {message: 'x'});
		expect(again.ok === false && again.code).toBe(-32_007);
	});

	it('idle stop: back to cold, tools still listed and fresh, callable, and the next call starts it again', async () => {
		const h = await open({fx: fixture('normal', [], {lazy: false, idleTimeoutSeconds: 1})});
		await waitFor(async () => (await entryOf(h.client, 'fx')).state === 'ready', 'fx to be ready');
		let s = await settledIn(h, 'fx', 'cold');
		const verified = entry(s, 'fx').lastVerifiedAt;
		expect(entry(s, 'fx')).toMatchObject({callable: true, ready: false, stale: false, toolsSource: 'live', tools: 6, pid: null});
		expect(verified).not.toBeNull();
		expect(listedNames(s, 'fx')).toHaveLength(6);
		expect(s.hits['fx']!.every(hit => hit.callable && !hit.stale && hit.lastVerifiedAt === verified)).toBe(true);
		expect(upstreamProcesses(h)).toEqual([]);

		// Callable, so called: the call starts it, and the pid it answers with is the one hangar_list then shows.
		const answer = await checkCall(h, 'fx', 'pid');
		expect(answer.ok).toBe(true);
		const pid = Number(text(answer).match(/\d+/)![0]);
		s = assertAgree(await surfaces(h.client));
		if (entry(s, 'fx').state === 'ready') expect(entry(s, 'fx').pid).toBe(pid);
		await settledIn(h, 'fx', 'cold');
	});

	it('person stop: hangar_stop hides the tools everywhere and refuses calls without starting; hangar_start brings them back', async () => {
		const h = await open({
			fx: fixture('normal', [], {lazy: false}),
			other: fixture('normal', [], {lazy: false}),
			off: fixture('normal', [], {disabled: true, tools: [{name: 'echo', inputSchema: {type: 'object'}}]}),
		});
		await waitFor(async () => (await listOf(h.client)).every(upstream => upstream.state === 'ready' || upstream.name === 'off'), 'fx and other ready');
		// Disabled in the config: switched off on every surface from the start, and never started by a call.
		let s = assertAgree(await surfaces(h.client, {off: 'echo'}));
		expect(entry(s, 'off')).toMatchObject({state: 'disabled', admin: 'disabled', callable: false, tools: 1});
		expect(listedNames(s, 'off')).toEqual([]);
		const disabled = await checkCall(h, 'off', 'echo', {message: 'x'});
		expect(disabled.ok === false && disabled.code).toBe(-32_004);
		const changed = countListChanged(h.client);
		await callRaw(h.client, 'hangar_stop', {server: 'fx'});
		s = await settledIn(h, 'fx', 'stopped', {queries: {fx: 'fx__echo'}});
		expect(entry(s, 'fx')).toMatchObject({admin: 'stopped', callable: false, ready: false, pid: null, tools: 6});
		expect(listedNames(s, 'fx')).toEqual([]);
		expect(s.details['fx']!.tools).toHaveLength(6);
		expect(listedNames(s, 'other')).toHaveLength(6);
		await waitFor(() => changed() > 0, 'a tools/list_changed notification');
		expect(upstreamProcesses(h)).toEqual([entry(s, 'other').pid]);

		const refused = await checkCall(h, 'fx', 'echo', {message: 'x'});
		expect(refused.ok === false && refused.code).toBe(-32_004);
		await checkCall(h, 'fx', 'echo', {message: 'x'}, 'hangar_call');

		await callRaw(h.client, 'hangar_start', {server: 'fx'});
		s = await settledIn(h, 'fx', 'ready');
		expect(entry(s, 'fx').admin).toBe('enabled');
		expect(listedNames(s, 'fx')).toHaveLength(6);
		expect(text(await checkCall(h, 'fx', 'pid'))).toContain(String(entry(s, 'fx').pid));
	});

	it('quarantine: hangar_quarantine hides the tools from tools/list and hangar_find_tools, refuses calls, and no MCP tool lifts it', async () => {
		const h = await open({fx: fixture('normal', [], {lazy: false}), other: fixture('normal', [], {lazy: false})});
		await waitFor(async () => (await listOf(h.client)).every(upstream => upstream.state === 'ready'), 'both ready');
		await callRaw(h.client, 'hangar_quarantine', {server: 'fx', reason: 'not trusted'});
		const s = await settledIn(h, 'fx', 'quarantined', {queries: {fx: 'echo'}});
		expect(entry(s, 'fx')).toMatchObject({admin: 'quarantined', callable: false, pid: null});
		expect(entry(s, 'fx').quarantineReason).toContain('not trusted');
		expect(s.details['fx']!.quarantine?.reason).toContain('not trusted');
		expect(listedNames(s, 'fx')).toEqual([]);
		// The query "echo" finds the other upstream's echo, never the quarantined one's.
		expect(s.hits['fx']!.map(hit => hit.server)).toContain('other');
		expect(s.hits['fx']!.map(hit => hit.server)).not.toContain('fx');
		expect(upstreamProcesses(h)).toEqual([entry(s, 'other').pid]);

		const refused = await checkCall(h, 'fx', 'echo', {message: 'x'});
		expect(refused.ok === false && refused.code).toBe(-32_004);
		await checkCall(h, 'fx', 'pid', {}, 'hangar_call');
		// hangar_start does not lift it either.
		const start = await outcome(h.client, 'hangar_start', {server: 'fx'});
		expect(start.ok === false && start.code).toBe(-32_004);

		// Nothing a client can call lifts a quarantine: the management tools are exactly these, none approves.
		expect(s.tools.filter(tool => !tool.name.includes('__')).map(tool => tool.name).sort()).toEqual(
			['hangar_call', 'hangar_details', 'hangar_find_tools', 'hangar_list', 'hangar_quarantine', 'hangar_restart', 'hangar_start', 'hangar_stop'].sort(),
		);
		expect(s.tools.filter(tool => /approve|release|unquarantine|lift|trust/i.test(tool.name))).toEqual([]);
		const approve = await outcome(h.client, 'hangar_approve', {server: 'fx'});
		expect(approve.ok === false && approve.code).toBe(-32_602);
		await settledIn(h, 'fx', 'quarantined');
	});

	it('tool list change: once the client hears list_changed, tools/list, hangar_find_tools, hangar_details and hangar_list show the new tool', async () => {
		const h = await open({fx: fixture('tools-change', [], {lazy: false})});
		const changed = countListChanged(h.client);
		let s = await waitFor(async () => {
			const read = await surfaces(h.client, {fx: 'generation'});
			return listedNames(read, 'fx').includes('fx__gen_1') && read;
		}, 'gen_1 to be listed');
		assertAgree(s);

		for (const generation of [2, 3]) {
			const before = changed();
			const verifiedBefore = entry(s, 'fx').lastVerifiedAt!;
			// The current generation's tool is callable and called; the call makes the upstream change its tools.
			expect(text(await checkCall(h, 'fx', `gen_${generation - 1}`))).toContain(`generation ${generation - 1}`);
			await waitFor(() => changed() > before, 'a tools/list_changed notification');
			// Read at once: by the time the client is told, every surface has the new list.
			s = assertAgree(await surfaces(h.client, {fx: 'generation'}));
			const names = listedNames(s, 'fx');
			expect(names).toContain(`fx__gen_${generation}`);
			expect(names).not.toContain(`fx__gen_${generation - 1}`);
			expect(s.hits['fx']!.map(hit => hit.name)).toContain(`fx__gen_${generation}`);
			expect(s.hits['fx']!.map(hit => hit.name)).not.toContain(`fx__gen_${generation - 1}`);
			expect(s.details['fx']!.tools.map(tool => tool.name)).toContain(`gen_${generation}`);
			expect(entry(s, 'fx').tools).toBe(7);
			expect(Date.parse(entry(s, 'fx').lastVerifiedAt!)).toBeGreaterThanOrEqual(Date.parse(verifiedBefore));
		}

		// The tool that went away is refused as unknown, not routed.
		const gone = await outcome(h.client, 'fx__gen_1', {});
		expect(gone.ok === false && gone.code).toBe(-32_602);
	});
});

describe('the same rules across a hangar restart and in search exposure', () => {
	it('start from the cache: the last run\'s tools are listed as stale with their verification time everywhere, and a call refreshes them', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {idleTimeoutSeconds: 0.5})}, fastHangar);
		// First run: nothing cached, so hangar starts it once to learn its tools; the idle stop puts it back to cold.
		const first = await openHangar(config);
		await waitFor(async () => (await entryOf(first.client, 'fx')).state === 'ready', 'fx to learn its tools');
		let s = await settledIn(first, 'fx', 'cold');
		const verified = entry(s, 'fx').lastVerifiedAt!;
		expect(entry(s, 'fx')).toMatchObject({stale: false, toolsSource: 'live'});
		await first.close();
		await waitFor(() => processesWithTag(first.tag).length === 0, 'the first run to exit');

		const second = await openHangar(config);
		s = await settledIn(second, 'fx', 'cold');
		expect(entry(s, 'fx')).toMatchObject({stale: true, toolsSource: 'cache', lastVerifiedAt: verified, callable: true, tools: 6});
		expect(s.hits['fx']!.every(hit => hit.stale && hit.lastVerifiedAt === verified)).toBe(true);
		expect(upstreamProcesses(second)).toEqual([]);
		expect(text(await checkCall(second, 'fx', 'echo', {message: 'from the cache'}))).toContain('from the cache');
		s = assertAgree(await surfaces(second.client));
		expect(entry(s, 'fx').stale).toBe(false);
		expect(Date.parse(entry(s, 'fx').lastVerifiedAt!)).toBeGreaterThan(Date.parse(verified));
	});

	it('search exposure: tools/list is only the management tools, and find_tools, hangar_call and hangar_list agree through stop and start', async () => {
		const h = await open({fx: fixture('normal', [], {lazy: false}), other: fixture('normal', [], {lazy: false})}, {exposure: 'search'});
		await waitFor(async () => (await listOf(h.client)).every(upstream => upstream.state === 'ready'), 'both ready');
		let s = assertAgree(await surfaces(h.client, {fx: 'echo'}), 'search');
		expect(s.tools.map(tool => tool.name).sort()).toEqual(managementNames);
		expect(s.hits['fx']!.some(hit => hit.server === 'fx' && hit.tool === 'echo' && hit.callable)).toBe(true);
		expect(text(await checkCall(h, 'fx', 'echo', {message: 'found'}, 'hangar_call'))).toContain('found');

		await callRaw(h.client, 'hangar_stop', {server: 'fx'});
		s = await settledIn(h, 'fx', 'stopped', {queries: {fx: 'echo'}, exposure: 'search'});
		expect(s.hits['fx']!.map(hit => hit.server)).not.toContain('fx');
		const refused = await checkCall(h, 'fx', 'echo', {message: 'x'}, 'hangar_call');
		expect(refused.ok === false && refused.code).toBe(-32_004);

		await callRaw(h.client, 'hangar_start', {server: 'fx'});
		s = await settledIn(h, 'fx', 'ready', {queries: {fx: 'echo'}, exposure: 'search'});
		expect(text(await checkCall(h, 'fx', 'pid', {}, 'hangar_call'))).toContain(String(entry(s, 'fx').pid));
	});
});

describe('while an upstream is being switched off (stopping), the surfaces already agree', () => {
	// A stubborn upstream keeps `stopping` for two stop grace periods (stdin close, SIGTERM, then SIGKILL).
	const slowStop = {stopGraceSeconds: 1.5};

	it('quarantine: hidden from tools/list and hangar_find_tools as soon as hangar_list says quarantined', async () => {
		const h = await open({fx: stubborn({lazy: false})}, slowStop);
		await waitFor(async () => (await entryOf(h.client, 'fx')).state === 'ready', 'fx to be ready');
		const quarantining = callRaw(h.client, 'hangar_quarantine', {server: 'fx'});
		const s = await waitFor(async () => {
			const read = await surfaces(h.client, {fx: 'echo'});
			return entry(read, 'fx').state === 'stopping' && read;
		}, 'fx to be stopping');
		expect(entry(s, 'fx')).toMatchObject({admin: 'quarantined', callable: false});
		// hangar_list (and the TUI) already say quarantined; nothing may still offer its tools.
		expect(listedNames(s, 'fx'), 'tools/list still lists the tools of an upstream being quarantined').toEqual([]);
		expect(s.hits['fx']!.filter(hit => hit.server === 'fx').map(hit => hit.name), 'hangar_find_tools still finds it').toEqual([]);
		assertAgree(s);
		await quarantining;
		await settledIn(h, 'fx', 'quarantined');
	});

	it('person stop: hidden from tools/list and hangar_find_tools as soon as hangar_list says stopped', async () => {
		const h = await open({fx: stubborn({lazy: false})}, slowStop);
		await waitFor(async () => (await entryOf(h.client, 'fx')).state === 'ready', 'fx to be ready');
		const stopping = callRaw(h.client, 'hangar_stop', {server: 'fx'});
		const s = await waitFor(async () => {
			const read = await surfaces(h.client);
			return entry(read, 'fx').state === 'stopping' && read;
		}, 'fx to be stopping');
		expect(entry(s, 'fx')).toMatchObject({admin: 'stopped', callable: false});
		assertAgree(s);
		await stopping;
		await settledIn(h, 'fx', 'stopped');
	});
});

describe('in process: a supervisor event listener reads every surface already updated', () => {
	it('at each transition, the status view, details, tool search and the exposed tool set agree', async () => {
		const t = await startSupervisor({
			fx: fixture('normal', [], {tools: [{name: 'echo', description: 'Echo (predefined)', inputSchema: {type: 'object'}}], idleTimeoutSeconds: 0.5}),
		});
		const {supervisor} = t;
		const problems: string[] = [];
		const seen: string[] = [];
		// What the TUI and the gateway read, taken synchronously inside the event, as a listener would.
		supervisor.on('transition', (event: TransitionEvent) => {
			const label = `${event.from}->${event.to} (${event.event})`;
			seen.push(label);
			const status = statusEntries(supervisor).find(candidate => candidate.name === 'fx')!;
			const details = upstreamDetails(supervisor, 'fx');
			const exposed = supervisor.tools().filter(tool => tool.server === 'fx').map(tool => tool.name).sort();
			const hits = findTools(supervisor, 'fx', 50).filter(hit => hit.server === 'fx');
			const say = (what: string) => problems.push(`${label}: ${what}`);
			if (status.state !== event.to) say(`status says ${status.state}`);
			if (details.server.state !== event.to) say(`details say ${details.server.state}`);
			const shouldShow = status.admin === 'enabled' ? details.tools.map(tool => tool.exposedName).sort() : [];
			if (JSON.stringify(exposed) !== JSON.stringify(shouldShow)) say(`exposed tools ${JSON.stringify(exposed)}, but status is ${status.state}/${status.admin} with ${JSON.stringify(shouldShow)}`);
			if (JSON.stringify(hits.map(hit => hit.name).sort()) !== JSON.stringify(shouldShow)) say(`tool search finds ${JSON.stringify(hits.map(hit => hit.name))}, expected ${JSON.stringify(shouldShow)}`);
			for (const hit of hits) if (hit.state !== status.state || hit.callable !== status.callable) say(`hit ${hit.name} says ${hit.state}/callable ${hit.callable}`);
		});

		// cold -> stopped (a person stops it before it ever ran), stopped -> starting -> ready,
		// ready -> stopping -> cold (idle), cold -> quarantined, quarantined -> cold (a person approves).
		await supervisor.act('fx', 'stop', 'a person in a test');
		await supervisor.act('fx', 'start', 'a person in a test');
		await t.waitForState('fx', 'cold');
		await supervisor.act('fx', 'quarantine', 'a person in a test');
		await supervisor.act('fx', 'approve', 'a person in a test');
		await supervisor.callByName('fx', 'echo', {message: 'x'});
		expect(seen.slice(0, 9)).toEqual([
			'cold->stopped (person_stop)',
			'stopped->starting (start)',
			'starting->ready (started)',
			'ready->stopping (stop)',
			'stopping->cold (settle_cold)',
			'cold->quarantined (quarantine)',
			'quarantined->cold (release)',
			'cold->starting (start)',
			'starting->ready (started)',
		]);
		expect(problems).toEqual([]);
	});
});

/** Counts tools/list_changed notifications from now on. */
function countListChanged(client: Client): () => number {
	let count = 0;
	client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
		count += 1;
	});
	return () => count;
}
