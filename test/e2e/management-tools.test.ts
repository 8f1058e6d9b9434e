import {afterEach, describe, expect, it} from 'vitest';
import type {Client} from '@modelcontextprotocol/sdk/client/index.js';
import type {ToolHit, UpstreamDetails} from '../../source/core/views/views.js';
import {
	everything,
	fastHangar,
	fixture,
	memory,
	processesWithTag,
	rpcError,
	runCli,
	closeHangars,
	openHangar,
	statusOf,
	stubborn,
	tempDir,
	toolErrorText,
	waitFor,
	writeConfig,
} from '../support/hangar.js';
import {spawnServe} from '../support/serve.js';

afterEach(closeHangars);

async function tool<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
	const result = await client.callTool({name, arguments: args});
	const [first] = result.content as Array<{type: string; text: string}>;
	// The text form is the same JSON as the structured form.
	expect(JSON.parse(first!.text)).toEqual(result.structuredContent);
	return result.structuredContent as T;
}

const find = async (client: Client, query: string, limit?: number) =>
	(await tool<{hits: ToolHit[]}>(client, 'hangar_find_tools', {query, ...(limit === undefined ? {} : {limit})})).hits;

describe('management tools', () => {
	it('finds the right real tools for realistic queries, cold upstreams included, from the cache', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {everything: everything(), memory: memory(dir)}, fastHangar);
		// First run: both are lazy with nothing cached, so hangar starts each once to learn its tools.
		const first = await openHangar(config);
		await waitFor(async () => (await statusOf(first.client, 'memory')).toolsSource === 'live' && (await statusOf(first.client, 'everything')).toolsSource === 'live', 'tools to be learned');
		await first.close();

		// Second run: tools come from the cache; nothing is started by searching.
		const hangar = await openHangar(config);
		const top = async (query: string) => (await find(hangar.client, query, 3)).map(hit => hit.name);
		expect((await top('add two numbers'))[0]).toBe('everything__get-sum');
		expect(await top('knowledge graph entities')).toContain('memory__create_entities');
		expect((await top('echo a message back'))[0]).toBe('everything__echo');
		expect((await top('long running operation with progress'))[0]).toBe('everything__trigger-long-running-operation');
		expect(await top('environment variables')).toContain('everything__get-env');
		expect(await top('search nodes in memory')).toContain('memory__search_nodes');
		// Plain-language intents reach the tools' own words (more in tool-search.test.ts); words no tool uses find nothing.
		expect((await top('forget an entity'))[0]).toBe('memory__delete_entities');
		expect(await top('remember facts about people')).toContain('memory__add_observations');
		expect(await find(hangar.client, 'xylophone quartz')).toEqual([]);

		const [hit] = await find(hangar.client, 'create entities', 1);
		expect(hit).toMatchObject({server: 'memory', tool: 'create_entities', name: 'memory__create_entities', callable: true, stale: true});
		expect(hit!.state === 'cold' || hit!.state === 'starting' || hit!.state === 'ready').toBe(true);
		expect(hit!.inputSchema).toMatchObject({type: 'object'});
		expect(Date.parse(hit!.lastVerifiedAt!)).toBeGreaterThan(0);
		expect(hit!.score).toBeGreaterThan(0);
		expect(hit!.score).toBeLessThanOrEqual(1);
		// Searching started nothing: only hangar itself runs.
		expect(processesWithTag(hangar.tag)).toEqual([hangar.pid]);
	});

	it('says which upstreams were not searched because their tools were never listed yet', async () => {
		const dir = tempDir();
		// First run, nothing cached: the slow upstream is still learning its tools when the client searches (its
		// initialize takes 10 s, far longer than fx takes to be ready on a busy machine; the test waits for it below).
		// The session's first list waits 1 s for launch discovery, not fastHangar's 10: with 10, the client's
		// initialize was answered just as the slow upstream's 10 s ended, and it sometimes listed its tools first.
		const hangar = await openHangar(writeConfig(dir, {slow: fixture('slow-start', ['--delay-ms', '10000']), fx: fixture('normal', [], {lazy: false})}, {...fastHangar, firstListWaitSeconds: 1}));
		await waitFor(async () => (await statusOf(hangar.client, 'fx')).state === 'ready', 'fx to be ready');
		const early = await tool<{hits: ToolHit[]; notYetKnown: Array<{server: string; state: string}>}>(hangar.client, 'hangar_find_tools', {query: 'echo'});
		expect([...new Set(early.hits.map(hit => hit.server))]).toEqual(['fx']);
		expect(early.notYetKnown).toEqual([{server: 'slow', state: 'starting'}]);
		await waitFor(async () => (await statusOf(hangar.client, 'slow')).toolsSource === 'live', 'slow to list its tools');
		const later = await tool<{hits: ToolHit[]; notYetKnown: unknown[]}>(hangar.client, 'hangar_find_tools', {query: 'echo'});
		expect(later.notYetKnown).toEqual([]);
		expect(later.hits.map(hit => hit.name)).toContain('slow__echo');
	});

	it('shows an upstream in depth: tools with schemas and metrics, transitions with reasons, calls, errors and stderr', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, fastHangar));
		await waitFor(async () => (await statusOf(hangar.client, 'fx')).state === 'ready', 'fx to be ready');
		await hangar.client.callTool({name: 'fx__echo', arguments: {message: 'one'}});
		await hangar.client.callTool({name: 'fx__stderr', arguments: {lines: 2}});
		await hangar.client.callTool({name: 'fx__fail', arguments: {message: 'nope'}});
		const details = await waitFor(async () => {
			const found = await tool<UpstreamDetails>(hangar.client, 'hangar_details', {server: 'fx'});
			return found.stderr.some(line => line.text === 'stderr line 2') && found;
		}, 'stderr lines in details');
		expect(details.server).toMatchObject({name: 'fx', state: 'ready', ready: true, callable: true, admin: 'enabled', calls: 3, toolErrors: 1});
		expect(details.launch).toContain('fixture-server.js --mode normal');
		const echo = details.tools.find(entry => entry.name === 'echo')!;
		// Pinned at its first listing (hangar.pinning "first-use", the default).
		expect(echo).toMatchObject({exposedName: 'fx__echo', calls: 1, failures: 0, pinned: true});
		expect(details.pins).toMatchObject({by: 'first-use', approvedAt: null, tools: 6});
		expect(echo.inputSchema).toMatchObject({type: 'object', properties: {message: {type: 'string'}}});
		expect(echo.latencyMs.p50).toBeGreaterThan(0);
		expect(details.transitions.map(record => `${record.from}->${record.to}`)).toEqual(['cold->starting', 'starting->ready']);
		expect(details.transitions[0]!.reason).toBe('lazy is false: started at launch');
		expect(details.recentCalls.map(call => [call.tool, call.ok])).toEqual([
			['echo', true],
			['stderr', true],
			['fail', false],
		]);
		expect(details.recentErrors.map(error => error.message)).toEqual(['fail: the tool returned isError']);
		expect(details.quarantine).toBeNull();

		// A wrong argument is a tool execution error (SEP-1303): the model reads it and corrects its call.
		const unknown = await toolErrorText(hangar.client.callTool({name: 'hangar_details', arguments: {server: 'nope'}}));
		expect(unknown).toBe('upstream "nope": lookup failed: no upstream of that name is configured. Configured upstreams: fx.');
	});

	it('calls a tool by its own name on the same path as a direct call, with progress', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {fx: fixture('normal')}, fastHangar));
		const seen: number[] = [];
		const result = await hangar.client.callTool({name: 'hangar_call', arguments: {server: 'fx', tool: 'sleep', arguments: {ms: 300}}}, undefined, {
			onprogress: progress => seen.push(progress.progress),
		});
		expect(result.content).toEqual([{type: 'text', text: 'slept 300'}]);
		expect(seen.length).toBeGreaterThan(0);
		for (let index = 1; index < seen.length; index++) expect(seen[index]!).toBeGreaterThan(seen[index - 1]!);
		expect((await statusOf(hangar.client, 'fx')).calls).toBe(1);

		const wrongServer = await toolErrorText(hangar.client.callTool({name: 'hangar_call', arguments: {server: 'fy', tool: 'echo'}}));
		expect(wrongServer).toBe('Unknown server "fy" in hangar_call. Configured servers: fx.');
		const wrongTool = await toolErrorText(hangar.client.callTool({name: 'hangar_call', arguments: {server: 'fx', tool: 'ecko'}}));
		expect(wrongTool).toBe('Unknown tool "ecko" on server "fx" (hangar_call). Did you mean "echo"? Its 6 tools: echo, add, sleep, fail, stderr, pid. Use hangar_find_tools to search every server.');
	});

	it('answers unknown and ill-typed arguments with a tool execution error naming each problem (SEP-1303)', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {fx: fixture('normal')}, fastHangar));
		const cases: Array<[string, Record<string, unknown>, string]> = [
			['hangar_list', {verbose: true}, 'Invalid arguments for hangar_list: unknown argument "verbose" (it takes "limit", "cursor").'],
			['hangar_list', {limit: 501}, 'Invalid arguments for hangar_list: "limit" must be an integer from 1 to 500 (got 501).'],
			['hangar_list', {cursor: 'abc'}, 'Invalid arguments for hangar_list: "cursor" "abc" is not a nextCursor hangar_list gave (omit it for the first page).'],
			['hangar_list', {cursor: '2'}, 'Invalid arguments for hangar_list: "cursor" "2" is not a nextCursor hangar_list gave (omit it for the first page).'],
			['hangar_details', {}, 'Invalid arguments for hangar_details: "server" is required (The upstream server name as configured (see hangar_list).).'],
			['hangar_find_tools', {query: 'x', limit: 0}, 'Invalid arguments for hangar_find_tools: "limit" must be an integer from 1 to 50 (got 0).'],
			['hangar_find_tools', {query: 'x', max: 3}, 'Invalid arguments for hangar_find_tools: unknown argument "max" (it takes "query", "limit").'],
			['hangar_call', {server: 'fx', tool: 'echo', arguments: 'hi'}, 'Invalid arguments for hangar_call: "arguments" must be an object (got "hi").'],
			['hangar_stop', {server: 7}, 'Invalid arguments for hangar_stop: "server" must be a non-empty string (got 7).'],
		];
		for (const [name, args, message] of cases) {
			expect(await toolErrorText(hangar.client.callTool({name, arguments: args})), name).toBe(message);
		}

		// A tool turned off by hangar.managementTools is no argument error: it stays a protocol error (see its own test).
	});

	it('lists upstreams a page at a time, in config order, with the total and the counts by state of all of them', async () => {
		const dir = tempDir();
		const predefined = {tools: [{name: 'echo', inputSchema: {type: 'object'}}]};
		const servers = Object.fromEntries(Array.from({length: 5}, (_, i) => [`up-${i}`, fixture('normal', [], predefined)]));
		const hangar = await openHangar(writeConfig(dir, {...servers, off: fixture('normal', [], {...predefined, disabled: true})}, fastHangar));
		type Page = {total: number; states: Record<string, number>; upstreams: Array<{name: string}>; nextCursor: string | null};
		const names: string[] = [];
		let cursor: string | null = null;
		let pages = 0;
		do {
			const page: Page = await tool<Page>(hangar.client, 'hangar_list', {limit: 4, ...(cursor === null ? {} : {cursor})});
			expect(page.total).toBe(6);
			expect(page.states).toEqual({cold: 5, disabled: 1});
			names.push(...page.upstreams.map(entry => entry.name));
			cursor = page.nextCursor;
			pages += 1;
		} while (cursor !== null);

		expect(pages).toBe(2);
		expect(names).toEqual(['up-0', 'up-1', 'up-2', 'up-3', 'up-4', 'off']);
		// By default, up to 50 in one page: here all of them, and no next page.
		const all = await tool<Page>(hangar.client, 'hangar_list', {});
		expect(all.upstreams).toHaveLength(6);
		expect(all.nextCursor).toBeNull();
	});

	it('starts, stops, restarts and quarantines on request, and offers no way to lift a quarantine', async () => {
		const dir = tempDir();
		// Started once at launch to learn its tools, then idle-stopped back to cold.
		const hangar = await openHangar(writeConfig(dir, {fx: fixture('normal', [], {idleTimeoutSeconds: 0.5})}, fastHangar));
		await waitFor(async () => {
			const entry = await statusOf(hangar.client, 'fx');
			return entry.state === 'cold' && entry.toolsSource === 'live';
		}, 'fx to learn its tools and go cold');

		// Asked to wait, each answers once it is done.
		type Answer = {done: boolean; message: string; status: {state: string; pid: number; admin: string; callable: boolean; quarantineReason: string}};
		const started = await tool<Answer>(hangar.client, 'hangar_start', {server: 'fx', waitSeconds: 60});
		expect(started.done).toBe(true);
		expect(started.message).toMatch(/^started "fx" \(ready, pid \d+, 6 tools\)$/);
		expect(started.status.state).toBe('ready');
		const firstPid = started.status.pid;

		const restarted = await tool<Answer>(hangar.client, 'hangar_restart', {server: 'fx', waitSeconds: 60});
		expect(restarted.status.state).toBe('ready');
		expect(restarted.status.pid).not.toBe(firstPid);

		const stopped = await tool<Answer>(hangar.client, 'hangar_stop', {server: 'fx', waitSeconds: 60});
		expect(stopped).toMatchObject({done: true, message: 'stopped "fx": it does not start on demand until it is started again'});
		expect(stopped.status).toMatchObject({state: 'stopped', admin: 'stopped', callable: false});
		const {tools} = await hangar.client.listTools();
		expect(tools.some(entry => entry.name.startsWith('fx__'))).toBe(false);
		const refused = await rpcError(hangar.client.callTool({name: 'fx__echo', arguments: {message: 'x'}}));
		expect(refused.code).toBe(-32_004);
		expect(refused.message).toContain('the upstream is stopped (stopped by MCP client "hangar-test"');

		// Not running: done at once, without waiting.
		const quarantined = await tool<Answer>(hangar.client, 'hangar_quarantine', {
			server: 'fx',
			reason: 'its tools look odd',
		});
		expect(quarantined.done).toBe(true);
		expect(quarantined.status).toMatchObject({state: 'quarantined', admin: 'quarantined', quarantineReason: 'quarantined by MCP client "hangar-test": its tools look odd'});
		const startRefused = await rpcError(hangar.client.callTool({name: 'hangar_start', arguments: {server: 'fx'}}));
		expect(startRefused.code).toBe(-32_004);
		expect(startRefused.message).toContain('upstream "fx": start failed: the upstream is quarantined. A person lifts the quarantine first: key u in mcp-hangar tui, or mcp-hangar approve fx.');
		expect(await find(hangar.client, 'echo')).toEqual([]);
		const names = (await hangar.client.listTools()).tools.map(entry => entry.name);
		expect(names.filter(name => name.startsWith('hangar_')).sort()).toEqual([
			'hangar_call',
			'hangar_details',
			'hangar_find_tools',
			'hangar_list',
			'hangar_quarantine',
			'hangar_restart',
			'hangar_start',
			'hangar_stop',
		]);
	});

	it('answers lifecycle commands from memory while an upstream is slow to start or stop, and waits only when asked', async () => {
		const dir = tempDir();
		const predefined = {tools: [{name: 'echo', inputSchema: {type: 'object', properties: {message: {type: 'string'}}}}]};
		const hangar = await openHangar(
			writeConfig(dir, {slow: fixture('slow-start', ['--delay-ms', '2500'], predefined), stuck: stubborn({lazy: false})}, {...fastHangar, stopGraceSeconds: 3}),
		);
		await waitFor(async () => (await statusOf(hangar.client, 'stuck')).state === 'ready', 'stuck to be ready');
		type Answer = {done: boolean; message: string; status: {state: string; admin: string; callable: boolean}};

		// The quarantine takes effect in the answer; the stubborn process takes two grace periods to go.
		const quarantined = await tool<Answer>(hangar.client, 'hangar_quarantine', {server: 'stuck'});
		expect(quarantined.done).toBe(false);
		expect(quarantined.status).toMatchObject({state: 'stopping', admin: 'quarantined', callable: false});
		expect(quarantined.message).toBe('"stuck" is quarantined: its tools are hidden and calls refused already; its process is being stopped (stopping); hangar_list shows when it is done');
		expect((await hangar.client.listTools()).tools.some(entry => entry.name.startsWith('stuck__'))).toBe(false);
		// hangar_list answers while it stops.
		expect((await statusOf(hangar.client, 'stuck')).state).toBe('stopping');

		// A start that takes 2.5 s is under way in the answer; a call waits for it.
		const starting = await tool<Answer>(hangar.client, 'hangar_start', {server: 'slow'});
		expect(starting).toMatchObject({done: false, status: {state: 'starting', callable: true}});
		expect(starting.message).toBe('start of "slow" is under way (starting); hangar_list shows when it is done, and a call to one of its tools waits for the start');
		const call = await hangar.client.callTool({name: 'slow__echo', arguments: {message: 'after the start'}});
		expect(JSON.stringify(call.content)).toContain('after the start');

		// Asked to wait, the stop answers once the process is gone.
		const stopped = await tool<Answer>(hangar.client, 'hangar_stop', {server: 'slow', waitSeconds: 30});
		expect(stopped).toMatchObject({done: true, status: {state: 'stopped'}});
		await waitFor(async () => (await statusOf(hangar.client, 'stuck')).state === 'quarantined', 'stuck to be quarantined');
	});

	it('in search exposure lists only the hangar_* tools, and tools are found and called through them', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {...fastHangar, exposure: 'search'}));
		await waitFor(async () => (await statusOf(hangar.client, 'fx')).state === 'ready', 'fx to be ready');
		const {tools} = await hangar.client.listTools();
		expect(tools.map(entry => entry.name).every(name => name.startsWith('hangar_'))).toBe(true);
		expect(tools).toHaveLength(8);
		expect(hangar.client.getInstructions()).toContain('Find tools with hangar_find_tools');
		const [hit] = await find(hangar.client, 'add two numbers', 1);
		expect(hit).toMatchObject({server: 'fx', tool: 'add', state: 'ready', callable: true, stale: false});
		const sum = await hangar.client.callTool({name: 'hangar_call', arguments: {server: hit!.server, tool: hit!.tool, arguments: {a: 2, b: 3}}});
		expect(sum.content).toEqual([{type: 'text', text: '5'}]);
	});
});

