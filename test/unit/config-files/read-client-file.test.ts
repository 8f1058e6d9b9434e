/**
 * Where each client keeps its servers, on each platform, and what every
 * sample file (test/fixtures/client-configs) turns into.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {clientFormats, locationOfFile} from '../../../source/config-files/client-formats.js';
import type {ClientEnvironment} from '../../../source/config-files/client-model.js';
import {readClientFile} from '../../../source/config-files/read-client-file.js';
import {clientFiles, clientHome} from '../../support/client-homes.js';

const userFiles = (environment: ClientEnvironment) =>
	Object.fromEntries(clientFormats.map(format => [format.id, format.locations(environment).filter(location => location.scope === 'user').map(location => location.file)]));

describe('where each client keeps its servers', () => {
	it('on macOS', () => {
		const files = userFiles({home: '/Users/ada', platform: 'darwin', env: {}, cwd: '/Users/ada/src/app'});
		expect(files['claude-desktop']).toEqual(['/Users/ada/Library/Application Support/Claude/claude_desktop_config.json']);
		expect(files['vscode']).toEqual(['/Users/ada/Library/Application Support/Code/User/mcp.json', '/Users/ada/Library/Application Support/Code/User/settings.json']);
		expect(files['cline']![0]).toBe('/Users/ada/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json');
		expect(files['claude-code']).toEqual(['/Users/ada/.claude.json']);
		expect(files['codex']).toEqual(['/Users/ada/.codex/config.toml']);
	});

	it('on Windows', () => {
		const files = userFiles({home: 'C:\\Users\\ada', platform: 'win32', env: {APPDATA: 'C:\\Users\\ada\\AppData\\Roaming'}, cwd: 'C:\\src\\app'});
		expect(files['claude-desktop']).toEqual(['C:\\Users\\ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json']);
		expect(files['cursor']).toEqual(['C:\\Users\\ada\\.cursor\\mcp.json']);
		expect(files['windsurf']).toEqual(['C:\\Users\\ada\\.codeium\\windsurf\\mcp_config.json']);
		expect(files['gemini']).toEqual(['C:\\Users\\ada\\.gemini\\settings.json']);
	});

	it('on Linux, following XDG_CONFIG_HOME and CODEX_HOME', () => {
		const plain = userFiles({home: '/home/ada', platform: 'linux', env: {}, cwd: '/'});
		expect(plain['claude-desktop']).toEqual(['/home/ada/.config/Claude/claude_desktop_config.json']);
		const moved = userFiles({home: '/home/ada', platform: 'linux', env: {XDG_CONFIG_HOME: '/xdg', CODEX_HOME: '/codex'}, cwd: '/'});
		expect(moved['claude-desktop']).toEqual(['/xdg/Claude/claude_desktop_config.json']);
		expect(moved['codex']).toEqual(['/codex/config.toml']);
	});

	it('and in a project: .mcp.json, .cursor/mcp.json, .vscode/mcp.json, .gemini/settings.json', () => {
		const environment: ClientEnvironment = {home: '/home/ada', platform: 'linux', env: {}, cwd: '/src/app'};
		const project = clientFormats.flatMap(format => format.locations(environment).filter(location => location.scope === 'project').map(location => `${location.client} ${location.file}`));
		expect(project).toEqual(['claude-code /src/app/.mcp.json', 'cursor /src/app/.cursor/mcp.json', 'vscode /src/app/.vscode/mcp.json', 'gemini /src/app/.gemini/settings.json']);
	});

	it('recognises a file given by path from its name', () => {
		const environment: ClientEnvironment = {home: '/home/ada', platform: 'linux', env: {}, cwd: '/src'};
		expect(locationOfFile('backup/claude_desktop_config.json', environment)).toEqual({client: 'claude-desktop', scope: 'user', file: '/src/backup/claude_desktop_config.json'});
		expect(locationOfFile('/elsewhere/.vscode/mcp.json', environment)?.client).toBe('vscode');
		expect(locationOfFile('/elsewhere/config.toml', environment)?.client).toBe('codex');
		expect(locationOfFile('/elsewhere/servers.json', environment)).toBeUndefined();
	});
});

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

	it('Cursor: ${env:X} and ${workspaceFolder} rewritten, envFile copied under explicit env', () => {
		expect(read('cursor', 'notion').entry).toEqual({url: 'https://mcp.notion.com/mcp', headers: {Authorization: 'Bearer ${NOTION_TOKEN}'}});
		const shop = read('cursor', 'shop-tools');
		expect(shop.entry).toEqual({
			command: 'node',
			args: [path.join(home.project, 'tools/mcp-server.js'), '--verbose'],
			env: {LOG_LEVEL: 'debug', SHOP_API_TOKEN: 'shopSECRET3333', SHOP_REGION: 'eu-west-1'},
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

	it('Gemini CLI: url is SSE, httpUrl Streamable HTTP, timeout in milliseconds, $VAR rewritten', () => {
		expect(read('gemini', 'pythonTools').entry).toEqual({
			command: 'python',
			args: ['-m', 'my_mcp_server', '--port', '8080'],
			env: {DATABASE_URL: '${DB_CONNECTION_STRING}', API_KEY: '${EXTERNAL_API_KEY}'},
			cwd: './mcp-servers/python',
			callTimeoutSeconds: 15,
		});
		expect(read('gemini', 'httpServer').entry).toMatchObject({type: 'streamable-http', url: 'http://localhost:3000/mcp', callTimeoutSeconds: 5});
		expect(read('gemini', 'sseServer').entry).toEqual({type: 'sse', url: 'http://localhost:8081/sse'});
	});

	it('Codex: TOML tables, sub-tables and inline tables; its own keys mapped', () => {
		expect(read('codex', 'github').entry).toEqual({command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: {GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_codexSECRETcodexSECRET7777'}});
		expect(read('codex', 'figma.remote').entry).toEqual({url: 'https://mcp.figma.com/mcp', headers: {Authorization: 'Bearer ${FIGMA_OAUTH_TOKEN}', 'X-Figma-Region': 'us-east-1'}});
		expect(read('codex', 'old_server').entry).toEqual({command: '/usr/local/bin/old-mcp', env: {LEGACY: '1', RETRIES: '3'}, disabled: true});
		expect(read('codex', 'context7').entry).toEqual({command: 'npx', args: ['-y', '@upstash/context7-mcp'], callTimeoutSeconds: 90.5, startTimeoutSeconds: 20});
	});

	it('no note ever holds a secret value', () => {
		for (const server of files.flatMap(file => file.servers)) for (const note of server.notes) expect(note).not.toMatch(/SECRET/);
	});
});
