import {describe, expect, it} from 'vitest';
import {LogBuffer} from '../../../../source/core/upstream/log-buffer.js';

describe('log buffer', () => {
	it('the log buffer keeps only the newest lines', () => {
		const log = new LogBuffer(3);
		for (let i = 0; i < 5; i++) log.push('stderr', `line ${i}`);
		expect(log.tail(10).map(line => line.text)).toEqual(['line 2', 'line 3', 'line 4']);
		expect(log.droppedLines).toBe(2);
	});
});
