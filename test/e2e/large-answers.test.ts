/**
 * Large answers from a stdio upstream (the fixture's `big` tool): 70 MB and
 * 100 MB answers reach the client through hangar as they do directly, and
 * an answer over `hangar.maxUpstreamMessageBytes` fails its call at once
 * with an error naming the upstream, the limit and the setting, while the
 * upstream stays usable. Read raw, line by line: an SDK stdio client stops
 * at 10 MiB by default, so it cannot be the judge of what passes.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {cliPath, fastHangar, fixture, fixturePath, tempDir, writeConfig} from '../support/hangar.js';
import {rawSession, stopRawSessions, type RawMessage} from '../support/raw-session.js';
import {serveHttp, stopHttpHangars} from '../support/http-hangar.js';

afterEach(async () => {
	stopRawSessions();
	await stopHttpHangars();
});

const megabytes = (count: number) => count * 1_000_000;

/** The answer's one text item: its length and whether every character is the fixture's "x" (not kept: 100 MB). */
function textOf(message: RawMessage): {length: number; allX: boolean} {
	expect(message.error).toBeUndefined();
	const text = (message.result!['content'] as Array<{text: string}>)[0]!.text;
	return {length: text.length, allX: /^x*$/.test(text)};
}

describe('large answers from an upstream', () => {
	it('pass 70 MB and 100 MB answers through hangar as a direct connection does', async () => {
		const direct = await rawSession([fixturePath, '--mode', 'normal', '--big-answers']);
		const config = writeConfig(tempDir(), {fx: fixture('normal', ['--big-answers'])}, fastHangar);
		const hangar = await rawSession([cliPath, '--stdio', '--standalone', '--config', config]);
		for (const size of [70, 100]) {
			const params = {name: 'big', arguments: {bytes: megabytes(size)}};
			expect(textOf(await direct.request(size, 'tools/call', params)), `${size} MB direct`).toEqual({length: megabytes(size), allX: true});
			expect(textOf(await hangar.request(size, 'tools/call', {...params, name: 'fx__big'})), `${size} MB through hangar`).toEqual({length: megabytes(size), allX: true});
		}
	}, 120_000);

	it('fail a call whose answer is over hangar.maxUpstreamMessageBytes at once, naming the upstream, the limit and the setting', async () => {
		const limit = 1024 * 1024;
		// A deadline far longer than the test: the call must fail because of the size, not time out.
		const config = writeConfig(tempDir(), {fx: fixture('normal', ['--big-answers'])}, {...fastHangar, maxUpstreamMessageBytes: limit, callTimeoutSeconds: 600});
		const hangar = await rawSession([cliPath, '--stdio', '--standalone', '--config', config]);
		const answer = await hangar.request('big', 'tools/call', {name: 'fx__big', arguments: {bytes: 2 * limit}});
		expect(answer.error?.code).toBe(-32_009);
		expect(answer.error?.message).toMatch(
			/^upstream "fx": tools\/call "big" failed: its answer of \d+ bytes is over the limit of 1048576 bytes for one message from an upstream \(hangar\.maxUpstreamMessageBytes\), so hangar dropped it\. Raise hangar\.maxUpstreamMessageBytes/,
		);
		expect(answer.error?.data).toMatchObject({error: 'MessageTooLarge', upstream: 'fx', limit, setting: 'hangar.maxUpstreamMessageBytes'});
		expect(answer.error?.data?.['bytes']).toBeGreaterThan(2 * limit);

		// The upstream is still there, and an answer under the limit passes.
		expect(textOf(await hangar.request('small', 'tools/call', {name: 'fx__big', arguments: {bytes: limit / 2}}))).toEqual({length: limit / 2, allX: true});
	});

	it('fail a call to a remote upstream whose answer is over the limit at once, a JSON answer or an event of its stream, with the same error', async () => {
		const limit = 1024 * 1024;
		// The remote upstream: another hangar serving the fixture over Streamable HTTP (JSON answers; an event stream once progress is sent).
		const remote = await serveHttp(writeConfig(tempDir(), {fx: fixture('normal', ['--big-answers'], {lazy: false})}, fastHangar));
		const config = writeConfig(tempDir(), {far: {url: remote.url, namespace: false}}, {...fastHangar, maxUpstreamMessageBytes: limit, callTimeoutSeconds: 600});
		const hangar = await rawSession([cliPath, '--stdio', '--standalone', '--config', config]);
		for (const [id, meta] of [['json', {}], ['stream', {_meta: {progressToken: 'p'}}]] as const) {
			const answer = await hangar.request(id, 'tools/call', {name: 'fx__big', arguments: {bytes: 2 * limit}, ...meta});
			expect(answer.error?.code, id).toBe(-32_009);
			expect(answer.error?.message, id).toMatch(/^upstream "far": tools\/call "fx__big" failed: its answer of \d+ bytes is over the limit of 1048576 bytes for one message from an upstream \(hangar\.maxUpstreamMessageBytes\), so hangar dropped it\. Raise hangar\.maxUpstreamMessageBytes/);
			expect(answer.error?.data, id).toMatchObject({error: 'MessageTooLarge', upstream: 'far', limit, setting: 'hangar.maxUpstreamMessageBytes'});
			expect(answer.error?.data?.['bytes'], id).toBeGreaterThan(2 * limit);
			// The connection is still usable, and an answer under the limit passes, both ways.
			expect(textOf(await hangar.request(`${id}-small`, 'tools/call', {name: 'fx__big', arguments: {bytes: limit / 2}, ...meta}))).toEqual({length: limit / 2, allX: true});
		}
	}, 60_000);
});
