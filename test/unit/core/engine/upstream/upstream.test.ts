/**
 * One upstream's states and call path, in process: an SDK server behind the
 * in-memory transport stands in for the upstream (test/support/fake-upstream.ts)
 * and a manual clock stands in for time, so backoffs, idle stops and probes
 * are stepped through instead of waited for. Real processes are covered by
 * test/integration/lifecycle.test.ts and the e2e tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {HangarError} from '../../../../../source/core/base/errors.js';
import {Logger} from '../../../../../source/core/base/logger.js';
import {parseConfig} from '../../../../../source/core/config/read-config.js';
import {StateStore} from '../../../../../source/core/engine/state-store.js';
import {Upstream} from '../../../../../source/core/engine/upstream/upstream.js';
import {parsedAnswer, type ToolAnswer} from '../../../../../source/core/link/connection.js';
import type {UpstreamState} from '../../../../../source/core/engine/upstream/upstream-state.js';
import {FakeUpstream} from '../../../../support/fake-upstream.js';
import {ManualClock, settle} from '../../../../support/manual-clock.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
	vi.useRealTimers();
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Setup = {hangar?: Record<string, unknown>; server?: Record<string, unknown>};

/** An upstream named "fx" on a fake upstream and a manual clock, with its own temporary state dir. */
async function upstreamOnFake(setup: Setup = {}): Promise<{upstream: Upstream; fake: FakeUpstream; clock: ManualClock; store: StateStore}> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-unit-'));
	const config = parseConfig(
		{
			hangar: {healthIntervalSeconds: 0, toolsRefreshSeconds: 0, stopGraceSeconds: 1, ...setup.hangar},
			mcpServers: {fx: {command: 'fake-upstream', ...setup.server}},
		},
		path.join(dir, 'config.json'),
		{stateDir: dir},
	);
	const logger = new Logger(() => {}, 'silent');
	const store = await StateStore.open(dir, logger, 0);
	const fake = new FakeUpstream();
	const clock = new ManualClock();
	const upstream = new Upstream(config.servers[0]!, config.hangar, store, logger, undefined, undefined, {clock, openConnection: fake.open});
	cleanups.push(async () => {
		fake.release();
		await upstream.shutdown('test over');
		await store.close();
		fs.rmSync(dir, {recursive: true, force: true});
	});
	return {upstream, fake, clock, store};
}

/** Resolves when the upstream is in `state` (at once if it is). */
async function reaches(upstream: Upstream, state: UpstreamState): Promise<void> {
	if (upstream.state === state) return;
	await new Promise<void>(resolve => {
		const listener = (event: {to: UpstreamState}) => {
			if (event.to !== state) return;
			upstream.off('transition', listener);
			resolve();
		};

		upstream.on('transition', listener);
	});
}

// A stdio upstream's result may come as its text (forwarded-result.ts); these come over the in-memory transport, parsed.
const text = (result: ToolAnswer) => (parsedAnswer(result).content as Array<{text?: string}>)[0]?.text;

async function refusal(promise: Promise<unknown>): Promise<HangarError> {
	const error = await promise.then(
		() => undefined,
		(error: unknown) => error,
	);
	expect(error).toBeInstanceOf(HangarError);
	return error as HangarError;
}