describe('hangar.managementTools', () => {
	it('"read-only" lists and serves only the tools that read (and hangar_call), and refuses the rest naming the setting', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {...fastHangar, managementTools: 'read-only'}));
		await waitFor(async () => (await statusOf(hangar.client, 'fx')).state === 'ready', 'fx to be ready');
		const names = (await hangar.client.listTools()).tools.map(entry => entry.name);
		expect(names.filter(name => name.startsWith('hangar_')).sort()).toEqual(['hangar_call', 'hangar_details', 'hangar_find_tools', 'hangar_list']);
		expect(names).toContain('fx__echo');

		for (const name of ['hangar_start', 'hangar_stop', 'hangar_restart', 'hangar_quarantine']) {
			const refused = await rpcError(hangar.client.callTool({name, arguments: {server: 'fx'}}));
			expect(refused.code).toBe(-32_602);
			expect(refused.message).toContain(`${name} is not available to MCP clients: ${name} is turned off (only hangar_list, hangar_details, hangar_find_tools and hangar_call are served) by "managementTools": "read-only" in the hangar settings of the config.`);
			expect(refused.data).toEqual({error: 'ManagementToolDisabled', tool: name, setting: 'managementTools', value: 'read-only'});
		}

		// Nothing was stopped or quarantined; reading and calling still work.
		expect(await statusOf(hangar.client, 'fx')).toMatchObject({state: 'ready', admin: 'enabled'});
		expect((await hangar.client.callTool({name: 'hangar_call', arguments: {server: 'fx', tool: 'echo', arguments: {message: 'still'}}})).content).toEqual([{type: 'text', text: 'still'}]);
		expect((await tool<UpstreamDetails>(hangar.client, 'hangar_details', {server: 'fx'})).server.name).toBe('fx');
	});

	it('"none" serves no hangar_* tool to MCP clients, while a person\'s CLI still sees and calls everything', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})}, {...fastHangar, managementTools: 'none'});
		const {served} = await spawnServe(['serve', '--config', config], {listening: log => /serving 1 upstreams/.test(log) || undefined});
		try {
			const hangar = await openHangar(config, {shared: true});
			await waitFor(async () => (await hangar.client.listTools()).tools.some(entry => entry.name === 'fx__echo'), 'fx to list its tools');
			expect((await hangar.client.listTools()).tools.map(entry => entry.name).filter(name => name.startsWith('hangar_'))).toEqual([]);
			const refused = await rpcError(hangar.client.callTool({name: 'hangar_list', arguments: {}}));
			expect(refused.message).toContain('hangar_list is not available to MCP clients: every management tool is turned off by "managementTools": "none"');
			expect((await hangar.client.callTool({name: 'fx__echo', arguments: {message: 'direct'}})).content).toEqual([{type: 'text', text: 'direct'}]);

			// The CLI is a person's: the setting is for MCP clients.
			const status = await runCli(['status', '--json', '--config', config]);
			expect(status.code).toBe(0);
			expect((JSON.parse(status.stdout) as {live: boolean; upstreams: Array<{name: string}>}).upstreams.map(entry => entry.name)).toEqual(['fx']);
			const call = await runCli(['call', 'fx', 'echo', '--args', '{"message":"from a person"}', '--config', config]);
			expect(call).toMatchObject({code: 0, stdout: 'from a person\n'});
		} finally {
			await closeHangars();
			await served.stop();
		}
	});
});
