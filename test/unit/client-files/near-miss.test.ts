import {describe, expect, it} from 'vitest';
import {clientFileFromText} from '../../../source/client-files/read-client-file.js';
import type {ClientEnvironment, ClientId} from '../../../source/client-files/client-model.js';

const environment: ClientEnvironment = {home: '/home/u', platform: 'linux', env: {}, cwd: '/home/u/app'};
const read = (client: ClientId, file: string, text: string) => clientFileFromText({client, scope: 'user', file}, text, environment);

describe('a file whose map of servers is under a misspelt key', () => {
	it('says which key was meant, instead of a bare "0 servers"', () => {
		for (const [client, file, text] of [
			['claude-desktop', '/home/u/.config/Claude/claude_desktop_config.json', '{"mcpServer": {"m": {"command": "npx"}}}'],
			['claude-code', '/tmp/pasted.json', '{"mcp_servers": {"m": {"command": "npx"}}}'],
			['cursor', '/home/u/.cursor/mcp.json', '{"MCPServers": {"m": {"command": "npx"}}}'],
		] as const) {
			const read_ = read(client, file, text);
			expect(read_.servers).toEqual([]);
			expect(read_.notes.join('\n'), client).toMatch(/^"(mcpServer|mcp_servers|MCPServers)" is not "mcpServers", so none of its servers are read: rename the key to "mcpServers" in the file$/);
		}
	});

	it('says nothing for a file that simply has no servers yet', () => {
		expect(read('claude-desktop', '/home/u/.config/Claude/claude_desktop_config.json', '{"globalShortcut": "Ctrl+Space"}').notes).toEqual([]);
		expect(read('claude-code', '/home/u/.claude.json', '{"numStartups": 3, "projects": {}}').notes).toEqual([]);
	});
});
