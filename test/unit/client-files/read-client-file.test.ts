/**
 * What every sample file (test/fixtures/client-configs) turns into.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {clientFormats} from '../../../source/client-files/client-formats.js';
import {readClientFile} from '../../../source/client-files/read-client-file.js';
import {clientFiles, clientHome} from '../../support/client-homes.js';

describe('reading the sample files', () => {
	const home = clientHome();
	const files = clientFormats.flatMap(format => format.locations(home.environment).flatMap(location => readClientFile(location, home.environment) ?? []));
	const read = (client: string, name: string) => {
		const server = files.flatMap(file => file.servers).find(entry => entry.client === client && entry.name === name);
		if (server === undefined) throw new Error(`no ${client} server "${name}"`);
		return server;
	};

	it('finds every sample file in its place', () => {
		const found = files.map(file => file.location.file);
		const expected = clientFiles.filter(entry => !entry.fixture.endsWith('.env')).map(entry => home.file(entry.at));
		expect([...found].sort()).toEqual([...expected].sort());
	});

	it('Claude Desktop: entries as written; the app settings beside them are not servers', () => {
		expect(read('claude-desktop', 'github')).toMatchObject({entry: {command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: {GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_desktopSECRETdesktopSECRET0000'}}, notes: []});
		expect(files.find(file => file.location.client === 'claude-desktop')!.servers.map(server => server.name)).toEqual(['filesystem', 'memory', 'github', 'brave.search']);
	});

	it('Claude Code: user servers, each project\'s (run in that project) and .mcp.json (run in this one)', () => {
		expect(read('claude-code', 'sequential-thinking')).toMatchObject({entry: {command: 'npx', args: ['-y', '@modelcontextprotocol/server-sequential-thinking'], env: {}}, notes: []});
		expect(read('claude-code', 'linear').entry).toEqual({type: 'sse', url: 'https://mcp.linear.app/sse'});
		expect(read('claude-code', 'postgres').entry).toMatchObject({cwd: '/home/ada/src/shop'});
		expect(read('claude-code', 'postgres').group.path).toEqual(['projects', '/home/ada/src/shop', 'mcpServers']);
		expect(read('claude-code', 'playwright').entry).toEqual({command: 'npx', args: ['@playwright/mcp@latest'], cwd: home.project});
	});

	it('Cursor: ${env:X} and ${workspaceFolder} rewritten, envFile kept as an absolute reference', () => {
		expect(read('cursor', 'notion').entry).toEqual({url: 'https://mcp.notion.com/mcp', headers: {Authorization: 'Bearer ${NOTION_TOKEN}'}});
		const shop = read('cursor', 'shop-tools');
		expect(shop.entry).toEqual({
			command: 'node',
			args: [path.join(home.project, 'tools/mcp-server.js'), '--verbose'],
			env: {LOG_LEVEL: 'debug'},
			envFile: path.join(home.project, '.env'),
			cwd: home.project,
		});
	});

	it('VS Code: "servers" and settings\' "mcp.servers"; inputs become variables with a note', () => {
		const database = read('vscode', 'My Database');
		expect(database.entry).toEqual({command: 'uvx', args: ['mcp-server-sqlite', '--db-path', `${home.project}/data/app.db`], env: {DATABASE_URL: '${DB_URL}'}, cwd: home.project});
		expect(database.notes).toEqual(['dev dropped: hangar does not watch or debug a server', '${input:db-url} → ${DB_URL}: hangar cannot prompt; set DB_URL in the environment hangar runs in']);
		expect(read('vscode', 'fetch').entry).toEqual({type: 'http', url: 'http://localhost:3001/mcp'});
		expect(read('vscode', 'time').entry).toEqual({command: 'uvx', args: ['mcp-server-time', '--local-timezone=Europe/Berlin']});
		const project = files.find(file => file.location.file.endsWith(`${path.sep}.vscode${path.sep}mcp.json`))!;
		expect(project.notes).toHaveLength(2);
	});

	it('Windsurf: serverUrl is the URL; disabled carries over', () => {
		expect(read('windsurf', 'figma').entry).toEqual({url: 'https://mcp.figma.com/mcp', headers: {Authorization: 'Bearer figd_windsurfSECRET4444'}});
		expect(read('windsurf', 'puppeteer').entry).toMatchObject({disabled: true});
		expect(read('windsurf', 'half-written')).toMatchObject({entry: undefined, problem: 'it has neither "command" nor a URL'});
	});

	it('Cline: timeout in seconds, streamableHttp, approvals dropped with a note', () => {
		const github = read('cline', 'github.com/modelcontextprotocol/servers/tree/main/src/github');
		expect(github.entry).toMatchObject({callTimeoutSeconds: 120});
		expect(github.notes).toEqual([
			'autoApprove dropped: hangar does not approve calls itself; the client keeps asking before each call, as it does for any server',
			'timeout → callTimeoutSeconds',
		]);
		expect(read('cline', 'weather').entry).toEqual({type: 'streamable-http', url: 'https://weather.example.com/mcp', callTimeoutSeconds: 60});
		expect(read('cline', 'github.com/upstash/context7-mcp').entry).toMatchObject({disabled: true});
	});

	it('Gemini CLI: url is SSE, httpUrl Streamable HTTP, timeout in milliseconds, $VAR rewritten, includeTools kept', () => {
		expect(read('gemini', 'pythonTools').entry).toEqual({
			command: 'python',
			args: ['-m', 'my_mcp_server', '--port', '8080'],
			env: {DATABASE_URL: '${DB_CONNECTION_STRING}', API_KEY: '${EXTERNAL_API_KEY}'},
			cwd: './mcp-servers/python',
			callTimeoutSeconds: 15,
			includeTools: ['query', 'schema'],
		});
		// A user's relative cwd: Gemini resolves it where it runs, hangar where its config is; kept, and said.
		expect(read('gemini', 'pythonTools').notes).toContain(
			'cwd "./mcp-servers/python" is relative: gemini resolves it against the directory it runs in, hangar against its config file\'s directory; write the absolute path in hangar\'s config',
		);
		expect(read('gemini', 'httpServer').entry).toMatchObject({type: 'streamable-http', url: 'http://localhost:3000/mcp', callTimeoutSeconds: 5});
		expect(read('gemini', 'sseServer').entry).toEqual({type: 'sse', url: 'http://localhost:8081/sse'});
	});

	it('Codex: TOML tables, sub-tables and inline tables; its own keys mapped', () => {
		expect(read('codex', 'github').entry).toEqual({
			command: 'npx',
			args: ['-y', '@modelcontextprotocol/server-github'],
			env: {GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_codexSECRETcodexSECRET7777'},
			includeTools: ['search_code'],
		});
		expect(read('codex', 'figma.remote').entry).toEqual({url: 'https://mcp.figma.com/mcp', headers: {Authorization: 'Bearer ${FIGMA_OAUTH_TOKEN}', 'X-Figma-Region': 'us-east-1'}});
		// The ${FIGMA_OAUTH_TOKEN} is hangar's own rewrite of bearer_token_env_var, said once; Codex never wrote it.
		expect(read('codex', 'figma.remote').notes.filter(note => note.includes('${FIGMA_OAUTH_TOKEN}'))).toEqual([
			'bearer_token_env_var → headers.Authorization "Bearer ${FIGMA_OAUTH_TOKEN}" (set FIGMA_OAUTH_TOKEN where hangar runs)',
		]);
		expect(read('codex', 'old_server').entry).toEqual({command: '/usr/local/bin/old-mcp', env: {LEGACY: '1', RETRIES: '3'}, disabled: true});
		expect(read('codex', 'context7').entry).toEqual({command: 'npx', args: ['-y', '@upstash/context7-mcp'], callTimeoutSeconds: 90.5, startTimeoutSeconds: 20});
	});

	it('no note ever holds a secret value', () => {
		for (const server of files.flatMap(file => file.servers)) for (const note of server.notes) expect(note).not.toMatch(/SECRET/);
	});
});
