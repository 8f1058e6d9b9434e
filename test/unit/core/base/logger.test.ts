import {Writable} from 'node:stream';
import {describe, expect, it} from 'vitest';
import {Logger, stderrSink} from '../../../../source/core/base/logger.js';

/** A stream that takes writes but completes none until `release()`: a pipe nobody reads. */
function stalledStream() {
	const held: Array<() => void> = [];
	const written: string[] = [];
	let released = false;
	const stream = new Writable({
		highWaterMark: 1024,
		write(chunk: Buffer, _encoding, done) {
			written.push(chunk.toString());
			if (released) done();
			else held.push(done);
		},
	});
	return {
		stream,
		written,
		release() {
			released = true;
			for (const done of held.splice(0)) done();
		},
	};
}

describe("hangar's log", () => {
	it('holds at most its bound for a stderr nobody reads, and says how many lines it dropped once it drains', async () => {
		const {stream, written, release} = stalledStream();
		const logger = new Logger(stderrSink(stream, 64 * 1024), 'info');
		for (let i = 0; i < 10_000; i++) logger.info(`line ${i} ${'x'.repeat(100)}`);
		// Queued: at most the bound plus one line.
		expect(stream.writableLength).toBeLessThan(64 * 1024 + 200);
		const drained = new Promise(resolve => stream.once('drain', resolve));
		release();
		await drained;
		await new Promise(resolve => setImmediate(resolve));
		const report = written.find(text => text.includes('dropped'));
		expect(report).toMatch(/warn \[hangar\] dropped \d+ log lines \(\d+ bytes\) since .*: stderr was not read as fast as hangar wrote to it/);
		const kept = written.filter(text => text.includes('] line ')).length;
		const dropped = Number(/dropped (\d+) log lines/.exec(report!)![1]);
		expect(kept + dropped).toBe(10_000);
	});

	it('masks secrets in every line, whatever its level', () => {
		const lines: string[] = [];
		const logger = new Logger(line => lines.push(line), 'debug');
		logger.debug('connecting to https://me:hunter22@example.com/mcp?token=abc', {args: '--api-key=xyz'});
		expect(lines[0]).toContain('connecting to https://***@example.com/mcp?token=***');
		expect(lines[0]).toContain('args="--api-key=***"');
	});
});

describe("hangar's log and the output rule", () => {
	it('writes what an upstream or a config said escaped, and indents the lines after the first so none passes for its own', () => {
		const lines: string[] = [];
		const logger = new Logger(line => lines.push(line), 'info');
		logger.warn('server "\u001B]0;pwned\u0007" is invalid\n2026-01-01T00:00:00.000Z info [hangar] forged\rline', {tool: '\u009B6n\u202E'});
		expect(lines).toHaveLength(1);
		expect(lines[0]).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/);
		expect(lines[0]!.split('\n')[1]).toBe('    2026-01-01T00:00:00.000Z info [hangar] forged\\x0dline tool="\\u009b6n\\u202e"');
		expect(lines[0]).toContain('server "\\x1b]0;pwned\\x07" is invalid');
		expect(lines[0]).toContain('tool="\\u009b6n\\u202e"');
	});
});
