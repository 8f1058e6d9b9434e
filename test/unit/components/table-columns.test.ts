import {describe, expect, it} from 'vitest';
import {compactColumns, fitColumns, fullColumns} from '../../../source/components/table-columns.js';
import type {StatusEntry} from '../../../source/core/engine/views.js';

function entry(name: string, state: StatusEntry['state']): StatusEntry {
	return {
		name, state, admin: 'enabled', ready: state === 'ready', callable: true, stale: false, breaker: 'closed', pid: null, transport: 'stdio', tools: 1,
		toolsSource: 'live', calls: 0, failures: 0, consecutiveFailures: 0, toolErrors: 0, inFlight: 0, latencyMs: {p50: null, p95: null}, lastError: null,
		lastVerifiedAt: null, nextRetryAt: null, stateSince: new Date(0).toISOString(), upSeconds: null, idleSeconds: null, restarts: 0, quarantineReason: null,
	};
}

describe('table columns', () => {
	it('drops columns from the right, giving the last error what is left when it is enough', () => {
		const entries = [entry('everything', 'ready')];
		const ids = (width: number): string[] => fitColumns(fullColumns, width, entries).map(column => column.id);
		expect(ids(200)).toEqual(['name', 'state', 'breaker', 'pid', 'up', 'tools', 'calls', 'failures', 'latency', 'restarts', 'error']);
		expect(fitColumns(fullColumns, 200, entries).at(-1)?.width).toBeGreaterThan(60);
		expect(ids(120)).toContain('error');
		expect(ids(100)).toEqual(['name', 'state', 'breaker', 'pid', 'up', 'tools', 'calls', 'failures', 'latency']);
		expect(ids(30)).toEqual(['name', 'state']);
		for (const width of [20, 40, 60, 80, 100, 140]) {
			const columns = fitColumns(fullColumns, width, entries);
			const used = 2 + columns.reduce((sum, column) => sum + column.width, 0) + 2 * (columns.length - 1);
			expect(used).toBeLessThanOrEqual(width);
		}

		expect(fitColumns(compactColumns, 50, entries).map(column => column.id)).toEqual(['name', 'state', 'failures', 'restarts']);
	});
});
