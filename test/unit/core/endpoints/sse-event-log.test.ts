/**
 * The resume window of an HTTP session (sse-event-log.ts): what a GET with
 * Last-Event-ID replays, and that what it keeps stays within its bounds
 * whatever a client does.
 */
import {describe, expect, it} from 'vitest';
import {SseEventLog, resumeBudget, resumeWindow} from '../../../../source/core/endpoints/sse-event-log.js';

const event = (text: string) => `data: ${text}\n\n`;

describe('SseEventLog', () => {
	it('gives every event a session-unique id naming its stream, and replays only that stream after the id', () => {
		const log = new SseEventLog();
		const a1 = log.append(1, event('a1'));
		const b1 = log.append(2, event('b1'));
		log.append(1, event('a2'));
		log.append(0, event('get'));
		log.append(1, event('a3'));
		expect(new Set([a1, b1]).size).toBe(2);
		expect(SseEventLog.streamOf(a1)?.stream).toBe(1);
		const replay = log.after(a1);
		expect(replay).toEqual({texts: [expect.stringContaining('data: a2') as unknown, expect.stringContaining('data: a3') as unknown], finished: false});
		// Each replayed event carries its own id, so a client can resume again from it.
		expect((replay as {texts: string[]}).texts[0]).toMatch(/^id: 1-3\n/);
		expect(log.after(b1)).toEqual({texts: [], finished: false});
	});

	it('refuses an id it never sent, naming the problem, instead of replaying anything', () => {
		const log = new SseEventLog();
		log.append(1, event('a'));
		for (const id of ['nonsense', '7-1', '1-99', '1-0']) {
			const replay = log.after(id);
			expect('problem' in replay, id).toBe(true);
		}

		expect((log.after('nonsense') as {problem: string}).problem).toContain('is not an event id this endpoint sent');
	});

	it('refuses a resume from before events of its stream that left the window, rather than replay with a hole', () => {
		const log = new SseEventLog({events: 3, bytes: 1_000_000});
		const first = log.append(1, event('1'));
		log.append(1, event('2'));
		log.append(2, event('other'));
		log.append(2, event('other'));
		const kept = log.append(1, event('3'));
		// Event '2' of stream 1 was let go: resuming after '1' would skip it.
		expect((log.after(first) as {problem: string}).problem).toMatch(/too old|no longer within/);
		expect(log.after(kept)).toEqual({texts: [], finished: false});
	});

	it('holds at most its event and byte limits, and one event larger than the byte limit is never kept', () => {
		const log = new SseEventLog({events: 10, bytes: 100});
		for (let index = 0; index < 1000; index++) log.append(index % 7, event(`${index}`));
		expect(log.size.events).toBeLessThanOrEqual(10);
		const big = new SseEventLog({events: 10, bytes: 100});
		const before = big.append(1, event('small'));
		big.append(1, event('x'.repeat(200)));
		expect(big.size.bytes).toBeLessThanOrEqual(100);
		expect('problem' in big.after(before)).toBe(true);
	});

	it('forgets a finished stream once its events left the window, so a client opening endless streams costs nothing more', () => {
		const log = new SseEventLog({events: 50, bytes: resumeWindow.bytes});
		for (let stream = 1; stream <= 10_000; stream++) {
			log.append(stream, event('answer'));
			log.finish(stream);
		}

		expect(log.size.events).toBe(50);
		expect(log.size.streams).toBe(50);
	});

	it('says when the stream it replays is finished, so a resume ends after the replay', () => {
		const log = new SseEventLog();
		const priming = log.append(3, '');
		log.append(3, event('answer'));
		log.finish(3);
		expect(log.after(priming)).toEqual({texts: [expect.stringContaining('answer') as unknown], finished: true});
	});

	it('keeps all the sessions of an endpoint within one byte budget: a session makes room by letting its own oldest events go, and gives all back when it ends', () => {
		const budget = resumeBudget(1000);
		const logs = Array.from({length: 20}, () => new SseEventLog({events: 1000, bytes: 400}, budget));
		for (let round = 0; round < 50; round++) for (const log of logs) log.append(1, event('x'.repeat(40)));
		expect(budget.used).toBeLessThanOrEqual(1000);
		expect(budget.used).toBe(logs.reduce((sum, log) => sum + log.size.bytes, 0));
		for (const log of logs) log.clear();
		expect(budget.used).toBe(0);
	});
});
