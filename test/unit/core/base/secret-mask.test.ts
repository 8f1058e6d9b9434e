import {describe, expect, it} from 'vitest';
import {isSecretName, launchSecrets, maskArgs, maskSecrets, maskStrings, maskText, maskedJson, registerSecrets} from '../../../../source/core/base/secret-mask.js';

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

describe('masking secrets by shape', () => {
	it('masks the userinfo of a URL and secret-looking query values, and keeps the rest', () => {
		expect(maskText('cannot connect to https://alice:s3cret-pass@example.com:8443/mcp?api_key=k-123456&mode=fast (ECONNREFUSED)')).toBe(
			'cannot connect to https://***@example.com:8443/mcp?api_key=***&mode=fast (ECONNREFUSED)',
		);
		expect(maskText('https://ghp_tokenonly@github.com/x?access_token=abc&sig=xyz&page=2')).toBe('https://***@github.com/x?access_token=***&sig=***&page=2');
		expect(maskText('see https://example.com/docs?page=2#top')).toBe('see https://example.com/docs?page=2#top');
	});

	it('masks the values of secret-looking flags and KEY=value pairs in free text', () => {
		expect(maskText('node server.js --token abc123 --api-key=def456 --password "p w" --secret=s --port 80')).toBe(
			'node server.js --token *** --api-key=*** --password *** --secret=*** --port 80',
		);
		expect(maskText('env GITHUB_TOKEN=ghp_1 DB_PASSWORD=x LOG_LEVEL=debug')).toBe('env GITHUB_TOKEN=*** DB_PASSWORD=*** LOG_LEVEL=debug');
		expect(maskText('failed with {"apiKey":"abc","name":"fx"} and Authorization: Bearer abcdef123456')).toBe(
			'failed with {"apiKey":"***","name":"fx"} and Authorization: Bearer ***',
		);
	});

	it('leaves flags that point at a secret, and ordinary text, alone', () => {
		expect(maskText('bearer token from --token-file /home/me/.hangar-token')).toBe('bearer token from --token-file /home/me/.hangar-token');
		expect(maskText('ready -> degraded: circuit opened after 3 consecutive failures')).toBe('ready -> degraded: circuit opened after 3 consecutive failures');
		expect(isSecretName('author')).toBe(false);
		expect(isSecretName('X-Auth-Token')).toBe(true);
		expect(isSecretName('GITHUB_PAT')).toBe(true);
	});

	it('masks argument lists element by element', () => {
		expect(maskArgs(['server.js', '--token', 'abc', '--api-key=def', 'PASSWORD=ghi', '--secret', 'jkl', '--verbose', '--url', 'https://u:p@h/x'])).toEqual([
			'server.js',
			'--token',
			'***',
			'--api-key=***',
			'PASSWORD=***',
			'--secret',
			'***',
			'--verbose',
			'--url',
			'https://***@h/x',
		]);
		// A flag followed by another flag has no value to mask.
		expect(maskArgs(['--token', '--verbose'])).toEqual(['--token', '--verbose']);
	});
});

describe('masking secrets by value', () => {
	it('finds the secrets a launch holds', () => {
		expect(
			launchSecrets({
				url: 'https://alice:p%40ss-word@example.com/mcp?api_key=key-1234567&page=2',
				args: ['--token', 'tok-1234567', '--api-key=key-7654321', 'DB_PASSWORD=pw-1234567', '--port', '8080'],
				env: {API_TOKEN: 'env-1234567', HOME: '/home/me'},
				headers: {Authorization: 'Bearer hdr-1234567', Accept: 'application/json'},
			}).sort(),
		).toEqual(['Bearer hdr-1234567', 'env-1234567', 'hdr-1234567', 'key-1234567', 'key-7654321', 'p%40ss-word', 'p@ss-word', 'pw-1234567', 'tok-1234567'].sort());
		// Too short to be masked everywhere without masking ordinary words.
		expect(launchSecrets({args: ['--token', 'abc']})).toEqual([]);
	});

	it('replaces registered secrets wherever they appear, in strings nested anywhere', () => {
		registerSecrets(['planted-value-42']);
		expect(maskText('the upstream said: my key is planted-value-42.')).toBe('the upstream said: my key is ***.');
		expect(maskStrings({a: ['x planted-value-42'], b: 3, c: null})).toEqual({a: ['x ***'], b: 3, c: null});
	});
});
