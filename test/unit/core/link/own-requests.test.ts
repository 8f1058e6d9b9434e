import {describe, expect, it, vi} from 'vitest';
import {DeadlineBook} from '../../../../source/core/base/deadline-book.js';
import {RequestCancelledError} from '../../../../source/core/link/connection-errors.js';
import {OwnRequests, cancelledLimit} from '../../../../source/core/link/own-requests.js';

function requests() {
	const sent: Array<Record<string, unknown>> = [];
	const own = new OwnRequests({
		async sendMessage(message) {
			sent.push(message);
		},
		isClosed: () => false,
		overPipe: true,
		asks: {deadlines: new DeadlineBook()},
	});
	return {own, sent};
}

describe('OwnRequests: a request its caller cancelled after it was sent', () => {
	it('tells its caller when the upstream answers it anyway, or the connection closes: until then it may still run', async () => {
		const {own, sent} = requests();
		const answered: string[] = [];
		const first = new AbortController();
		const second = new AbortController();
		const one = own.send('tools/call', {name: 'a'}, {signal: first.signal, timeoutMs: 60_000, onAnswered: () => answered.push('one')});
		const two = own.send('tools/call', {name: 'b'}, {signal: second.signal, timeoutMs: 60_000, onAnswered: () => answered.push('two')});
		first.abort();
		second.abort();
		await expect(one).rejects.toBeInstanceOf(RequestCancelledError);
		await expect(two).rejects.toBeInstanceOf(RequestCancelledError);
		expect(sent.filter(message => message['method'] === 'notifications/cancelled')).toHaveLength(2);
		expect(answered).toEqual([]);
		own.settle('h0', {jsonrpc: '2.0', id: 'h0', result: {content: []}});
		expect(answered).toEqual(['one']);
		own.failAll();
		expect(answered).toEqual(['one', 'two']);
	});

	it('keeps one that timed out as may-still-run too, until the upstream answers it', async () => {
		vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout', 'performance']});
		const {own, sent} = requests();
		const answered: string[] = [];
		const call = own.send('tools/call', {name: 'slow'}, {timeoutMs: 1000, onAnswered: () => answered.push('slow')});
		const failed = expect(call).rejects.toThrow(/1000/);
		await vi.advanceTimersByTimeAsync(1000);
		vi.useRealTimers();
		await failed;
		expect(sent.filter(message => message['method'] === 'notifications/cancelled')).toHaveLength(1);
		expect(answered).toEqual([]);
		own.settle('h0', {jsonrpc: '2.0', id: 'h0', result: {content: []}});
		expect(answered).toEqual(['slow']);
	});

	it('tells nothing for one cancelled before it was sent, and keeps at most cancelledLimit', async () => {
		const {own} = requests();
		const answered: number[] = [];
		const gone = new AbortController();
		gone.abort();
		await expect(own.send('tools/call', {}, {signal: gone.signal, timeoutMs: 60_000, onAnswered: () => answered.push(-1)})).rejects.toBeInstanceOf(RequestCancelledError);
		for (let index = 0; index <= cancelledLimit; index++) {
			const controller = new AbortController();
			const sent = own.send('tools/call', {}, {signal: controller.signal, timeoutMs: 60_000, onAnswered: () => answered.push(index)});
			controller.abort();
			await sent.catch(() => undefined);
		}

		own.failAll();
		// The oldest was forgotten (its caller counts it until its deadline instead).
		expect(answered).toHaveLength(cancelledLimit);
		expect(answered).not.toContain(-1);
		expect(answered).not.toContain(0);
	});
});
