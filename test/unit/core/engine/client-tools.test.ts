import {describe, expect, it} from 'vitest';
import type {ToolDefinition} from '../../../../source/core/config/read-config.js';
import {sharedCapabilities} from '../../../../source/core/engine/clients/client-relay.js';
import {ClientTools, maxProfilesKept, type ClientToolsHost} from '../../../../source/core/engine/clients/client-tools.js';
import {ClientRegistry, type ClientRecord} from '../../../../source/core/engine/clients/clients.js';
import type {ExposedTool} from '../../../../source/core/engine/routing/router.js';
import type {Upstream} from '../../../../source/core/engine/upstream/upstream.js';
import {RootsRequest} from '../../../../source/core/link/roots-request.js';

const tool = (name: string): ToolDefinition => ({name, inputSchema: {type: 'object'}});

/** An upstream as ClientTools reads it: its name, namespace, visibility and tool list; `warm` makes its list live. */
function fakeUpstream(name: string, listed: readonly ToolDefinition[] = []) {
	const upstream = {
		name,
		config: {namespace: name},
		admin: 'enabled',
		state: 'cold',
		toolsSource: 'cache' as 'cache' | 'live',
		tools: listed,
		warmed: 0,
		async warm() {
			upstream.warmed += 1;
			upstream.toolsSource = 'live';
		},
	};
	return upstream;
}

type Fake = ReturnType<typeof fakeUpstream>;

/** A supervisor as ClientTools sees it: one per-client server "ev" (template lists a, b, c) beside a shared "other" (lists x). */
function setup() {
	const template = fakeUpstream('ev');
	const base: ExposedTool[] = [
		{name: 'ev__a', server: 'ev', tool: 'a', definition: tool('a')},
		{name: 'ev__b', server: 'ev', tool: 'b', definition: tool('b')},
		{name: 'ev__c', server: 'ev', tool: 'c', definition: tool('c')},
		{name: 'other__x', server: 'other', tool: 'x', definition: tool('x')},
	];
	const instances = new Map<ClientRecord, Fake>();
	/** What each session's instance lists once it runs. */
	const listsOf = new Map<ClientRecord, readonly ToolDefinition[]>();
	const host: ClientToolsHost = {
		tools: () => base,
		ownListTemplates: () => [template as unknown as Upstream],
		servesModern: () => false,
		instanceOf: (_template, client) => instances.get(client) as unknown as Upstream | undefined,
		instanceFor(_template, client) {
			let instance = instances.get(client);
			if (instance === undefined) {
				instance = fakeUpstream(`ev#${client.id}`, listsOf.get(client) ?? []);
				instances.set(client, instance);
			}

			return instance as unknown as Upstream;
		},
	};
	const tools = new ClientTools(host);
	const registry = new ClientRegistry();
	const client = (capabilities: Record<string, unknown>, listed: readonly ToolDefinition[]) => {
		const record = registry.add('socket', `socket#${registry.list().length + 1}`);
		record.declaredCapabilities = capabilities;
		listsOf.set(record, listed);
		return record;
	};

	return {base, template, tools, instances, client};
}

const names = (list: readonly ExposedTool[]) => list.map(exposed => exposed.name);

