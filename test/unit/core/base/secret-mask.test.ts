import {describe, expect, it} from 'vitest';
import {maskSecrets, maskedJson} from '../../../../source/core/base/secret-mask.js';

const token = 'a-token-of-sixteen+chars';

describe('maskSecrets', () => {
	it('masks values under secret-looking keys, at any depth, and known secrets anywhere in strings', () => {
		const body = {
			params: {
				name: 'db__query',
				arguments: {sql: 'select 1', password: 'hunter2', apiKey: 'k-1', nested: [{Authorization: 'Bearer x'}], credentials: {user: 'u', pin: 1}},
				note: `my token is ${token}.`,
			},
		};
		expect(maskSecrets(body, [token])).toEqual({
			params: {
				name: 'db__query',
				arguments: {sql: 'select 1', password: '***', apiKey: '***', nested: [{Authorization: '***'}], credentials: '***'},
				note: 'my token is ***.',
			},
		});
		expect(body.params.arguments.password).toBe('hunter2');
	});

	it('cuts long bodies for the log line', () => {
		const text = maskedJson({data: 'x'.repeat(100)}, [], 40);
		expect(text).toMatch(/^\{"data":"x{31}… \(\d+ chars\)$/);
	});
});
