import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {systemErrorSentence} from '../../../../source/core/base/system-error.js';

/** The error Node throws for `run`. */
function thrown(run: () => void): unknown {
	try {
		run();
	} catch (error) {
		return error;
	}

	throw new Error('it did not throw');
}

describe('a command the system refused a file', () => {
	it('is told as one sentence: which command, what the system said, what to do; no stack', () => {
		const missing = path.join(os.tmpdir(), `hangar-no-such-dir-${process.pid}`, 'config.json');
		const sentence = systemErrorSentence(thrown(() => fs.writeFileSync(missing, '{}')), 'add');
		expect(sentence).toBe(`add failed: ENOENT: no such file or directory, open '${missing}'. It stopped there; check that the directory exists and can be written, then run it again.`);
		const full = Object.assign(new Error('ENOSPC: no space left on device, write'), {code: 'ENOSPC', syscall: 'write', errno: -28});
		expect(systemErrorSentence(full, 'import')).toBe('import failed: ENOSPC: no space left on device, write. It stopped there; free space on that disk, then run it again.');
		const fds = Object.assign(new Error('EMFILE: too many open files, open'), {code: 'EMFILE', syscall: 'open'});
		expect(systemErrorSentence(fds, undefined)).toMatch(/^the command failed: EMFILE: too many open files, open\. It stopped there; EMFILE: hangar has as many files open as its limit allows/);
	});

	it('leaves any other error alone: a bug keeps its stack for the report', () => {
		expect(systemErrorSentence(new TypeError('x is undefined'), 'add')).toBeUndefined();
		expect(systemErrorSentence(Object.assign(new Error('odd'), {code: 'ERR_INVALID_ARG_TYPE'}), 'add')).toBeUndefined();
		expect(systemErrorSentence('a string', 'add')).toBeUndefined();
	});
});
