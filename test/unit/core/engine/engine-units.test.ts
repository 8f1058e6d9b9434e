import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {CircuitBreaker} from '../../../../source/core/engine/circuit-breaker.js';
import {InvalidTransitionError} from '../../../../source/core/base/errors.js';
import {LogBuffer, LineSplitter} from '../../../../source/core/upstream/log-buffer.js';
import {silentLogger} from '../../../../source/core/base/logger.js';
import {LatencyWindow} from '../../../../source/core/engine/metrics.js';
import {createProviderMachine, providerEvents, providerStates, providerTransitions} from '../../../../source/core/engine/provider-state.js';
import {RestartPolicy} from '../../../../source/core/engine/restart-policy.js';
import {StateStore} from '../../../../source/core/engine/state-store.js';
import {exposedToolName} from '../../../../source/core/engine/tool-names.js';
import {tempDir} from '../../../support/hangar.js';

describe('provider transition table', () => {
	it('names only known states and events', () => {
		for (const [from, events] of Object.entries(providerTransitions)) {
			expect(providerStates).toContain(from);
			for (const [event, to] of Object.entries(events)) {
				expect(providerEvents).toContain(event);
				expect(providerStates).toContain(to);
			}
		}
	});

	it('throws a typed error for an event the table does not allow, and records nothing', () => {
		const machine = createProviderMachine('fx', 'cold');
		expect(() => machine.apply('started', 'impossible')).toThrow(InvalidTransitionError);
		try {
			machine.apply('crashed', 'impossible');
		} catch (error) {
			expect(error).toBeInstanceOf(InvalidTransitionError);
			expect((error as InvalidTransitionError).from).toBe('cold');
			expect((error as InvalidTransitionError).event).toBe('crashed');
			expect((error as Error).message).toBe('provider "fx": event "crashed" is not allowed in state "cold"');
		}

		expect(machine.state).toBe('cold');
		expect(machine.transitions()).toEqual([]);
	});

	it('refuses to start a quarantined or disabled upstream', () => {
		for (const state of ['quarantined', 'disabled'] as const) {
			expect(() => createProviderMachine('fx', state).apply('start', 'x')).toThrow(InvalidTransitionError);
		}
	});

	it('every state is reachable from cold', () => {
		const seen = new Set<string>(['cold']);
		const queue = ['cold'];
		while (queue.length > 0) {
			const state = queue.shift()! as keyof typeof providerTransitions;
			for (const to of Object.values(providerTransitions[state])) {
				if (!seen.has(to!)) {
					seen.add(to!);
					queue.push(to!);
				}
			}
		}

		expect([...seen].sort()).toEqual([...providerStates].sort());
	});
});

describe('circuit breaker', () => {
	const breaker = () => new CircuitBreaker({threshold: 3, minMs: 1000, maxMs: 60_000, jitter: 0});

	it('opens after the threshold of consecutive failures, not before', () => {
		const b = breaker();
		expect(b.recordFailure(0)).toBe(false);
		expect(b.recordFailure(0)).toBe(false);
		expect(b.recordFailure(0)).toBe(true);
		expect(b.state).toBe('open');
		expect(b.nextProbeAt).toBe(1000);
	});

	it('a success resets the streak', () => {
		const b = breaker();
		b.recordFailure(0);
		b.recordFailure(0);
		b.recordSuccess();
		expect(b.recordFailure(0)).toBe(false);
		expect(b.consecutiveFailures).toBe(1);
	});

	it('doubles the backoff on each failed probe up to the maximum, and resets on success', () => {
		const b = breaker();
		for (let i = 0; i < 3; i++) b.recordFailure(0);
		const delays = [b.nextProbeAt];
		for (let i = 0; i < 8; i++) {
			b.beginProbe();
			expect(b.state).toBe('half-open');
			expect(b.recordFailure(0)).toBe(true);
			delays.push(b.nextProbeAt);
		}

		expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000]);
		b.beginProbe();
		b.recordSuccess();
		expect(b.state).toBe('closed');
		for (let i = 0; i < 3; i++) b.recordFailure(0);
		expect(b.nextProbeAt).toBe(1000);
	});

	it('adds jitter within the configured spread', () => {
		const b = new CircuitBreaker({threshold: 1, minMs: 1000, maxMs: 60_000, jitter: 0.2, random: () => 0.5});
		b.recordFailure(0);
		expect(b.nextProbeAt).toBe(1100);
	});
});

describe('restart policy', () => {
	it('allows restarts with doubling delays until the budget is spent inside the window', () => {
		const policy = new RestartPolicy({maxRestarts: 5, windowMs: 60_000, minDelayMs: 1000, maxDelayMs: 60_000});
		expect([0, 1, 2, 3, 4].map(at => policy.recordCrash(at))).toEqual([1000, 2000, 4000, 8000, 16_000]);
		expect(policy.recordCrash(5)).toBeUndefined();
	});

	it('forgets crashes older than the window', () => {
		const policy = new RestartPolicy({maxRestarts: 1, windowMs: 10_000, minDelayMs: 1000, maxDelayMs: 60_000});
		expect(policy.recordCrash(0)).toBe(1000);
		expect(policy.recordCrash(20_000)).toBe(1000);
		expect(policy.recordCrash(21_000)).toBeUndefined();
	});
});