describe('ClientTools: each session sees a per-client server\'s tools as its own instance lists them', () => {
	it('gives a client that declared what the template is told the shared list itself, starting nothing', async () => {
		const {base, tools, instances, client} = setup();
		const capable = client(sharedCapabilities.auto, []);
		await tools.prepare(capable, new AbortController().signal);
		expect(tools.toolsFor(capable)).toBe(base);
		expect(instances.size).toBe(0);
	});

	it('starts the instance of a client like no other yet at its tools/list, and shows its list in the template\'s place', async () => {
		const {tools, instances, client} = setup();
		const bare = client({}, [tool('a')]);
		expect(names(tools.toolsFor(bare))).toEqual(['ev__a', 'ev__b', 'ev__c', 'other__x']);
		await tools.prepare(bare, new AbortController().signal);
		expect(instances.get(bare)!.warmed).toBe(1);
		const seen = tools.toolsFor(bare);
		expect(names(seen)).toEqual(['ev__a', 'other__x']);
		// Built once, while nothing it comes from changes.
		expect(tools.toolsFor(bare)).toBe(seen);
	});

	it('gives a second client with the same capabilities the list learned from the first one\'s instance, without an instance of its own', async () => {
		const {template, tools, instances, client} = setup();
		const first = client({sampling: {}}, [tool('a'), tool('b')]);
		await tools.prepare(first, new AbortController().signal);
		tools.learned(template as unknown as Upstream, instances.get(first) as unknown as Upstream, first);
		const second = client({sampling: {}}, []);
		await tools.prepare(second, new AbortController().signal);
		expect(instances.has(second)).toBe(false);
		expect(names(tools.toolsFor(second))).toEqual(['ev__a', 'ev__b', 'other__x']);
	});

	it('learns only an instance\'s first list: a tool one client made on its instance never reaches another client of the same profile', async () => {
		const {template, tools, instances, client} = setup();
		const first = client({sampling: {}}, [tool('a'), tool('b')]);
		await tools.prepare(first, new AbortController().signal);
		const instance = instances.get(first)!;
		tools.learned(template as unknown as Upstream, instance as unknown as Upstream, first);
		// The first client grows a tool of its own on its instance (its list_changed re-read).
		instance.tools = [tool('a'), tool('b'), tool('grown-by-first')];
		tools.learned(template as unknown as Upstream, instance as unknown as Upstream, first);
		expect(names(tools.toolsFor(first))).toContain('ev__grown-by-first');
		const second = client({sampling: {}}, []);
		await tools.prepare(second, new AbortController().signal);
		expect(names(tools.toolsFor(second))).toEqual(['ev__a', 'ev__b', 'other__x']);
	});

	it('says an instance\'s list changed its session\'s list only when it differs from what that session saw before it', async () => {
		const {template, tools, instances, client} = setup();
		template.tools = [tool('a'), tool('b'), tool('c')];
		const listed = (session: ClientRecord) => tools.listed(template as unknown as Upstream, instances.get(session) as unknown as Upstream, session);
		// An instance that lists what the template lists: nothing changed for its client (no list_changed, as directly).
		const same = client({roots: {}}, [tool('a'), tool('b'), tool('c')]);
		await tools.prepare(same, new AbortController().signal);
		expect(listed(same)).toBe(false);
		expect(listed(same)).toBe(false);
		// It grows a tool: changed, once.
		instances.get(same)!.tools = [tool('a'), tool('b'), tool('c'), tool('d')];
		expect(listed(same)).toBe(true);
		expect(listed(same)).toBe(false);
		// A client whose instance lists less than the template: changed.
		const fewer = client({sampling: {}}, [tool('a')]);
		await tools.prepare(fewer, new AbortController().signal);
		expect(listed(fewer)).toBe(true);
		// The next client of that profile saw the learned list: its own instance listing it again changes nothing.
		const next = client({sampling: {}}, [tool('a')]);
		instances.set(next, fakeUpstream('ev#next', [tool('a')]));
		await instances.get(next)!.warm();
		expect(listed(next)).toBe(false);
		// An instance not live (yet): its session's list may be the shared one again, so it counts as changed.
		const cold = client({elicitation: {}}, [tool('a')]);
		instances.set(cold, fakeUpstream('ev#cold', [tool('a')]));
		expect(listed(cold)).toBe(true);
	});

	it('keeps at most maxProfilesKept learned lists, whatever capabilities clients make up, the oldest going first', async () => {
		const {template, tools, instances, client} = setup();
		const learn = async (capabilities: Record<string, unknown>) => {
			const session = client(capabilities, [tool('a')]);
			await tools.prepare(session, new AbortController().signal);
			tools.learned(template as unknown as Upstream, instances.get(session) as unknown as Upstream, session);
		};

		// A big made-up capability: what is kept of it is a fixed-size key, not its text.
		await learn({experimental: {nonce: 'first', padding: 'x'.repeat(100_000)}});
		for (let index = 0; index < maxProfilesKept; index++) await learn({experimental: {nonce: index}});
		const started = instances.size;
		// The first profile was let go: a session of it starts its own instance to list again; the newest is still known.
		const again = client({experimental: {nonce: 'first', padding: 'x'.repeat(100_000)}}, [tool('b')]);
		await tools.prepare(again, new AbortController().signal);
		expect(instances.size).toBe(started + 1);
		const newest = client({experimental: {nonce: maxProfilesKept - 1}}, []);
		await tools.prepare(newest, new AbortController().signal);
		expect(instances.size).toBe(started + 1);
		expect(names(tools.toolsFor(newest))).toEqual(['ev__a', 'other__x']);
	});

	it('leaves the shared list to a server a person switched off', async () => {
		const {base, template, tools, client} = setup();
		template.admin = 'quarantined';
		const bare = client({}, [tool('a')]);
		await tools.prepare(bare, new AbortController().signal);
		expect(tools.toolsFor(bare)).toBe(base);
	});
});

