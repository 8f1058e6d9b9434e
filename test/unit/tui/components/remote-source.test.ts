/**
 * How an attached TUI keeps an upstream's log from read to read: a read
 * for the lines after those it holds is appended, and lines the owner's
 * bounded buffer dropped are dropped here too.
 */
import {describe, expect, it} from 'vitest';
import {mergeLogs} from '../../../../source/tui/components/remote-source.js';
import type {ConsoleAnswer} from '../../../../source/core/gateway/console.js';
import type {LogLines} from '../../../../source/core/views/console-view.js';

const lines = (from: number, to: number) => Array.from({length: to - from}, (_, index) => ({at: 0, source: 'stderr' as const, text: `line ${from + index}`}));

function answer(logs: LogLines | undefined, logsHeldFrom?: number): ConsoleAnswer {
	const snapshot = {configPath: 'c', startedAt: 0, now: 0, clients: [], entries: [], toolNames: {}, details: undefined, logs, config: {drift: null, lastReload: null}, history: {}, context: {exposure: 'direct' as const, current: 0, direct: 0, search: 0}};
	return {snapshot, approvals: {}, ...(logsHeldFrom === undefined ? {} : {logsHeldFrom})};
}

const texts = (logs: LogLines | undefined) => logs?.lines.map(line => line.text);

describe('a remote log view', () => {
	it('appends the lines after those it holds', () => {
		const merged = mergeLogs({lines: lines(0, 3), first: 0}, answer({lines: lines(3, 5), first: 3}, 0));
		expect(merged?.first).toBe(0);
		expect(texts(merged)).toEqual(['line 0', 'line 1', 'line 2', 'line 3', 'line 4']);
	});

	it('drops the lines the owner\'s buffer no longer holds', () => {
		const merged = mergeLogs({lines: lines(0, 3), first: 0}, answer({lines: lines(3, 5), first: 3}, 2));
		expect(merged?.first).toBe(2);
		expect(texts(merged)).toEqual(['line 2', 'line 3', 'line 4']);
	});

	it('takes a whole buffer as it comes, and a partial one only when it continues what is held', () => {
		expect(mergeLogs({lines: lines(0, 3), first: 0}, answer({lines: lines(0, 2), first: 0}))).toEqual({lines: lines(0, 2), first: 0});
		expect(mergeLogs(undefined, answer({lines: lines(4, 5), first: 4}, 0))).toEqual({lines: lines(4, 5), first: 4});
		expect(mergeLogs({lines: lines(0, 3), first: 0}, answer({lines: lines(7, 8), first: 7}, 0))).toEqual({lines: lines(7, 8), first: 7});
		expect(mergeLogs({lines: lines(0, 3), first: 0}, answer(undefined))).toBeUndefined();
	});
});
