import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {configIssues, entryProblem} from '../../../source/client-files/hangar-config-file.js';

describe('what an editor of hangar\'s config (import, add, remove) counts as a problem', () => {
	it('not an envFile that cannot be read now, like an unset variable: the entry is written, and shows as invalid until the file exists', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-config-file-'));
		const missing = path.join(dir, '.env');
		expect(entryProblem({command: 'npx', args: ['-y', 'server-perplexity-ask'], envFile: missing})).toBeUndefined();
		expect(entryProblem({command: 'npx', env: {KEY: '${HANGAR_TEST_SURELY_UNSET_VARIABLE}'}})).toBeUndefined();
		const text = JSON.stringify({mcpServers: {p: {command: 'npx', envFile: missing}, q: {command: 'node'}}});
		expect(configIssues(path.join(dir, 'mcp-hangar.json'), text)).toEqual([]);
		fs.rmSync(dir, {recursive: true});
	});

	it('still every problem of the entry as written', () => {
		expect(entryProblem({command: 'npx', envFile: 42})).toMatch(/envFile/);
		expect(entryProblem({command: 'npx', url: 'https://x.example/mcp'})).toContain('only one of "command" and "url"');
	});
});
