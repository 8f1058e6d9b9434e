import {afterEach, describe, expect, it} from 'vitest';
import {everything, fastHangar, fixture, closeHangars, openHangar, status, rpcError, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';

afterEach(closeHangars);

describe('the stdio gateway end to end', () => {
	it('answers a hung call with a CallTimeout error at the deadline, never silence', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {stuck: fixture('hang', [], {lazy: false, callTimeoutSeconds: 1})}, fastHangar));
		await waitFor(async () => (await statusOf(hangar.client, 'stuck')).state === 'ready', 'stuck to be ready');
		const error = await rpcError(hangar.client.callTool({name: 'stuck__echo', arguments: {message: 'x'}}));
		expect(error.code).toBe(-32_007);
		expect(error.message).toContain('upstream "stuck": tools/call "echo" failed: no answer within 1 s');
		expect(error.data).toMatchObject({error: 'CallTimeout', upstream: 'stuck', phase: 'call'});
	});

	it('keeps callTimeoutSeconds for a call that waits on a first run for its upstream to list its tools', async () => {
		// Nothing cached or predefined: the call waits for the launch start to learn the tool, and that
		// wait is part of the call (docs/architecture.md: the deadline covers an on-demand start).
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {glacial: fixture('slow-start', ['--delay-ms', '30000', '--prompts-count', '1'], {callTimeoutSeconds: 1})}, {...fastHangar, firstListWaitSeconds: 0}));
		const error = await rpcError(hangar.client.callTool({name: 'glacial__echo', arguments: {message: 'x'}}));
		expect(error.code).toBe(-32_007);
		expect(error.message).toContain('upstream "glacial": tools/call "glacial__echo" failed: no answer within 1 s (timed out during the upstream\'s cold start, before it listed its tools)');
		expect(error.message).toContain('Raise "callTimeoutSeconds" for this server');
		expect(error.data).toMatchObject({error: 'CallTimeout', upstream: 'glacial', phase: 'start'});
		// A prompt, which the upstream has not listed yet either: the same deadline, not "unknown prompt" at the end of its start.
		const prompt = await rpcError(hangar.client.getPrompt({name: 'glacial__prompt_0'}));
		expect(prompt.code).toBe(-32_007);
		expect(prompt.message).toContain('upstream "glacial": prompts/get "glacial__prompt_0" failed: no answer within 1 s');
		const completion = await rpcError(hangar.client.complete({ref: {type: 'ref/prompt', name: 'glacial__prompt_0'}, argument: {name: 'topic', value: 'a'}}));
		expect(completion.code).toBe(-32_007);
		expect(completion.message).toContain('upstream "glacial": completion/complete "glacial__prompt_0" failed: no answer within 1 s');
	});

	it('keeps callTimeoutSeconds for a call, and a resources/read, that find their upstream starting', async () => {
		// Its tools are known (predefined) and it starts at launch (lazy false): the call waits for that start.
		const dir = tempDir();
		const glacial = fixture('slow-start', ['--delay-ms', '30000', '--resources-count', '1'], {callTimeoutSeconds: 1, lazy: false, tools: [{name: 'echo'}]});
		const hangar = await openHangar(writeConfig(dir, {glacial}, {...fastHangar, firstListWaitSeconds: 0}));
		expect((await statusOf(hangar.client, 'glacial')).state).toBe('starting');
		const error = await rpcError(hangar.client.callTool({name: 'glacial__echo', arguments: {message: 'x'}}));
		expect(error.code).toBe(-32_007);
		expect(error.message).toContain('upstream "glacial": tools/call "echo" failed: no answer within 1 s (timed out during the upstream\'s cold start)');
		const read = await rpcError(hangar.client.readResource({uri: 'hangar://glacial/fixture://item/0'}));
		expect(read.code).toBe(-32_007);
		expect(read.message).toContain('upstream "glacial": resources/read "fixture://item/0" failed: no answer within 1 s');
		expect((await statusOf(hangar.client, 'glacial')).state).toBe('starting');
	});

	it('passes progress through both ways with a real upstream', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {everything: everything({lazy: false, instances: 'shared'})}, fastHangar));
		await waitFor(async () => (await statusOf(hangar.client, 'everything')).state === 'ready', 'everything to be ready');
		const seen: number[] = [];
		const result = await hangar.client.callTool(
			{name: 'everything__trigger-long-running-operation', arguments: {duration: 1, steps: 4}},
			undefined,
			{onprogress: progress => seen.push(progress.progress)},
		);
		expect(JSON.stringify(result.content)).toContain('Long running operation completed');
		// The SDK client often drops the last progress (it races the response).
		expect(seen.length).toBeGreaterThanOrEqual(3);
		expect(seen.slice(0, 3)).toEqual([1, 2, 3]);
	});

	it('answers hangar_list at once while an upstream hangs, and reflects the breaker opening', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {stuck: fixture('hang-all', [], {lazy: false, callTimeoutSeconds: 0.3}), fine: fixture('normal', [], {lazy: false})}, {...fastHangar, backoffMinSeconds: 30, backoffMaxSeconds: 60}));
		await waitFor(async () => (await status(hangar.client)).every(entry => entry.state === 'ready'), 'both ready');
		const hung = Array.from({length: 5}, async () => hangar.client.callTool({name: 'stuck__echo', arguments: {message: 'x'}}).catch(error => error as Error));
		const list = await status(hangar.client);
		expect(list.map(entry => entry.name)).toEqual(['stuck', 'fine']);
		await Promise.all(hung);
		const stuck = await statusOf(hangar.client, 'stuck');
		expect(stuck.state).toBe('degraded');
		expect(stuck.breaker).toBe('open');
		expect(stuck.consecutiveFailures).toBeGreaterThanOrEqual(3);
		expect(stuck.lastError).toContain('no answer within 0.3 s');
		expect(Date.parse(stuck.nextRetryAt!)).toBeGreaterThan(Date.now());
		const fast = await rpcError(hangar.client.callTool({name: 'stuck__echo', arguments: {message: 'x'}}));
		expect(fast.code).toBe(-32_005);
		expect(fast.message).toContain(stuck.nextRetryAt!);
		const fine = await hangar.client.callTool({name: 'fine__echo', arguments: {message: 'still here'}});
		expect(fine.content).toEqual([{type: 'text', text: 'still here'}]);
	});

	it('lists tools from the persisted cache on the next run, with the time they were verified', async () => {
		const dir = tempDir();
		const config = writeConfig(dir, {fx: fixture('normal', [], {idleTimeoutSeconds: 0})}, fastHangar);
		const first = await openHangar(config);
		await waitFor(async () => (await statusOf(first.client, 'fx')).state === 'ready', 'discovery start');
		const verified = (await statusOf(first.client, 'fx')).lastVerifiedAt;
		expect(verified).not.toBeNull();
		await first.close();

		const second = await openHangar(config);
		const names = (await second.client.listTools()).tools.map(tool => tool.name);
		expect(names).toContain('fx__echo');
		const entry = await statusOf(second.client, 'fx');
		expect(entry.state).toBe('cold');
		expect(entry.lastVerifiedAt).toBe(verified);
	});

	it('shows a crash and the restart in hangar_list', async () => {
		const dir = tempDir();
		const hangar = await openHangar(writeConfig(dir, {fx: fixture('crash-on-call', [], {lazy: false})}, {...fastHangar, backoffMinSeconds: 1}));
		await waitFor(async () => (await statusOf(hangar.client, 'fx')).state === 'ready', 'fx ready');
		const before = (await statusOf(hangar.client, 'fx')).pid;
		const error = await rpcError(hangar.client.callTool({name: 'fx__echo', arguments: {message: 'x'}}));
		expect(error.code).toBe(-32_006);
		const dead = await statusOf(hangar.client, 'fx');
		expect(dead.state).toBe('dead');
		expect(dead.pid).toBeNull();
		expect(dead.nextRetryAt).not.toBeNull();
		expect(dead.lastError).toContain('exited with code 3');
		await waitFor(async () => (await statusOf(hangar.client, 'fx')).state === 'ready', 'the automatic restart');
		expect((await statusOf(hangar.client, 'fx')).pid).not.toBe(before);
	});
});
