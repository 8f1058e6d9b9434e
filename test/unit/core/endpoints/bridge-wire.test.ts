/**
 * The bridge's reading of the supervisor's lines from their ends, and its
 * forwarding of them as the bytes that came (bridge-wire.ts). Whatever the
 * layout, the id read must be the one a full parse finds, or the bridge
 * would forget a request still owed or keep one answered.
 */
import {PassThrough} from 'node:stream';
import {describe, expect, it} from 'vitest';
import {ByteLines, Outlet, readSupervisorLine, type LineLimit, type SupervisorLine} from '../../../../source/core/endpoints/bridge-wire.js';

function read(line: string): SupervisorLine {
	const bytes = Buffer.from(`junk\n${line}\nmore`);
	// The line sits inside a larger read, as it does in the bridge.
	return readSupervisorLine(bytes, 5, 5 + Buffer.byteLength(line));
}

/** What a full parse says the line is, in the same terms. */
function parsed(line: string): SupervisorLine {
	if (line.startsWith('[')) return {kind: 'batch'};
	const value = JSON.parse(line) as {id?: unknown; method?: unknown; error?: unknown};
	if (typeof value.method !== 'string' && (typeof value.id === 'string' || typeof value.id === 'number')) return {kind: 'answer', id: value.id, error: 'error' in value};
	if (typeof value.method !== 'string') return {kind: 'other', method: undefined};
	return {kind: 'other', method: value.method, id: typeof value.id === 'string' || typeof value.id === 'number' ? value.id : undefined};
}

const lines = [
	// hangar's own layout, id first
	'{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"hi"}]}}',
	'{"jsonrpc":"2.0","id":-3,"error":{"code":-32601,"message":"no"}}',
	'{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}',
	'{"result":{},"jsonrpc":"2.0","id":-9007199254740993}',
	'{"jsonrpc":"2.0","id":"a\\"b","result":{}}',
	'{"jsonrpc":"2.0","id":"é☃𝄞","result":{}}',
	'{"jsonrpc":"2.0","id":"\\u00e9","result":{}}',
	// the SDK's layout, id last, with ids and id-like text nested in the result
	'{"result":{"id":7,"content":[{"type":"text","text":"x,\\"id\\":5}"}]},"jsonrpc":"2.0","id":3}',
	'{"result":{"nested":{"id":"inner"}},"jsonrpc":"2.0","id":"outer"}',
	'{"error":{"code":-32000,"message":"m","data":{"id":1}},"jsonrpc":"2.0","id":44}',
	// an answer whose ends say nothing: parsed
	'{"result":{"a":1,"id":9}}',
	'{"id":5,"jsonrpc":"2.0","result":{}}',
	'{"jsonrpc":"2.0","id":1.5,"result":{}}',
	// notifications and requests to the client
	'{"jsonrpc":"2.0","method":"notifications/hangar/draining"}',
	'{"method":"notifications/progress","params":{"progressToken":1,"id":3},"jsonrpc":"2.0"}',
	'{"jsonrpc":"2.0","method":"notifications/\\u0068angar/draining","params":{}}',
	'{"jsonrpc":"2.0","id":4,"method":"roots/list"}',
	'{"method":"sampling/createMessage","params":{"x":{"id":2}},"jsonrpc":"2.0","id":8}',
	'{"method":"elicitation/create","params":{},"jsonrpc":"2.0","id":-12}',
	'{"method":"roots/list","jsonrpc":"2.0","id":"hangar-1"}',
	'{"method":"ping","id":3,"jsonrpc":"2.0"}',
	'{"jsonrpc":"2.0","method":"ping","id":5}',
	'{"jsonrpc":"2.0","method":"ping","id":"x,\\"id\\":5}"}',
	'{"method":"notifications/message","params":{"data":",\\"id\\":7"},"jsonrpc":"2.0"}',
	'{"method":"notifications/message","params":{"level":"info","id":7}}',
	'{"jsonrpc":"2.0","method":"notifications/message","params":{"list":[{"a":1,"id":7}]}}',
	'{"jsonrpc":"2.0","id":"hangar-ab12-3","method":"elicitation/create","params":{"message":"m"}}',
	'[{"jsonrpc":"2.0","id":1,"result":{}}]',
];

