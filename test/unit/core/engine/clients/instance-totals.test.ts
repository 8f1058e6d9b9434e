/**
 * A per-client server's totals (instance-totals.ts): the template's calls
 * plus every instance's, live or let go, so a client leaving never makes the
 * server's counts go down; latency over the merged recent calls.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {InstanceTotals, RetiredInstances, countsOf, totalOf} from '../../../../../source/core/engine/clients/instance-totals.js';
import {fixture} from '../../../../support/hangar.js';
import {closeAll, startSupervisor} from '../../../../support/supervisor.js';

afterEach(async () => {
	await closeAll();
});

describe('a per-client server\'s totals', () => {
	it('sums calls, failures, tool errors and calls in flight, and takes p50/p95 over every share\'s samples together', () => {
		const totals = totalOf([
			{calls: 2, failures: 1, toolErrors: 0, inFlight: 1, latencySamples: [10, 20]},
			{calls: 3, failures: 0, toolErrors: 2, inFlight: 0, latencySamples: [30, 40, 100]},
			{calls: 0, failures: 0, toolErrors: 0, inFlight: 2, latencySamples: []},
		]);
		expect(totals).toEqual({calls: 5, failures: 1, toolErrors: 2, inFlight: 3, latencyMs: {p50: 30, p95: 100}});
		expect(totalOf([]).latencyMs).toEqual({p50: null, p95: null});
	});

	it('counts an instance that is let go as live until it has stopped, then keeps its calls in a tally that never goes down', async () => {
		const {supervisor} = await startSupervisor({fx: fixture('normal'), fy: fixture('normal')}, {}, {launch: false});
		const template = supervisor.upstream('fx');
		const instance = supervisor.upstream('fy');
		template.metrics.recordSuccess(5);
		instance.metrics.recordSuccess(50);
		instance.metrics.recordFailure(70, 'timed out');
		const retired = new RetiredInstances();
		let stopped!: () => void;
		retired.retire(instance, new Promise<void>(resolve => {
			stopped = resolve;
		}));
		// Still stopping: its counts are read live, so a call that ends on the way in is counted.
		instance.metrics.recordFailure(90, 'connection closed');
		expect(totalOf([countsOf(template), ...retired.counts()])).toMatchObject({calls: 4, failures: 2});
		stopped();
		await new Promise(resolve => setImmediate(resolve));
		expect(retired.counts()).toHaveLength(1);
		const totals = totalOf([countsOf(template), ...retired.counts()]);
		expect(totals).toEqual({calls: 4, failures: 2, toolErrors: 0, inFlight: 0, latencyMs: {p50: 50, p95: 90}});
		// Folded once: whatever the instance records later is not the server's.
		instance.metrics.recordSuccess(1);
		expect(totalOf(retired.counts()).calls).toBe(3);
	});

	it('gives a server that never ran an instance no totals of its own (its snapshot stands), and one that did its template\'s, live and retired instances\' calls', async () => {
		const {supervisor} = await startSupervisor({fx: fixture('normal'), live: fixture('normal'), gone: fixture('normal')}, {}, {launch: false});
		const [template, live, gone] = ['fx', 'live', 'gone'].map(name => supervisor.upstream(name));
		const totals = new InstanceTotals();
		expect(totals.of(template!, [])).toBeUndefined();
		template!.metrics.recordSuccess(1);
		live!.metrics.recordSuccess(2);
		gone!.metrics.recordFailure(3, 'crashed');
		await totals.retire(template!, gone!, Promise.resolve());
		expect(totals.of(template!, [live!])).toMatchObject({calls: 3, failures: 1});
		expect(totals.of(template!, [])).toMatchObject({calls: 2, failures: 1});
	});
});
