import {describe, expect, it} from 'vitest';
import {statusTable} from '../../../source/cli/supervisor-verbs.js';
import type {StatusEntry} from '../../../source/core/views/views.js';

const hint = 'Fix the command in the config, then run mcp-hangar start broken.';
const entry = (name: string, lastError: string | null): StatusEntry =>
	({
		name,
		state: lastError === null ? 'ready' : 'dead',
		admin: 'auto',
		callable: true,
		toolsSource: 'live',
		tools: 3,
		stale: false,
		contextTokens: 120,
		lastVerifiedAt: null,
		calls: 2,
		consecutiveFailures: 0,
		failures: 0,
		latencyMs: {p50: 4, p95: 9},
		restarts: 0,
		quarantineReason: null,
		era: {era: null, protocolVersion: null, learnedAt: null},
		lastError,
	}) as unknown as StatusEntry;

describe('the status table', () => {
	const long = `start failed: spawn surely-missing-command ENOENT: the command was not found on PATH (/usr/local/bin:/usr/bin:/bin). ${hint}`;

	it('never cuts LAST ERROR when the output is not a terminal: one line per row, the hint included', () => {
		const lines = statusTable([entry('ok', null), entry('broken', long)]).trimEnd().split('\n');
		expect(lines).toHaveLength(3);
		expect(lines[2]).toContain(long);
	});

	it('folds a long error under its column on a terminal, keeping every word and no line over the width', () => {
		const lines = statusTable([entry('broken', long)], Date.now(), 160).trimEnd().split('\n');
		expect(lines.length).toBeGreaterThan(2);
		for (const line of lines) expect(line.length).toBeLessThanOrEqual(160);
		const column = lines[0]!.indexOf('LAST ERROR');
		expect(lines.slice(2).every(line => line.slice(0, column).trim() === '')).toBe(true);
		expect(lines.slice(1).map(line => line.slice(column)).join(' ')).toBe(long);
	});

	it('puts the error under the row, indented, when its column starts too far right to be read', () => {
		// The other columns take 81 characters here: the error cannot sit right of them.
		const lines = statusTable([entry('broken', long)], Date.now(), 80).trimEnd().split('\n');
		expect(lines[1]!.startsWith('broken ')).toBe(true);
		for (const line of lines.slice(2)) expect(line.length).toBeLessThanOrEqual(80);
		expect(lines.slice(2).every(line => line.startsWith('    '))).toBe(true);
		expect(lines.slice(2).map(line => line.trim()).join(' ')).toBe(long);
	});

	it('tells a person how to sign in to a server that waits for one, after its error', () => {
		const waiting = {...entry('remote', 'the upstream answered 401 Unauthorized: it needs a sign-in'), state: 'needs-sign-in'} as StatusEntry;
		const never = {...entry('fresh', null), state: 'needs-sign-in'} as StatusEntry;
		const lines = statusTable([waiting, never]).trimEnd().split('\n');
		expect(lines[1]).toMatch(/^remote\s+needs-sign-in\s.*  the upstream answered 401 Unauthorized: it needs a sign-in; to sign in: mcp-hangar auth remote$/);
		expect(lines[2]).toMatch(/^fresh\s+needs-sign-in\s.*  it needs a sign-in; to sign in: mcp-hangar auth fresh$/);
	});

	it('shows a dual-era server\'s era twin in a row under it, with its state, pid and who it serves', () => {
		const dual = {
			...entry('dual', null),
			era: {era: 'dual', protocolVersion: '2025-11-25', learnedAt: null},
			eraTwin: {name: 'dual@2026-07-28', state: 'ready', breaker: 'closed', pid: 4242, calls: 3, failures: 0, inFlight: 0, restarts: 0, upSeconds: 5, idleSeconds: 1, lastError: null},
		} as unknown as StatusEntry;
		const lines = statusTable([dual]).trimEnd().split('\n');
		expect(lines).toHaveLength(3);
		expect(lines[1]).toMatch(/^dual\s+ready\s.*dual-era/);
		expect(lines[2]).toMatch(/^ {2}dual@2026-07-28\s+ready\s+3\s+0\s+0\s+pid 4242, era twin: its 2026-07-28 mode, for 2026-07-28 clients$/);
	});

	it('shows an invisible character in LAST ERROR escaped, not as the space JavaScript counts it as', () => {
		// A BOM, a line separator and a no-break space are whitespace to \s; only the line's own breaks fold.
		const hidden = 'tool "read\uFEFFfile" description changed to "x\u2028send ~/.ssh\u00A0too"\nsee the diff';
		const perClient = {...entry('pc', null), instances: [{name: 'pc#1', client: 'a', state: 'dead', pid: null, calls: 0, failures: 0, restarts: 0, lastError: 'gone\uFEFF\u2028now'}]} as unknown as StatusEntry;
		const lines = statusTable([entry('hid', hidden), perClient]).trimEnd().split('\n');
		expect(lines[1]).toContain(String.raw`tool "read\ufefffile" description changed to "x\u2028send ~/.ssh` + '\u00A0' + 'too" see the diff');
		expect(lines[3]).toContain(String.raw`gone\ufeff\u2028now`);
	});

	it('shows a lone carriage return, a vertical tab and a form feed in LAST ERROR escaped, folding only line breaks and tabs', () => {
		const lines = statusTable([entry('cr', 'boom A\rB\vC\fD\r\nE\tF')]).trimEnd().split('\n');
		expect(lines[1]).toContain(String.raw`boom A\x0dB\x0bC\x0cD E F`);
	});

	it('says FAILED as the TUI does: failed calls, and the failures in a row apart, not as a bare "4/0"', () => {
		const failing = {...entry('remote', 'start failed: cannot connect'), calls: 0, failures: 0, consecutiveFailures: 4} as StatusEntry;
		const lines = statusTable([entry('ok', null), failing]).trimEnd().split('\n');
		expect(lines[0]).toMatch(/\sCALLS\s+FAILED\s+P50\s/);
		expect(lines[1]).toMatch(/^ok\s.*\s2\s+0\s+4ms\s/);
		expect(lines[2]).toMatch(/^remote\s.*\s0\s+0 \(4 in a row\)\s+4ms\s/);
		expect(lines.join('\n')).not.toContain('4/0');
	});
});
