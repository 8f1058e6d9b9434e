/**
 * The metrics' bookkeeping on the real supervisor and calls log: bounded
 * labels whatever names calls carry, the transition counters, and client
 * names as labels. The exposition is read with a Prometheus text parser.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {HangarMetrics, clientNames, normalizeClientName, otherLabel, serverOf, toolsPerUpstream} from '../../../../../source/core/engine/observe/hangar-metrics.js';
import {LiveRequest} from '../../../../../source/core/engine/request-context.js';
import {silentLogger} from '../../../../../source/core/base/logger.js';
import {logDrops} from '../../../../../source/core/wire/line-transport.js';
import type {Supervisor} from '../../../../../source/core/engine/supervisor.js';
import {fastHangar, fixture, root, tempDir} from '../../../../support/hangar.js';
import {parseMetrics, samples, total} from '../../../../support/prometheus.js';
import {closeAll, startSupervisor} from '../../../../support/supervisor.js';

afterEach(async () => {
	await closeAll();
});

/** Writes one call's record as Supervisor.call does when it ends. */
function callEnded(supervisor: Supervisor, upstream: string, tool: string, caller = 'hangar'): void {
	const context = new LiveRequest({id: 1, method: 'tools/call', caller});
	context.record.upstream = upstream;
	context.record.target = tool;
	supervisor.calls.write(context, {}, {result: {content: []}});
}