describe('small parts', () => {
	it('exposed tool names are valid, stable and distinct', () => {
		expect(exposedToolName('fx', 'echo')).toBe('fx__echo');
		const long = exposedToolName('server', 'x'.repeat(100));
		expect(long).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
		expect(exposedToolName('server', 'x'.repeat(100))).toBe(long);
		expect(exposedToolName('server', 'x'.repeat(101))).not.toBe(long);
		expect(exposedToolName('s', 'a.b')).not.toBe(exposedToolName('s', 'a/b'));
	});

	it('the log buffer keeps only the newest lines', () => {
		const log = new LogBuffer(3);
		for (let i = 0; i < 5; i++) log.push('stderr', `line ${i}`);
		expect(log.tail(10).map(line => line.text)).toEqual(['line 2', 'line 3', 'line 4']);
		expect(log.droppedLines).toBe(2);
	});

	it('the line splitter joins chunks and strips CR', () => {
		const lines: string[] = [];
		const splitter = new LineSplitter(line => lines.push(line));
		splitter.write('a\r\nb');
		splitter.write('c\nd');
		splitter.flush();
		expect(lines).toEqual(['a', 'bc', 'd']);
	});

	it('latency percentiles come from the recent window', () => {
		const window = new LatencyWindow(4);
		for (const ms of [100, 100, 100, 100, 1, 2, 3, 4]) window.add(ms);
		expect(window.percentile(50)).toBe(2);
		expect(window.percentile(95)).toBe(4);
	});
});

describe('state store', () => {
	it('persists to disk through a real file (not memory), debounced', async () => {
		const dir = tempDir();
		const store = await StateStore.open(dir, silentLogger, 10);
		store.update('fx', upstream => {
			upstream.toolsVerifiedAt = 123;
		});
		await store.close();
		const saved = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
		expect(saved.upstreams.fx.toolsVerifiedAt).toBe(123);
		const again = await StateStore.open(dir, silentLogger);
		expect(again.upstream('fx').toolsVerifiedAt).toBe(123);
		await again.close();
	});

	it('reads without taking the writer lock when opened read-only (mcp-hangar status), so a hangar starting meanwhile still writes', async () => {
		const dir = tempDir();
		const reader = await StateStore.open(dir, silentLogger, 1, {readOnly: true});
		expect(reader.isWriter).toBe(false);
		expect(fs.existsSync(path.join(dir, 'state.lock'))).toBe(false);
		const writer = await StateStore.open(dir, silentLogger, 1);
		expect(writer.isWriter).toBe(true);
		reader.update('fx', upstream => {
			upstream.counters.calls = 99;
		});
		await reader.close();
		await writer.close();
		expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(false);
	});

	it('keeps lazy updates (call counters) in memory until the next write or close', async () => {
		const dir = tempDir();
		const store = await StateStore.open(dir, silentLogger, 1);
		store.update('fx', upstream => {
			upstream.counters.calls += 1;
		}, true);
		await new Promise(resolve => setTimeout(resolve, 50));
		expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(false);
		await store.close();
		const saved = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
		expect(saved.upstreams.fx.counters.calls).toBe(1);
	});

	it('moves a corrupt file aside, reports it, and starts empty', async () => {
		const dir = tempDir();
		fs.writeFileSync(path.join(dir, 'state.json'), '{not json');
		const store = await StateStore.open(dir, silentLogger);
		expect(store.problems[0]).toMatch(/state file .*state\.json is unreadable .*; moved it to .*state\.json\.corrupt-\d+ and started with empty state/);
		expect(fs.readdirSync(dir).some(file => file.startsWith('state.json.corrupt-'))).toBe(true);
		expect(store.data.upstreams).toEqual({});
		await store.close();
	});

	it('lets only one process write: a second store on the same dir keeps changes in memory', async () => {
		const dir = tempDir();
		fs.writeFileSync(path.join(dir, 'state.lock'), String(process.ppid));
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(store.isWriter).toBe(false);
		store.update('fx', upstream => {
			upstream.toolsVerifiedAt = 1;
		});
		await store.close();
		expect(fs.existsSync(path.join(dir, 'state.json'))).toBe(false);
	});

	it('replaces a stale lock left by a dead process', async () => {
		const dir = tempDir();
		fs.writeFileSync(path.join(dir, 'state.lock'), '999999999');
		const store = await StateStore.open(dir, silentLogger, 1);
		expect(store.isWriter).toBe(true);
		await store.close();
	});
});
