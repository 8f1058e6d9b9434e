import {describe, expect, it} from 'vitest';
import {compactColumns, fitColumns, fullColumns, rowSegments, upstreamColumns} from '../../../../source/tui/components/table-columns.js';
import type {StatusEntry} from '../../../../source/core/views/views.js';
import type {Segment} from '../../../../source/tui/components/Segments.js';
import {reasonLines, reasonOf} from '../../../../source/tui/components/UpstreamTable.js';

function entry(name: string, state: StatusEntry['state']): StatusEntry {
	return {
		name, state, admin: 'enabled', ready: state === 'ready', callable: true, stale: false, breaker: 'closed', pid: null, transport: 'stdio', tools: 1,
		toolsSource: 'live', calls: 0, failures: 0, consecutiveFailures: 0, toolErrors: 0, inFlight: 0, latencyMs: {p50: null, p95: null}, lastError: null,
		lastVerifiedAt: null, nextRetryAt: null, stateSince: new Date(0).toISOString(), upSeconds: null, idleSeconds: null, restarts: 0, quarantineReason: null, era: {era: null, protocolVersion: null, learnedAt: null}, contextTokens: 0,
	};
}

describe('table columns', () => {
	const width = (columns: ReadonlyArray<{width: number}>): number => 2 + columns.reduce((sum, column) => sum + column.width, 0) + 2 * (columns.length - 1);

	it('chooses columns by priority: state, name, failures and the error, then the tool count, before latency and pid, shown in their own order', () => {
		const entries = [entry('sequential-thinking', 'dead')];
		const ids = (columns: number): string[] => fitColumns(fullColumns, columns, entries).map(column => column.id);
		expect(ids(200)).toEqual(['name', 'state', 'breaker', 'pid', 'up', 'tools', 'tokens', 'calls', 'failures', 'latency', 'restarts', 'error']);
		expect(ids(120)).toEqual(['name', 'state', 'breaker', 'tools', 'tokens', 'calls', 'failures', 'restarts', 'error']);
		expect(ids(80)).toEqual(['name', 'state', 'failures', 'error']);
		// At 80 columns the error gets a readable width.
		expect(fitColumns(fullColumns, 80, entries).at(-1)?.width).toBeGreaterThanOrEqual(30);
		// At 60 the name gives up characters so the error keeps its minimum.
		expect(ids(60)).toEqual(['name', 'state', 'failures', 'error']);
		expect(ids(30)).toEqual(['name', 'state']);
		for (const columns of [20, 40, 60, 80, 100, 120, 140, 160, 200, 240]) expect(width(fitColumns(fullColumns, columns, entries))).toBeLessThanOrEqual(columns);
		expect(fitColumns(compactColumns, 50, entries).map(column => column.id)).toEqual(['name', 'state', 'failures', 'restarts']);
	});

	it('caps the name at 20 characters: a 19-character name fits whole, a longer one is cut in the middle', () => {
		const columns = fitColumns(fullColumns, 120, [entry('sequential-thinking', 'ready'), entry('an-upstream-with-a-longer-name', 'ready')]);
		expect(columns[0]?.width).toBe(20);
		expect(rowSegments(entry('an-upstream-with-a-longer-name', 'ready'), columns)[1]?.text).toBe('an-upstre…onger-name');
		expect(rowSegments(entry('sequential-thinking', 'ready'), columns)[1]?.text).toBe('sequential-thinking ');
	});

	it('shows the breaker as one character, and sparklines of the last 5 minutes only when wide', () => {
		const history = {end: 0, bucketMs: 5000, calls: [...new Array<number>(54).fill(0), 1, 2, 4, 8, 16, 32], failures: [...new Array<number>(59).fill(0), 32], p95: [...new Array<number | null>(59).fill(null), 12.8]};
		const specs = upstreamColumns({everything: history});
		const wide = fitColumns(specs, 240, [entry('everything', 'ready')]);
		const cells = Object.fromEntries(wide.map(column => [column.id, column.cell(entry('everything', 'ready')).text]));
		expect(cells['breaker']).toBe('●');
		expect(cells['callsHistory']).toBe('▁▁▁▁▁▁▁▁▁█');
		// Failures on the calls' scale: 32 failed of the last 30 s's 63 calls.
		expect(cells['failHistory']).toBe('▁▁▁▁▁▁▁▁▁▅');
		expect(cells['p95History']).toBe('         █');
		expect(fitColumns(specs, 140, [entry('everything', 'ready')]).map(column => column.id)).not.toContain('callsHistory');
	});
});

describe('the reason line under the table', () => {
	const failing = (name: string, state: StatusEntry['state'], lastError: string | null, consecutiveFailures = 0): StatusEntry => ({...entry(name, state), lastError, consecutiveFailures});
	const text = (lines: Segment[][]): string => lines.map(line => line.map(segment => segment.text).join('')).join('\n');

	it('tells the selected upstream\'s error, else a broken one\'s, else any ready upstream\'s last error (cut in its row at 80 columns)', () => {
		const quiet = failing('quiet', 'ready', null);
		const flaky = failing('flaky', 'ready', 'upstream "flaky": tools/call "echo" failed: no answer within 2 s (callTimeoutSeconds)');
		const dead = failing('dead-one', 'dead', 'start failed', 3);
		expect(reasonOf([quiet, flaky], quiet)).toBe(flaky);
		expect(reasonOf([quiet, flaky, dead], quiet)).toBe(dead);
		expect(reasonOf([quiet, flaky, dead], flaky)).toBe(dead);
		expect(reasonOf([quiet], quiet)).toBeUndefined();
		expect(text(reasonLines(flaky, 80))).toBe('⚠ flaky last error: tools/call "echo" failed: no answer within 2 s\n  (callTimeoutSeconds)');
		// Failures in a row (what opens the breaker) are counted here, since the FAILED column counts failed calls only.
		expect(text(reasonLines(dead, 80))).toBe('⚠ dead-one is dead (3 failures in a row): start failed');
	});

	it('takes up to four lines as the rows leave room', () => {
		const long = failing('long', 'dead', 'x'.repeat(400));
		expect(reasonLines(long, 80, 4)).toHaveLength(4);
		expect(reasonLines(long, 80)).toHaveLength(2);
	});
});