describe('an upstream, started on demand', () => {
	it('starts on the first call over the connection its factory opens, and answers it', async () => {
		const {upstream, fake} = await upstreamOnFake();
		expect(upstream.state).toBe('cold');
		const result = await upstream.callTool('echo', {text: 'hi'});
		expect(text(result)).toBe('hi');
		expect(upstream.state).toBe('ready');
		expect(fake.starts).toBe(1);
		expect(upstream.tools.map(tool => tool.name)).toEqual(['echo']);
		expect(upstream.transitions.map(record => `${record.from}->${record.to}`)).toEqual(['cold->starting', 'starting->ready']);
		expect(upstream.snapshot()).toMatchObject({calls: 1, inFlight: 0, toolsSource: 'live'});
	});

	it('shares one start among the calls made while it starts, and answers each once it is ready', async () => {
		const {upstream, fake} = await upstreamOnFake();
		fake.startBehaviour = 'hang';
		const first = upstream.callTool('echo', {text: 'one'});
		const second = upstream.callTool('echo', {text: 'two'});
		await settle();
		expect(upstream.state).toBe('starting');
		expect(upstream.snapshot().inFlight).toBe(2);
		fake.release();
		expect([text(await first), text(await second)]).toEqual(['one', 'two']);
		expect(fake.starts).toBe(1);
	});

	it('answers a call waiting for a start with CallTimeout when its deadline passes first, and the start goes on', async () => {
		const {upstream, fake, clock} = await upstreamOnFake({server: {callTimeoutSeconds: 5, startTimeoutSeconds: 30}});
		fake.startBehaviour = 'hang';
		const call = refusal(upstream.callTool('echo', {text: 'late'}));
		await clock.advance(5000);
		const error = await call;
		expect(error.codeName).toBe('CallTimeout');
		expect(error.message).toContain('cold start');
		expect(upstream.state).toBe('starting');
		fake.release();
		await reaches(upstream, 'ready');
	});

	it('gives up a start that does not finish within the start timeout, says so, and plans a restart', async () => {
		const {upstream, fake, clock} = await upstreamOnFake({server: {startTimeoutSeconds: 10}});
		fake.startBehaviour = 'hang';
		void upstream.start().catch(() => {});
		await settle();
		await clock.advance(10_000);
		await reaches(upstream, 'dead');
		expect(upstream.transitions.at(-1)?.reason).toMatch(/^start failed after \d+ ms: no answer to tools\/list within the start timeout of 10 s;.*restarting in 1 s/);
	});

	it('names the request a timed-out start was still waiting on: one of the lists read beside the tools', async () => {
		const {upstream, fake, clock} = await upstreamOnFake({server: {startTimeoutSeconds: 10}});
		fake.startBehaviour = 'hang-prompts';
		void upstream.start().catch(() => {});
		await settle();
		await clock.advance(10_000);
		await reaches(upstream, 'dead');
		expect(upstream.transitions.at(-1)?.reason).toMatch(/^start failed after \d+ ms: no answer to prompts\/list within the start timeout of 10 s;/);
	});
});

describe('an upstream that crashes', () => {
	it('goes from ready to dead on a crash and restarts after the backoff, not before', async () => {
		const {upstream, fake, clock} = await upstreamOnFake();
		await upstream.start();
		await fake.crash();
		await reaches(upstream, 'dead');
		expect(upstream.transitions.at(-1)).toMatchObject({event: 'crashed'});
		expect(upstream.transitions.at(-1)?.reason).toContain('restarting in 1 s');
		expect(upstream.snapshot().nextRetryAt).toBe(clock.now() + 1000);
		await clock.advance(999);
		expect(upstream.state).toBe('dead');
		await clock.advance(1);
		await reaches(upstream, 'ready');
		expect(fake.starts).toBe(2);
		expect(upstream.snapshot().restarts).toBe(1);
	});

	it('refuses a call while it waits to restart with one restart time, the one still ahead', async () => {
		const {upstream, fake, clock} = await upstreamOnFake({hangar: {backoffMinSeconds: 8}});
		// Hints count from the wall clock: make it this test's clock.
		vi.useFakeTimers({toFake: ['Date']});
		vi.setSystemTime(clock.now());
		await upstream.start();
		await fake.crash();
		await reaches(upstream, 'dead');
		expect(upstream.transitions.at(-1)?.reason).toContain('restarting in 8 s');
		await clock.advance(2200);
		vi.setSystemTime(clock.now());
		const error = await refusal(upstream.callTool('echo', {}));
		expect(error.message).toMatch(/^upstream "fx": call to tool "echo" failed: the upstream is dead: the connection closed\. Hangar restarts it by itself in 5\.8 s \(at [\dT:.-]+Z\); retry after that\.$/);
		expect(error.message.match(/ in \d+(\.\d)? s/g)).toEqual([' in 5.8 s']);
	});

	it('doubles the backoff on each failed start and stays dead once the restart budget is spent', async () => {
		const {upstream, fake, clock} = await upstreamOnFake({hangar: {restartBudget: {maxRestarts: 2, windowSeconds: 60}, failureThreshold: 10}});
		fake.startBehaviour = 'crash';
		await upstream.start().catch(() => {});
		expect(upstream.state).toBe('dead');
		await clock.advance(1000);
		await reaches(upstream, 'dead');
		await clock.advance(2000);
		await reaches(upstream, 'dead');
		const reasons = upstream.transitions.filter(record => record.event === 'start_failed').map(record => record.reason.split('; ').at(-1));
		expect(reasons).toEqual([
			'restarting in 1 s',
			'restarting in 2 s',
			'restart budget spent (3 failures within 60 s, at most 2 restarts): stays dead until it is started again',
		]);
		expect(upstream.snapshot().nextRetryAt).toBeUndefined();
		await clock.advance(60_000);
		expect(fake.starts).toBe(3);
		const error = await refusal(upstream.callTool('echo', {}));
		expect(error.codeName).toBe('UpstreamUnavailable');
		fake.startBehaviour = 'answer';
		await upstream.start();
		expect(upstream.state).toBe('ready');
	});
});

