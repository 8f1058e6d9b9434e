import {describe, expect, it} from 'vitest';
import {launchWarnings, looksLikePlaceholder} from '../../../source/cli/launch-warnings.js';
import {parseConfig} from '../../../source/core/config/read-config.js';

describe('placeholders left from an example', () => {
	it('tells a README\'s placeholder from a real value', () => {
		for (const value of ['<YOUR_TOKEN>', '<api key>', 'YOUR_API_KEY', 'your-token-here', 'your_github_pat', 'API_KEY_HERE', '[YOUR KEY]']) expect(looksLikePlaceholder(value), value).toBe(true);
		for (const value of ['ghp_a1b2c3d4e5f6a1b2c3d4e5f6a1b2c3d4e5f6', 'sk-proj-abc123', '/Users/me/Desktop', '-y', '@modelcontextprotocol/server-memory', '${GITHUB_TOKEN}', 'https://example.com', 'yours', '<'])
			expect(looksLikePlaceholder(value), value).toBe(false);
	});

	it('warns, naming the entry and the value, for env values, headers after their scheme and arguments; not for disabled entries', () => {
		const config = parseConfig(
			{
				mcpServers: {
					github: {command: process.execPath, args: ['-e', '0'], env: {GITHUB_PERSONAL_ACCESS_TOKEN: '<YOUR_TOKEN>', OTHER: 'ghp_real'}},
					sentry: {type: 'http', url: 'https://mcp.example.com/mcp', headers: {Authorization: 'Bearer YOUR_API_KEY'}},
					search: {command: process.execPath, args: ['--key', 'your-api-key-here']},
					off: {command: process.execPath, env: {KEY: '<YOUR_KEY>'}, disabled: true},
				},
			},
			'/tmp/mcp-hangar.json',
		);
		expect(launchWarnings(config.servers)).toEqual([
			'warning: "github": env GITHUB_PERSONAL_ACCESS_TOKEN is "<YOUR_TOKEN>", which looks like an example\'s placeholder, not a real value: put the real one in the config file, or write "${GITHUB_PERSONAL_ACCESS_TOKEN}" to take it from the environment hangar runs in.',
			'warning: "sentry": header Authorization is "Bearer YOUR_API_KEY", which looks like an example\'s placeholder, not a real value: put the real one in the config file, or write "Bearer ${SENTRY_TOKEN}" to take it from the environment hangar runs in.',
			'warning: "search": argument 2 is "your-api-key-here", which looks like an example\'s placeholder, not a real value: put the real one in the config file.',
		]);
	});
});
