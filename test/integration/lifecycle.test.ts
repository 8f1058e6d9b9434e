import {setTimeout} from 'node:timers/promises';
import {afterEach, describe, expect, it} from 'vitest';
import {HangarError} from '../../source/core/base/errors.js';
import {upstreamDetails} from '../../source/core/views/views.js';
import {fixture, rejection, waitFor} from '../support/hangar.js';
import {closeAll, startSupervisor} from '../support/supervisor.js';

afterEach(closeAll);

const callError = async (promise: Promise<unknown>) => rejection(promise, HangarError);

describe('upstream lifecycle with real fixture upstreams', () => {
	it('starts a lazy upstream on the first call and records every transition with a reason', async () => {
		const t = await startSupervisor({fx: fixture('normal', [], {tools: [{name: 'echo'}]})});
		expect(t.supervisor.upstream('fx').state).toBe('cold');
		const result = await t.supervisor.callByName('fx', 'echo', {message: 'hello'});
		expect(result.content).toEqual([{type: 'text', text: 'hello'}]);
		expect(t.path('fx')).toEqual(['cold->starting', 'starting->ready']);
		const [start, ready] = t.transitions;
		expect(start!.reason).toBe('on demand: call to tool "echo"');
		expect(ready!.reason).toMatch(/^started in \d+ ms \(pid \d+, 6 tools\)$/);
		expect(typeof ready!.at).toBe('number');
	});

	it('shares one start among 100 concurrent calls to a cold upstream', async () => {
		const t = await startSupervisor({fx: fixture('slow-start', ['--delay-ms', '300'], {tools: [{name: 'pid'}]})});
		const results = await Promise.all(Array.from({length: 100}, async () => t.supervisor.callByName('fx', 'pid', {})));
		const pids = new Set(results.map(result => JSON.stringify(result.content)));
		expect(pids.size).toBe(1);
		expect(t.path('fx')).toEqual(['cold->starting', 'starting->ready']);
	});

	it('fails a call in flight at once when the upstream crashes, with exit code and stderr, then restarts it with backoff', async () => {
		const t = await startSupervisor({fx: fixture('crash-on-call', [], {lazy: false})});
		await t.waitForState('fx', 'ready');
		const error = await callError(t.supervisor.callByName('fx', 'echo', {message: 'boom'}));
		expect(error.codeName).toBe('UpstreamCrashed');
		expect(error.code).toBe(-32_006);
		expect(error.message).toContain('upstream "fx": tools/call "echo" failed: the upstream exited with code 3 while the call was in flight');
		expect(error.message).toContain('crashing on call to echo');
		expect(error.details['exitCode']).toBe(3);

		const crash = t.transitions.find(event => event.to === 'dead')!;
		expect(crash.from).toBe('ready');
		expect(crash.reason).toMatch(/^the process exited with code 3; last stderr: .*crashing on call to echo; restarting in 0\.3 s$/);
		await t.waitForState('fx', 'ready');
		expect(t.path('fx')).toEqual(['cold->starting', 'starting->ready', 'ready->dead', 'dead->starting', 'starting->ready']);
		expect(t.transitions.at(-2)!.reason).toBe('automatic restart after 0.3 s backoff');
		// Restarted, it has no current error: the crash is history (hangar_details' recentErrors, with its time), not what status shows now.
		expect(t.supervisor.upstream('fx').snapshot().lastError).toBeUndefined();
		const errors = upstreamDetails(t.supervisor, 'fx').recentErrors;
		expect(errors.map(entry => entry.message)).toContainEqual(expect.stringMatching(/^echo: .*the upstream exited with code 3 while the call was in flight/));
		expect(errors.map(entry => entry.message)).toContainEqual(expect.stringMatching(/^the process exited with code 3/));
		expect(error.message).toMatch(/retry/i);
	});

	it('reports a crash during initialize as a failed start and stops restarting when the budget is spent', async () => {
		const t = await startSupervisor(
			{fx: fixture('crash-during-init', [], {tools: [{name: 'echo'}]})},
			{restartBudget: {maxRestarts: 2, windowSeconds: 60}},
		);
		const error = await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		expect(error.codeName).toBe('StartFailed');
		expect(error.message).toContain('upstream "fx": start failed: the process exited with code 4 during initialization; last stderr:');
		expect(error.message).toContain('fatal: cannot initialize');
		// Its first start spawns it twice (the 2026-07-28 probe, then initialize): the stderr quoted is the last process's.
		expect(error.message.split('fatal: cannot initialize').length - 1, error.message).toBe(1);

		await t.waitForState('fx', 'dead');
		await t.supervisor.upstream('fx').snapshot();
		// maxRestarts 2: two automatic restarts, and the third failure in the window leaves it dead.
		await expectEventually(() => t.transitions.filter(event => event.to === 'dead').length === 3);
		expect(t.path('fx')).toEqual([
			'cold->starting', 'starting->dead',
			'dead->starting', 'starting->dead',
			'dead->starting', 'starting->dead',
		]);
		const last = t.transitions.at(-1)!;
		expect(last.reason).toContain('restart budget spent (3 failures within 60 s, at most 2 restarts): stays dead until it is started again');
		expect(t.supervisor.upstream('fx').snapshot().nextRetryAt).toBeUndefined();

		const refused = await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		expect(refused.codeName).toBe('UpstreamUnavailable');
		expect(refused.message).toContain('the upstream is dead');
		expect(refused.message).toContain('then start it again (key s, or hangar_start)');
		// Refusals are not new failures: they neither count nor replace the real cause in lastError.
		const before = t.supervisor.upstream('fx').snapshot();
		await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		const after = t.supervisor.upstream('fx').snapshot();
		expect(after.failures).toBe(before.failures);
		expect(after.lastError).toBe(before.lastError);
		expect(after.lastError).toContain('fatal: cannot initialize');
	});

	it('says which module is missing when a node upstream\'s script path is wrong, not the tail of the stack', async () => {
		const missing = '/nonexistent/hangar-test/server.js';
		const t = await startSupervisor({fx: {command: process.execPath, args: [missing]}});
		const error = await callError(t.supervisor.callByName('fx', 'echo', {}));
		// Node's stderr ends in stack frames, "code: 'MODULE_NOT_FOUND'", "}" and "Node.js v22": the quote leads with the line that says why.
		expect(error.message).toContain(`last stderr: Error: Cannot find module '${missing}' | code: 'MODULE_NOT_FOUND'`);
		expect(error.message).not.toContain('run_main_module');
		expect(t.supervisor.upstream('fx').snapshot().lastError).toContain(`Error: Cannot find module '${missing}'`);
	});

	it('times out a hung call at callTimeoutSeconds with a clear error and cancels it upstream', async () => {
		const t = await startSupervisor({fx: fixture('hang', [], {lazy: false, callTimeoutSeconds: 0.5})});
		await t.waitForState('fx', 'ready');
		const error = await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		expect(error.codeName).toBe('CallTimeout');
		expect(error.code).toBe(-32_007);
		expect(error.message).toBe(
			'upstream "fx": tools/call "echo" failed: no answer within 0.5 s (timed out waiting for the upstream to answer); the request was cancelled upstream. Raise "callTimeoutSeconds" for this server if the tool is slow, or check its logs.',
		);
		await expectEventually(() => t.supervisor.upstream('fx').log.tail(50, 'stderr').some(line => line.text.startsWith('cancelled ')));
	});

	it('opens the breaker after 3 consecutive failures, fails fast, and closes it with a probe that needs no call', async () => {
		const t = await startSupervisor({fx: fixture('hang', [], {lazy: false, callTimeoutSeconds: 0.3})});
		await t.waitForState('fx', 'ready');
		for (let i = 0; i < 3; i++) await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		expect(t.supervisor.upstream('fx').state).toBe('degraded');
		const trip = t.transitions.find(event => event.to === 'degraded')!;
		expect(trip.reason).toMatch(/^circuit opened after 3 consecutive failures \(call to "echo" failed: .*no answer within 0\.3 s.*\); probe in 0\.\d s$/);

		const fast = await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		expect(fast.codeName).toBe('CircuitOpen');
		expect(fast.message).toMatch(/the circuit breaker is open after 3 consecutive failures .* The next probe is at \S+ \(in \d+(\.\d)? s\); retry after that\./);
		expect(t.supervisor.upstream('fx').snapshot().nextRetryAt).toBeGreaterThan(Date.now() - 1000);

		// The hang fixture still answers ping, so the probe closes the breaker by itself.
		await t.waitForState('fx', 'ready');
		const probe = t.transitions.at(-1)!;
		expect(probe.event).toBe('probe_ok');
		expect(probe.reason).toMatch(/^probe ping answered in \d+ ms; circuit closed$/);
		expect(t.supervisor.upstream('fx').snapshot().breaker).toBe('closed');
	});

	it('doubles the probe backoff while probes fail', async () => {
		const t = await startSupervisor(
			{fx: fixture('hang-all', [], {lazy: false, callTimeoutSeconds: 0.2})},
			{pingTimeoutSeconds: 0.2, backoffMinSeconds: 0.2, backoffMaxSeconds: 5},
		);
		await t.waitForState('fx', 'ready');
		for (let i = 0; i < 3; i++) await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		await expectEventually(() => t.transitions.filter(event => event.event === 'probe_failed').length >= 2, 15_000);
		const failed = t.transitions.filter(event => event.event === 'probe_failed');
		expect(failed[0]!.reason).toMatch(/^probe failed: no answer to ping within 0\.2 s; next probe in 0\.[4-5] s$/);
		expect(failed[1]!.reason).toMatch(/next probe in (0\.[89]|1) s$/);
		expect(t.supervisor.upstream('fx').state).toBe('degraded');
	});

	it('stops an idle upstream to cold, keeps its tools listed, and starts it again on the next call', async () => {
		const t = await startSupervisor({fx: fixture('normal', [], {lazy: false, idleTimeoutSeconds: 0.4})});
		await t.waitForState('fx', 'ready');
		const firstPid = t.supervisor.upstream('fx').pid;
		await t.supervisor.callByName('fx', 'echo', {message: 'x'});
		await t.waitForState('fx', 'cold');
		const idle = t.transitions.find(event => event.event === 'settle_cold')!;
		expect(idle.reason).toMatch(/^idle for 0\.\d s \(idleTimeoutSeconds 0\.4\) \(ended by stdin-close\)$/);
		expect(t.supervisor.tools().map(tool => tool.name)).toContain('fx__echo');
		expect(t.supervisor.upstream('fx').snapshot().toolsSource).toBe('live');

		const result = await t.supervisor.callByName('fx', 'pid', {});
		expect(JSON.stringify(result.content)).not.toContain(String(firstPid));
		expect(t.path('fx')).toEqual(['cold->starting', 'starting->ready', 'ready->stopping', 'stopping->cold', 'cold->starting', 'starting->ready']);
	});

	it('counts idle time from the start when a person starts an upstream whose last call was long before', async () => {
		// Predefined tools and lazy: nothing starts it until a person does, long after it was created.
		const t = await startSupervisor({fx: fixture('normal', [], {idleTimeoutSeconds: 0.5, tools: [{name: 'echo'}]})});
		// No event to wait for: what is tested is that time itself passed (more than twice the idle timeout) since it was created.
		await setTimeout(1200);
		await t.supervisor.act('fx', 'start', 'a person in a test');
		expect(t.supervisor.upstream('fx').state).toBe('ready');
		await t.waitForState('fx', 'cold');
		const ready = t.transitions.find(event => event.to === 'ready')!;
		const stopping = t.transitions.find(event => event.from === 'ready' && event.to === 'stopping')!;
		// Idle for the timeout after the start, not since creation (which would stop it at once). The idle
		// clock starts when the start completes, a moment before the ready transition is recorded: hence 490.
		expect(stopping.at - ready.at).toBeGreaterThanOrEqual(490);
		expect(stopping.reason).toMatch(/^idle for 0\.\d s \(idleTimeoutSeconds 0\.5\)$/);
	});

	it('times out a start that never finishes initialize and says so', async () => {
		const t = await startSupervisor({fx: fixture('slow-start', ['--delay-ms', '5000'], {startTimeoutSeconds: 0.5, tools: [{name: 'echo'}]})});
		const error = await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		expect(error.codeName).toBe('StartFailed');
		expect(error.message).toContain('no answer to initialize within the start timeout of 0.5 s');
		expect(t.path('fx').slice(0, 2)).toEqual(['cold->starting', 'starting->dead']);
	});

	it('gives a start that ran out of time twice as long on each next try, until one gets there', async () => {
		// Answers initialize 2.5 s after it starts: the 1 s and the 2 s starts run out of time, the 4 s one succeeds
		// (1.5 s to spare for the process's own start on a busy machine).
		const t = await startSupervisor({fx: fixture('slow-start', ['--delay-ms', '2500'], {startTimeoutSeconds: 1, lazy: false, tools: [{name: 'echo'}]})});
		await t.waitForState('fx', 'ready', 30_000);
		const failures = t.transitions.filter(event => event.to === 'dead').map(event => event.reason);
		expect(failures).toHaveLength(2);
		expect(failures[0]).toContain('within the start timeout of 1 s; the next start gets 2 s (startTimeoutSeconds)');
		expect(failures[1]).toContain('within the start timeout of 2 s (doubled after 1 start in a row ran out of time); the next start gets 4 s');
	});

	it('refuses calls to a person-stopped upstream until a person starts it again', async () => {
		const t = await startSupervisor({fx: fixture('normal', [], {lazy: false})});
		await t.waitForState('fx', 'ready');
		await t.supervisor.act('fx', 'stop', 'a person in a test');
		expect(t.supervisor.upstream('fx').state).toBe('stopped');
		expect(t.supervisor.tools()).toHaveLength(0);
		const refused = await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		expect(refused.message).toMatch(
			/^upstream "fx": call to tool "echo" failed: the upstream is stopped \(stopped by a person in a test \(ended by (stdin-close|SIGTERM|SIGKILL)\)\) and does not start on demand\. Start it again: key s in mcp-hangar tui, or the hangar_start tool \{"server": "fx"\}\.$/,
		);
		await t.supervisor.upstream('fx').start();
		expect(t.supervisor.upstream('fx').state).toBe('ready');
		await t.supervisor.callByName('fx', 'echo', {message: 'x'});
	});

	it('never starts a quarantined upstream and hides its tools', async () => {
		const t = await startSupervisor({fx: fixture('normal', [], {lazy: false, quarantined: true, tools: [{name: 'echo'}]})});
		expect(t.supervisor.upstream('fx').state).toBe('quarantined');
		expect(t.supervisor.tools()).toHaveLength(0);
		const refused = await callError(t.supervisor.callByName('fx', 'echo', {message: 'x'}));
		expect(refused.codeName).toBe('UpstreamUnavailable');
		expect(refused.message).toContain('quarantined');
		expect(t.transitions).toHaveLength(0);
	});

	it('starts upstreams at launch a few at a time, so hundreds of spawns cannot stall the gateway', async () => {
		const servers = Object.fromEntries(Array.from({length: 10}, (_, i) => [`fx${i}`, fixture('slow-start', ['--delay-ms', '150'], {lazy: false})]));
		const t = await startSupervisor(servers);
		for (let i = 0; i < 10; i++) await t.waitForState(`fx${i}`, 'ready');
		// Replay every transition since launch: how many upstreams were starting at once?
		let starting = 0;
		let most = 0;
		for (const event of t.transitions) {
			if (event.to === 'starting') starting += 1;
			if (event.from === 'starting') starting -= 1;
			most = Math.max(most, starting);
		}

		expect(most).toBe(4);
		expect(t.transitions.filter(event => event.to === 'starting')).toHaveLength(10);
	});

	it('counts missed health pings as failures and opens the breaker without any call', async () => {
		const t = await startSupervisor(
			{fx: fixture('hang-all', [], {lazy: false})},
			{healthIntervalSeconds: 0.2, pingTimeoutSeconds: 0.2, backoffMinSeconds: 30, backoffMaxSeconds: 60},
		);
		await t.waitForState('fx', 'degraded', 20_000);
		const trip = t.transitions.at(-1)!;
		expect(trip.reason).toMatch(/^circuit opened after 3 consecutive failures \(health ping: health ping failed: no answer to ping within 0\.2 s\)/);
		expect(t.supervisor.upstream('fx').snapshot().calls).toBe(0);
	});

	it('notices an upstream that exits on its own while idle and restarts it', async () => {
		const t = await startSupervisor({fx: fixture('normal', ['--exit-after-ms', '300'], {lazy: false})});
		await t.waitForState('fx', 'dead');
		expect(t.transitions.find(event => event.to === 'dead')!.reason).toMatch(/^the process exited with code 6/);
		await t.waitForState('fx', 'ready');
	});

	it('keeps a person\'s quarantine across runs until it is lifted', async () => {
		const first = await startSupervisor({fx: fixture('normal', [], {lazy: false})});
		await first.waitForState('fx', 'ready');
		await first.supervisor.upstream('fx').quarantine('not trusted yet');
		expect(first.path('fx').slice(-2)).toEqual(['ready->stopping', 'stopping->quarantined']);
		expect(first.supervisor.upstream('fx').pid).toBeUndefined();
		await first.close();

		const second = await startSupervisor({fx: fixture('normal', [], {lazy: false})}, {}, {dir: first.dir});
		expect(second.supervisor.upstream('fx').state).toBe('quarantined');
		const refused = await callError(second.supervisor.callByName('fx', 'echo', {message: 'x'}));
		expect(refused.message).toContain('quarantined (not trusted yet)');
		second.supervisor.upstream('fx').approve('approved by a person');
		await second.supervisor.callByName('fx', 'echo', {message: 'x'});
		expect(second.path('fx')).toEqual(['quarantined->cold', 'cold->starting', 'starting->ready']);
	});

	it('relays cancellation from the caller to the upstream', async () => {
		const t = await startSupervisor({fx: fixture('normal', [], {lazy: false})});
		await t.waitForState('fx', 'ready');
		const controller = new AbortController();
		const call = t.supervisor.callByName('fx', 'sleep', {ms: 20_000}, {signal: controller.signal});
		await expectEventually(() => t.supervisor.upstream('fx').snapshot().inFlight === 1);
		controller.abort();
		const error = await callError(call);
		expect(error.message).toContain('cancelled by the client');
		await expectEventually(() => t.supervisor.upstream('fx').log.tail(50, 'stderr').some(line => line.text.startsWith('cancelled ')));
		expect(t.supervisor.upstream('fx').snapshot().consecutiveFailures).toBe(0);
		// A client's cancel is no failure of the upstream: every other client would see it in status as one.
		expect(t.supervisor.upstream('fx').snapshot()).toMatchObject({failures: 0, lastError: undefined});
	});

	it('relays upstream progress after its own startup progress, always increasing', async () => {
		const t = await startSupervisor({fx: fixture('slow-start', ['--delay-ms', '1300'], {tools: [{name: 'sleep'}]})});
		const updates: Array<{progress: number; message?: string | undefined}> = [];
		await t.supervisor.callByName('fx', 'sleep', {ms: 300}, {onProgress: update => updates.push(update)});
		expect(updates[0]!.message).toBe('starting upstream "fx"');
		expect(updates.some(update => update.message?.startsWith('starting upstream "fx" ('))).toBe(true);
		const fromUpstream = updates.filter(update => !update.message?.startsWith('starting'));
		expect(fromUpstream.length).toBeGreaterThanOrEqual(2);
		for (let i = 1; i < updates.length; i++) expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
	});
});

async function expectEventually(check: () => boolean, timeoutMs = 20_000): Promise<void> {
	await waitFor(check, 'the condition', timeoutMs);
}