describe('reading a supervisor line from its ends', () => {
	it.each(lines)('reads %s as a full parse does', line => {
		expect(read(line)).toEqual(parsed(line));
	});

	it('reads a line that is not JSON as nothing the bridge tracks', () => {
		expect(read('{"jsonrpc":"2.0","id":1,"res')).toEqual({kind: 'other', method: undefined});
		expect(read('not json')).toEqual({kind: 'other', method: undefined});
	});
});

/**
 * Feeds `chunks`, each read held by an Outlet as the bridge does, to
 * ByteLines that keeps the lines `keep` says; returns the writes the
 * outlet made and the lines seen.
 */
function split(chunks: Buffer[], keep: (line: string) => boolean = () => false, limit?: LineLimit) {
	const seen: string[] = [];
	const written: Buffer[] = [];
	const stream = {destroyed: false, writable: true, write: (data: Buffer | string) => written.push(Buffer.from(data))};
	const outlet = new Outlet(stream as never);
	const lines = new ByteLines(
		(bytes, start, end) => {
			const line = bytes.toString('utf8', start, end);
			seen.push(line);
			return !keep(line);
		},
		bytes => outlet.write(bytes),
		limit,
	);
	for (const chunk of chunks) Outlet.holdingDuring(undefined, outlet, () => lines.write(chunk));
	return {seen, written, text: Buffer.concat(written).toString('utf8'), lines, outlet};
}

describe('forwarding the lines that pass', () => {
	it('forwards a read of whole lines in one write, as the bytes of that read (no copy)', () => {
		const chunk = Buffer.from('{"a":1}\n{"b":2}\n');
		const {written, seen} = split([chunk]);
		expect(written).toHaveLength(1);
		expect(written[0]!.equals(chunk)).toBe(true);
		expect(seen).toEqual(['{"a":1}', '{"b":2}']);
	});

	it('finds every line and forwards every byte wherever the reads split it, inside a multi-byte character too', () => {
		const text = '{"jsonrpc":"2.0","id":"é☃𝄞","result":{"text":"line\\nbreak ☃"}}\n{"x":"𝄞"}\n';
		const bytes = Buffer.from(text);
		for (let cut = 1; cut < bytes.length; cut++) {
			for (const second of [cut + 1, cut + 3, bytes.length]) {
				if (second > bytes.length) continue;
				const {seen, text: out} = split([bytes.subarray(0, cut), bytes.subarray(cut, second), bytes.subarray(second)].filter(chunk => chunk.length > 0));
				expect(seen).toEqual(text.split('\n').slice(0, 2));
				expect(out).toBe(text);
			}
		}
	});

	it('keeps what the bridge keeps and forwards the rest in order, without a \\r and without blank lines', () => {
		const chunks = [Buffer.from('one\n\nhide\ntwo\r\nthr'), Buffer.from('ee\nhide'), Buffer.from('\nfour\n')];
		const {text, seen} = split(chunks, line => line === 'hide');
		expect(seen).toEqual(['one', 'hide', 'two', 'three', 'hide', 'four']);
		expect(text).toBe('one\ntwo\nthree\nfour\n');
	});

	it('holds a line until its newline comes, however long, and joins it once', () => {
		const long = `{"result":{"text":"${'☃'.repeat(400_000)}"},"jsonrpc":"2.0","id":1}`;
		const bytes = Buffer.from(`${long}\n`);
		const chunks: Buffer[] = [];
		for (let at = 0; at < bytes.length; at += 65_536) chunks.push(bytes.subarray(at, at + 65_536));
		const {seen, written, text} = split(chunks);
		expect(seen).toEqual([long]);
		expect(written).toHaveLength(1);
		expect(text).toBe(`${long}\n`);
		expect(readSupervisorLine(written[0]!, 0, written[0]!.length - 1)).toEqual({kind: 'answer', id: 1, error: false});
	});

	it('passes on an unterminated last line only when the stream ends', () => {
		const {written, lines, outlet, text} = split([Buffer.from('{"a":1}\n{"b":')]);
		expect(text).toBe('{"a":1}\n');
		Outlet.holdingDuring(undefined, outlet, () => lines.write(Buffer.from('2}')));
		lines.flush();
		expect(Buffer.concat(written).toString()).toBe('{"a":1}\n{"b":2}\n');
	});
});