describe('HangarMetrics', () => {
	it('keeps the first tool names of an upstream and counts the rest as "other": 1,000 distinct names make at most 101 series', async () => {
		const {supervisor} = await startSupervisor({fx: fixture('normal'), other: fixture('normal')}, {}, {launch: false});
		const metrics = new HangarMetrics(supervisor, {processMetrics: false});
		for (let index = 0; index < 1000; index++) callEnded(supervisor, 'fx', `tool-${index}`);
		callEnded(supervisor, 'other', 'tool-999');
		const families = parseMetrics(await metrics.text());
		const fx = samples(families, 'hangar_upstream_calls_total', {upstream: 'fx'});
		expect(fx).toHaveLength(toolsPerUpstream + 1);
		expect(total(families, 'hangar_upstream_calls_total', {upstream: 'fx'})).toBe(1000);
		expect(total(families, 'hangar_upstream_calls_total', {upstream: 'fx', tool: otherLabel})).toBe(1000 - toolsPerUpstream);
		expect(total(families, 'hangar_upstream_calls_total', {upstream: 'fx', tool: 'tool-0'})).toBe(1);
		// Each upstream has its own budget of names.
		expect(total(families, 'hangar_upstream_calls_total', {upstream: 'other', tool: 'tool-999'})).toBe(1);
		metrics.close();
	});

	it('counts a per-client instance under its server, and caps client names', async () => {
		const {supervisor} = await startSupervisor({fx: fixture('normal')}, {}, {launch: false});
		const metrics = new HangarMetrics(supervisor, {processMetrics: false});
		callEnded(supervisor, 'fx#3', 'echo');
		for (let index = 0; index < clientNames + 20; index++) callEnded(supervisor, 'fx', 'echo', `Client ${index}`);
		const families = parseMetrics(await metrics.text());
		expect(total(families, 'hangar_upstream_calls_total', {upstream: 'fx', tool: 'echo'})).toBe(clientNames + 21);
		expect(samples(families, 'hangar_client_calls_total')).toHaveLength(clientNames + 1);
		expect(total(families, 'hangar_client_calls_total', {client: 'client_0'})).toBe(1);
		// "hangar" (the in-process caller of the first call) took one of the names.
		expect(total(families, 'hangar_client_calls_total', {client: 'hangar'})).toBe(1);
		expect(total(families, 'hangar_client_calls_total', {client: otherLabel})).toBe(21);
		metrics.close();
	});

	it('counts breaker opens, restarts after a crash and idle stops from the transitions', async () => {
		const {supervisor} = await startSupervisor({fx: fixture('normal')}, {}, {launch: false});
		const metrics = new HangarMetrics(supervisor, {processMetrics: false});
		const emit = (from: string, to: string, event: string, reason: string): boolean =>
			supervisor.emit('transition', {upstream: 'fx', from, to, event, reason, at: Date.now()} as never);
		emit('ready', 'degraded', 'trip', '3 failures in a row');
		emit('dead', 'starting', 'start', 'restart after a crash');
		emit('dead', 'starting', 'start', 'restart after a crash');
		emit('cold', 'starting', 'start', 'a call');
		emit('ready', 'stopping', 'stop', 'idle for 300 s (idleTimeoutSeconds 300)');
		emit('ready', 'stopping', 'stop', 'a person in the TUI');
		const families = parseMetrics(await metrics.text());
		expect(total(families, 'hangar_upstream_breaker_opens_total', {upstream: 'fx'})).toBe(1);
		expect(total(families, 'hangar_upstream_restarts_total', {upstream: 'fx'})).toBe(2);
		expect(total(families, 'hangar_upstream_idle_stops_total', {upstream: 'fx'})).toBe(1);
		metrics.close();
	});

	it('gives an upstream a reload adds its transition counters at zero too, so that its first restart is an increase', async () => {
		const dir = tempDir();
		const {supervisor} = await startSupervisor({fx: fixture('normal')}, {}, {launch: false, dir});
		const metrics = new HangarMetrics(supervisor, {processMetrics: false});
		fs.writeFileSync(path.join(dir, 'mcp-hangar.json'), JSON.stringify({hangar: {...fastHangar, stateDir: path.join(dir, 'state')}, mcpServers: {fx: fixture('normal'), later: fixture('normal', [], {lazy: true})}}));
		expect((await supervisor.reload('a test')).outcome).toBe('applied');
		const families = parseMetrics(await metrics.text());
		for (const name of ['hangar_upstream_breaker_opens_total', 'hangar_upstream_restarts_total', 'hangar_upstream_idle_stops_total']) {
			expect(samples(families, name, {upstream: 'later'}).map(sample => sample.value), name).toEqual(['0']);
		}

		metrics.close();
	});

	it('exports every metric the Grafana dashboard in docs/ queries, and docs/observability.md names each hangar_* one', async () => {
		const {supervisor} = await startSupervisor({fx: fixture('normal')}, {}, {launch: false});
		const metrics = new HangarMetrics(supervisor);
		callEnded(supervisor, 'fx', 'echo');
		const exported = new Set([...parseMetrics(await metrics.text()).keys()]);
		const dashboard = fs.readFileSync(path.join(root, 'docs', 'grafana-dashboard.json'), 'utf8');
		const exprs = (JSON.parse(dashboard) as {panels: Array<{targets?: Array<{expr: string}>}>}).panels.flatMap(panel => panel.targets ?? []).map(target => target.expr);
		expect(exprs.length).toBeGreaterThan(10);
		const queried = new Set(exprs.flatMap(expr => [...expr.matchAll(/\b((?:hangar|process|nodejs)_[a-z0-9_]+)/g)].map(match => match[1]!.replace(/_(bucket|sum|count)$/, ''))));
		for (const name of queried) expect(exported, `${name} (queried by the dashboard)`).toContain(name);
		const reference = fs.readFileSync(path.join(root, 'docs', 'observability.md'), 'utf8');
		for (const name of exported) if (name.startsWith('hangar_')) expect(reference, `${name} in docs/observability.md`).toContain(`\`${name}\``);
		metrics.close();
	});

	it('counts the notifications every endpoint dropped for a slow client', async () => {
		const {supervisor} = await startSupervisor({fx: fixture('normal')}, {}, {launch: false});
		const metrics = new HangarMetrics(supervisor, {processMetrics: false});
		const before = total(parseMetrics(await metrics.text()), 'hangar_dropped_notifications_total');
		const onDrop = logDrops(silentLogger, 'a slow client');
		for (let dropped = 1; dropped <= 3; dropped++) onDrop(dropped);
		expect(total(parseMetrics(await metrics.text()), 'hangar_dropped_notifications_total')).toBe(before + 3);
		metrics.close();
	});

	it('names labels from what clients and upstreams send, bounded', () => {
		expect(normalizeClientName('Claude Code')).toBe('claude_code');
		expect(normalizeClientName('x'.repeat(100))).toHaveLength(40);
		expect(normalizeClientName(null)).toBe('unknown');
		expect(normalizeClientName('évil\u001B]52;c;\u0007')).toBe('_vil__52_c__');
		expect(serverOf('fs#12')).toBe('fs');
		expect(serverOf('a#b')).toBe('a#b');
	});
});
