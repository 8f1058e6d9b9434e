import {describe, expect, it} from 'vitest';
import {orderEntries, visibleRows} from '../../../../source/tui/components/upstream-rows.js';
import type {StatusEntry} from '../../../../source/core/views/views.js';

function entry(name: string, state: StatusEntry['state']): StatusEntry {
	return {
		name, state, admin: 'enabled', ready: state === 'ready', callable: true, stale: false, breaker: 'closed', pid: null, transport: 'stdio', tools: 1,
		toolsSource: 'live', calls: 0, failures: 0, consecutiveFailures: 0, toolErrors: 0, inFlight: 0, latencyMs: {p50: null, p95: null}, lastError: null,
		lastVerifiedAt: null, nextRetryAt: null, stateSince: new Date(0).toISOString(), upSeconds: null, idleSeconds: null, restarts: 0, quarantineReason: null, era: {era: null, protocolVersion: null, learnedAt: null}, contextTokens: 0,
	};
}

describe('upstream rows', () => {
	it('lists trouble first, then by name', () => {
		const rows = orderEntries([entry('b', 'ready'), entry('a', 'cold'), entry('z', 'dead'), entry('c', 'degraded'), entry('a2', 'ready')]);
		expect(rows.map(row => row.name)).toEqual(['z', 'c', 'a2', 'b', 'a']);
	});

	it('filters by name and tool name fuzzily but tightly, and by state by the start of the word', () => {
		const entries = [entry('github', 'ready'), entry('memory', 'cold'), entry('files', 'dead'), entry('everything', 'ready'), entry('ready-check', 'stopped')];
		const tools = {github: ['create_issue'], memory: ['read_graph', 'search_nodes'], files: ['read_file'], everything: ['echo'], 'ready-check': []};
		const names = (query: string): Array<string | undefined> => visibleRows(entries, tools, query).map(row => row.name);
		// /ready: the ready ones, and one whose name says ready; not memory for its tool read_graph.
		expect(names('ready')).toEqual(['everything', 'github', 'ready-check']);
		expect(names('rea')).toEqual(expect.arrayContaining(['everything', 'github']));
		expect(names('dead')).toEqual(['files']);
		expect(names('st')).toEqual(['ready-check']);
		// A typo in a name of six letters or more is forgiven; short queries must match as typed.
		expect(names('everthing')).toEqual(['everything']);
		expect(names('memroy')).toEqual([]);
		expect(names('memoy')).toEqual([]);
		expect(names('memorry')).toEqual(['memory']);
		// Tool names: as typed, or one typo in a long one.
		expect(names('read_file')).toEqual(['files']);
		expect(names('nodes')).toEqual(['memory']);
		expect(names('read_grph')).toEqual(['memory']);
		expect(names('read_')).toEqual(['files', 'memory']);
		expect(names('')).toEqual(['files', 'everything', 'github', 'memory', 'ready-check']);
	});
});