describe('RootsRequest: an upstream\'s first roots/list as an event', () => {
	it('wakes a wait when the request arrives, says it was the first once, and returns at once after', async () => {
		const roots = new RootsRequest();
		const waiting = roots.wait(new AbortController().signal, 60_000);
		expect(roots.arrived()).toBe(true);
		await waiting;
		expect(roots.asked).toBe(true);
		expect(roots.arrived()).toBe(false);
		await roots.wait(new AbortController().signal, 60_000);
	});

	it('ends a wait when its signal aborts, or when woken (the connection closed)', async () => {
		const roots = new RootsRequest();
		const controller = new AbortController();
		const aborted = roots.wait(controller.signal, 60_000);
		controller.abort();
		await aborted;
		const woken = roots.wait(new AbortController().signal, 60_000);
		roots.wake();
		await woken;
		expect(roots.asked).toBe(false);
	});
});

describe('ClientTools: a 2026-07-28 client sees a dual-era server\'s tools as its 2026-07-28 mode lists them', () => {
	/** A shared dual-era server "du" (its 2025 mode lists a, b), whose era twin lists a and only_modern. */
	function dualSetup() {
		const template = fakeUpstream('du');
		const base: ExposedTool[] = [
			{name: 'du__a', server: 'du', tool: 'a', definition: tool('a')},
			{name: 'du__b', server: 'du', tool: 'b', definition: tool('b')},
		];
		let twin: Fake | undefined;
		const host: ClientToolsHost = {
			tools: () => base,
			ownListTemplates: client => (client.modern ? [template as unknown as Upstream] : []),
			servesModern: (_template, client) => client.modern,
			instanceOf: (_template, client) => (client.modern ? (twin as unknown as Upstream | undefined) : undefined),
			instanceFor(_template, client) {
				if (!client.modern) return template as unknown as Upstream;
				twin ??= fakeUpstream('du@2026-07-28', [tool('a'), tool('only_modern')]);
				return twin as unknown as Upstream;
			},
		};
		const registry = new ClientRegistry();
		const legacy = registry.add('socket', 'socket#1');
		const modern = registry.add('stdio', 'stdio 2026-07-28 client #1');
		modern.modern = true;
		return {base, tools: new ClientTools(host), legacy, modern, twin: () => twin};
	}

	const scope = () => ({signal: new AbortController().signal, deadline: undefined});

	it('lists the twin\'s tools to a 2026-07-28 client once its first list started it, and the shared list to a 2025 client', async () => {
		const {base, tools, legacy, modern, twin} = dualSetup();
		await tools.prepare(legacy, new AbortController().signal);
		expect(twin()).toBeUndefined();
		expect(tools.toolsFor(legacy)).toBe(base);
		await tools.prepare(modern, new AbortController().signal);
		expect(twin()?.warmed).toBe(1);
		expect(names(tools.toolsFor(modern))).toEqual(['du__a', 'du__only_modern']);
		expect(tools.toolsFor(legacy)).toBe(base);
	});

	it('routes a 2026-07-28 client\'s call of a tool only the twin lists, starting the twin first; a 2025 client\'s call is left to the router', async () => {
		const {tools, legacy, modern, twin} = dualSetup();
		expect(await tools.route(legacy, 'du__only_modern', scope())).toBeUndefined();
		expect(twin()).toBeUndefined();
		const route = await tools.route(modern, 'du__only_modern', scope());
		expect(route).toMatchObject({kind: 'tool', localName: 'only_modern'});
		expect(route?.upstream.name).toBe('du');
		expect(twin()?.warmed).toBe(1);
		// Its own name, which no other tool takes, routes too (a namespaced hangar, a client that calls it by the name it has directly).
		expect((await tools.route(modern, 'only_modern', scope()))?.localName).toBe('only_modern');
		expect(await tools.route(modern, 'nothing', scope())).toBeUndefined();
	});
});
