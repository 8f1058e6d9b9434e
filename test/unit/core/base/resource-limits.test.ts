import {describe, expect, it} from 'vitest';
import {describeShortage, lowFdLimitWarning, openFileLimit} from '../../../../source/core/base/resource-limits.js';

describe('resource limits', () => {
	it('reads this process\'s open-file limit from /proc on Linux, soft at most hard', () => {
		const limit = openFileLimit();
		if (process.platform !== 'linux') {
			expect(limit).toBeUndefined();
			return;
		}

		expect(limit!.soft).toBeGreaterThan(0);
		expect(limit!.soft).toBeLessThanOrEqual(limit!.hard);
	});

	it('warns about a low limit with what to change, and says nothing about an ample one', () => {
		expect(lowFdLimitWarning({soft: 64, hard: 64})).toMatch(/at most 64 files \(ulimit -n; hard limit 64\).*Raise it where hangar starts \(ulimit -n 1024/);
		expect(lowFdLimitWarning({soft: 1024, hard: Infinity})).toBeUndefined();
		expect(lowFdLimitWarning(undefined)).toBeUndefined();
	});

	it('says in words which resource ran out, and only for shortages', () => {
		expect(describeShortage('ENOSPC')).toBe('ENOSPC: no space left on device');
		expect(describeShortage('EMFILE')).toMatch(/^EMFILE: hangar has as many files open as its limit allows/);
		expect(describeShortage('ENOENT')).toBeUndefined();
		expect(describeShortage('EAGAIN')).toMatch(/^EAGAIN: the system refused another process/);
		expect(describeShortage(undefined)).toBeUndefined();
	});
});
