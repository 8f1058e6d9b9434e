/**
 * A failed start quotes its own attempt's stderr, not every earlier
 * attempt's: "boom | boom | boom" from five restarts said nothing new.
 */
import {describe, expect, it} from 'vitest';
import {attemptStderr} from '../../../../source/core/engine/upstream/upstream.js';
import type {LogLine} from '../../../../source/core/link/log-buffer.js';

const line = (at: number, text: string): LogLine => ({at, source: 'stderr', text});

describe('attemptStderr', () => {
	it('quotes only the lines this attempt wrote', () => {
		const tail = [line(100, 'boom'), line(200, 'boom'), line(300, 'starting'), line(310, 'boom')];
		expect(attemptStderr(tail, 300)).toEqual({lines: ['starting', 'boom'], earlier: false});
	});

	it('when this attempt wrote nothing, quotes the newest earlier line and marks it earlier', () => {
		expect(attemptStderr([line(100, 'boom'), line(200, 'boom again')], 300)).toEqual({lines: ['boom again'], earlier: true});
	});

	it('with no stderr at all, quotes nothing', () => {
		expect(attemptStderr([], 300)).toEqual({lines: [], earlier: false});
	});
});
