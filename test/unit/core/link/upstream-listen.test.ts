import {describe, expect, it} from 'vitest';
import {ListHints, mergeHints, noCaching} from '../../../../source/core/link/list-hints.js';
import {LogBuffer} from '../../../../source/core/link/log-buffer.js';
import {UpstreamListen, withoutListenId, type ListenFilter, type OpenListen} from '../../../../source/core/link/upstream-listen.js';

/** A listen as the SDK hands it out: honours what the fake upstream supports, ends when closed or dropped. */
class FakeUpstream {
	readonly opened: ListenFilter[] = [];
	readonly open = new Set<FakeListen>();
	subscribe = true;
	async listen(filter: ListenFilter): Promise<OpenListen> {
		this.opened.push(filter);
		const honored: ListenFilter = {...filter};
		if (!this.subscribe) delete honored.resourceSubscriptions;
		const listen = new FakeListen(honored, () => this.open.delete(listen));
		this.open.add(listen);
		return listen;
	}
}

class FakeListen implements OpenListen {
	readonly closed: Promise<'local' | 'graceful' | 'remote'>;
	private end!: (how: 'local' | 'graceful' | 'remote') => void;
	constructor(
		readonly honoredFilter: ListenFilter,
		private readonly gone: () => void,
	) {
		this.closed = new Promise(resolve => (this.end = resolve));
	}

	async close(): Promise<void> {
		this.gone();
		this.end('local');
	}

	drop(): void {
		this.gone();
		this.end('remote');
	}
}

function listenOn(upstream: FakeUpstream, capabilities: Record<string, unknown> = {tools: {listChanged: true}, resources: {subscribe: true}}) {
	return new UpstreamListen({listen: async filter => upstream.listen(filter), capabilities: () => capabilities, isClosed: () => false, log: new LogBuffer(10)});
}

describe('subscriptions/listen toward a 2026-07-28 upstream', () => {
	it('asks for the list changes the upstream offers, and a subscribe opens a new listen with the URI before the old one closes', async () => {
		const upstream = new FakeUpstream();
		const listen = listenOn(upstream);
		listen.start();
		await new Promise(resolve => setImmediate(resolve));
		expect(upstream.opened).toEqual([{toolsListChanged: true}]);
		await listen.request('resources/subscribe', {uri: 'a://1'});
		expect(upstream.opened.at(-1)).toEqual({toolsListChanged: true, resourceSubscriptions: ['a://1']});
		expect(upstream.open.size).toBe(1);
		await listen.request('resources/unsubscribe', {uri: 'a://1'});
		expect(upstream.opened.at(-1)).toEqual({toolsListChanged: true});
	});

	it('batches subscribes asked for while a listen opens into one re-open', async () => {
		const upstream = new FakeUpstream();
		const listen = listenOn(upstream, {resources: {subscribe: true}});
		await Promise.all(['a://1', 'a://2', 'a://3'].map(async uri => listen.request('resources/subscribe', {uri})));
		expect(upstream.opened.length).toBeLessThanOrEqual(2);
		expect(upstream.opened.at(-1)).toEqual({resourceSubscriptions: ['a://1', 'a://2', 'a://3']});
	});

	it('refuses a subscribe the upstream does not honour, and forgets the URI', async () => {
		const upstream = new FakeUpstream();
		upstream.subscribe = false;
		const listen = listenOn(upstream, {tools: {listChanged: true}});
		await expect(listen.request('resources/subscribe', {uri: 'a://1'})).rejects.toThrow(/did not accept "a:\/\/1".*does not offer resource subscriptions/);
		await listen.request('resources/subscribe', {uri: 'a://2'}).catch(() => {});
		expect(upstream.opened.at(-1)).toEqual({toolsListChanged: true, resourceSubscriptions: ['a://2']});
	});

	it('opens a listen the upstream dropped again', async () => {
		const upstream = new FakeUpstream();
		const listen = listenOn(upstream);
		await listen.request('resources/subscribe', {uri: 'a://1'});
		const [current] = upstream.open;
		current!.drop();
		const opened = upstream.opened.length;
		const deadline = Date.now() + 5000;
		while (upstream.opened.length === opened && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20));
		expect(upstream.opened.at(-1)).toEqual({toolsListChanged: true, resourceSubscriptions: ['a://1']});
	});

	it('takes the id of its own listen out of the _meta it passes on', () => {
		expect(withoutListenId({'io.modelcontextprotocol/subscriptionId': 'listen:0'})).toBeUndefined();
		expect(withoutListenId({'io.modelcontextprotocol/subscriptionId': 'listen:0', other: 1})).toEqual({other: 1});
	});
});

describe('caching hints of lists', () => {
	it('merges parts: the smallest ttlMs, private unless every part is public, and no part is not cacheable', () => {
		expect(mergeHints([{ttlMs: 5000, cacheScope: 'public'}, {ttlMs: 2000, cacheScope: 'public'}])).toEqual({ttlMs: 2000, cacheScope: 'public'});
		expect(mergeHints([{ttlMs: 5000, cacheScope: 'public'}, {ttlMs: 9000, cacheScope: 'private'}])).toEqual({ttlMs: 5000, cacheScope: 'private'});
		expect(mergeHints([])).toEqual(noCaching);
	});

	it('counts a result without hints as ttlMs 0 and private, keeps what is left of a ttl, and forgets it on list_changed', () => {
		let now = 1000;
		const hints = new ListHints(() => now);
		hints.page('tools/list', {tools: []}, true);
		expect(hints.current('tools/list')).toEqual(noCaching);
		hints.page('tools/list', {tools: [], ttlMs: 60_000, cacheScope: 'public'}, true);
		hints.page('tools/list', {tools: [], ttlMs: 30_000, cacheScope: 'public'}, false);
		now += 10_000;
		expect(hints.current('tools/list')).toEqual({ttlMs: 20_000, cacheScope: 'public'});
		hints.changed('tools/list');
		expect(hints.current('tools/list')).toEqual(noCaching);
	});
});