describe('an upstream whose calls fail', () => {
	it('answers CallTimeout naming the upstream and the tool when a call gets no answer in time', async () => {
		vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']});
		const {upstream, fake} = await upstreamOnFake({server: {callTimeoutSeconds: 2}});
		fake.hangingTool('slow');
		await upstream.start();
		const call = refusal(upstream.callTool('slow', {}));
		await vi.advanceTimersByTimeAsync(2000);
		const error = await call;
		expect(error.codeName).toBe('CallTimeout');
		expect(error.message).toContain('"fx"');
		expect(error.message).toContain('slow');
		expect(upstream.snapshot()).toMatchObject({failures: 1, consecutiveFailures: 1, inFlight: 0, state: 'ready'});
	});

	it('trips to degraded at the failure threshold, refuses calls fast, and a probe that is answered brings it back', async () => {
		vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']});
		const {upstream, fake, clock} = await upstreamOnFake({hangar: {failureThreshold: 2, backoffMinSeconds: 4}, server: {callTimeoutSeconds: 1}});
		fake.hangingTool('slow');
		await upstream.start();
		for (let attempt = 0; attempt < 2; attempt++) {
			const call = upstream.callTool('slow', {}).catch(() => {});
			await vi.advanceTimersByTimeAsync(1000);
			await call;
		}

		expect(upstream.state).toBe('degraded');
		expect(upstream.breaker.state).toBe('open');
		const refused = await refusal(upstream.callTool('echo', {text: 'x'}));
		expect(refused.codeName).toBe('CircuitOpen');
		expect(fake.starts).toBe(1);
		const probeAt = upstream.breaker.nextProbeAt!;
		expect(probeAt - clock.now()).toBeGreaterThanOrEqual(4000);
		await clock.advance(probeAt - clock.now());
		await reaches(upstream, 'ready');
		expect(upstream.transitions.at(-1)).toMatchObject({event: 'probe_ok'});
		expect(text(await upstream.callTool('echo', {text: 'back'}))).toBe('back');
	});

	it('does not count the upstream\'s own isError results against the breaker', async () => {
		const {upstream} = await upstreamOnFake({hangar: {failureThreshold: 1}});
		const result = await upstream.callTool('missing', {});
		expect(result.isError).toBe(true);
		expect(upstream.state).toBe('ready');
		expect(upstream.snapshot()).toMatchObject({toolErrors: 1, consecutiveFailures: 0});
	});
});

describe('an idle upstream', () => {
	it('stops to cold once idleTimeoutSeconds pass without a call, counting from its last call', async () => {
		const {upstream, clock, fake} = await upstreamOnFake({server: {idleTimeoutSeconds: 30}});
		await upstream.start();
		await clock.advance(20_000);
		await upstream.callTool('echo', {text: 'still here'});
		await clock.advance(29_000);
		expect(upstream.state).toBe('ready');
		await clock.advance(1000);
		await reaches(upstream, 'cold');
		expect(upstream.transitions.at(-2)?.reason).toBe('idle for 30 s (idleTimeoutSeconds 30)');
		expect(text(await upstream.callTool('echo', {text: 'again'}))).toBe('again');
		expect(fake.starts).toBe(2);
	});

	it('is not stopped while a call is in flight; the call\'s end re-arms the idle stop', async () => {
		const {upstream, clock, fake} = await upstreamOnFake({server: {idleTimeoutSeconds: 10, callTimeoutSeconds: 600}});
		fake.hangingTool('slow');
		await upstream.start();
		const call = upstream.callTool('slow', {});
		await clock.advance(60_000);
		expect(upstream.state).toBe('ready');
		fake.release();
		await call;
		await clock.advance(9999);
		expect(upstream.state).toBe('ready');
		await clock.advance(1);
		await reaches(upstream, 'cold');
	});
});
