import {describe, expect, it} from 'vitest';
import {ProgressRelay, type ProgressUpdate} from '../../../../source/core/engine/upstream/call-path.js';

describe('progress relayed to a client', () => {
	it('passes an upstream\'s progress from 0 on, each value larger than the last', () => {
		const sent: ProgressUpdate[] = [];
		const relay = new ProgressRelay(update => sent.push(update));
		for (const progress of [0, 50, 50, 100]) relay.upstream({progress, total: 100});
		expect(sent.map(update => update.progress)).toEqual([0, 50, 100]);
	});

	it('shifts upstream progress past hangar\'s own start-up notes', () => {
		const sent: ProgressUpdate[] = [];
		const relay = new ProgressRelay(update => sent.push(update));
		relay.note('starting upstream "fx"');
		relay.upstream({progress: 1, total: 3});
		relay.upstream({progress: 3, total: 3});
		expect(sent).toEqual([
			{progress: 1, message: 'starting upstream "fx"'},
			{progress: 2, total: 4, message: undefined, _meta: undefined, upstream: {progress: 1, total: 3}},
			{progress: 4, total: 4, message: undefined, _meta: undefined, upstream: {progress: 3, total: 3}},
		]);
	});
});