describe('a line past the limit', () => {
	function limited(chunks: Buffer[], maxBytes: number) {
		const discarded: Array<{prefix: string; bytes: number}> = [];
		const result = split(chunks, () => false, {maxBytes, onDiscarded: (prefix, bytes) => discarded.push({prefix, bytes})});
		return {...result, discarded};
	}

	it('is discarded with its size and its first kilobyte, in one read or many, and the lines around it pass', () => {
		const big = `{"jsonrpc":"2.0","id":"big","method":"x","params":{"pad":"${'é'.repeat(3000)}"}}`;
		const bytes = Buffer.from(`{"a":1}\n${big}\n{"b":2}\n`);
		for (const size of [bytes.length, 1000, 7, 1]) {
			const chunks: Buffer[] = [];
			for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
			const {discarded, text, seen} = limited(chunks, 5000);
			expect(seen).toEqual(['{"a":1}', '{"b":2}']);
			expect(text).toBe('{"a":1}\n{"b":2}\n');
			expect(discarded).toHaveLength(1);
			expect(discarded[0]!.bytes).toBe(Buffer.byteLength(big));
			expect(discarded[0]!.prefix).toBe(big.slice(0, 1024));
		}
	});

	it('is a line of more bytes than the limit, not of as many', () => {
		const {discarded, seen} = limited([Buffer.from('12345\n123456\n')], 5);
		expect(seen).toEqual(['12345']);
		expect(discarded).toEqual([{prefix: '123456', bytes: 6}]);
	});
});

describe('an outlet', () => {
	function outlet() {
		const stream = new PassThrough();
		const writes: string[] = [];
		stream.on('data', (chunk: Buffer) => writes.push(chunk.toString()));
		return {stream, writes, outlet: new Outlet(stream)};
	}

	it('writes at once, or joins in order what is written while it holds', async () => {
		const {writes, outlet: out} = outlet();
		out.write('a\n');
		Outlet.holdingDuring(undefined, out, () => {
			out.write('b\n');
			out.write(Buffer.from('c☃\n'));
			out.write('d\n');
		});
		await new Promise(resolve => setImmediate(resolve));
		expect(writes).toEqual(['a\n', 'b\nc☃\nd\n']);
	});

	it('writes a large message on its own, after what was held before it', async () => {
		const {writes, outlet: out} = outlet();
		const large = `${'x'.repeat(20_000)}\n`;
		Outlet.holdingDuring(undefined, out, () => {
			out.write('before\n');
			out.write(large);
			out.write('after\n');
		});
		await new Promise(resolve => setImmediate(resolve));
		expect(writes).toEqual(['before\n', large, 'after\n']);
	});

	it('drops what is written once its stream has ended', () => {
		const {stream, outlet: out} = outlet();
		stream.end();
		expect(() => out.write('late\n')).not.toThrow();
		expect(stream.writableLength).toBe(0);
	});
});

describe('an outlet holding its writes', () => {
	it('writes, at its release, what its own flush caused to be written meanwhile, never dropping it', () => {
		const stream = new PassThrough();
		const written: string[] = [];
		const outlet = new Outlet(stream);
		let answered = false;
		stream.on('data', (chunk: Buffer) => {
			written.push(chunk.toString());
			// A write the flush's own write causes, at once (as an error handler may): the outlet still holds.
			if (!answered) {
				answered = true;
				outlet.write('caused\n');
			}
		});
		outlet.hold();
		outlet.write('first\n');
		outlet.release();
		outlet.write('after\n');
		expect(written.join('')).toBe('first\ncaused\nafter\n');
	});
});
