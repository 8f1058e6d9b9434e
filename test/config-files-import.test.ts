/**
 * Reading other clients' files into hangar entries, and planning an import:
 * where each client's files are on each platform, what every sample file
 * (test/fixtures/client-configs) turns into, names, duplicates and notes.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {closestMatch, editDistance} from '../source/closest-match.js';
import {clientFormats, locationOfFile} from '../source/config-files/client-formats.js';
import type {ClientEnvironment, ClientFile} from '../source/config-files/client-model.js';
import {planImport} from '../source/config-files/import-plan.js';
import {readClientFile} from '../source/config-files/read-client-file.js';
import {parseDotenv} from '../source/config-files/server-entry.js';
import {freeServerName, isValidServerName, validServerName} from '../source/config-files/server-name.js';
import {inputVariable} from '../source/config-files/variables.js';
import {clientFiles, clientHome} from './support/client-homes.js';

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

describe('planning an import', () => {
	const server = (name: string, entry: Record<string, unknown>, client: 'cursor' | 'codex' = 'cursor') => ({
		client,
		file: `/${client}.json`,
		group: {path: ['mcpServers'], projectDir: undefined, servers: {}},
		name,
		entry,
		notes: [],
		problem: undefined,
	});
	const file = (...servers: Array<ReturnType<typeof server>>): ClientFile => ({location: {client: servers[0]!.client, scope: 'user', file: servers[0]!.file}, servers, notes: []});

	it('imports a server configured twice once, keeps what hangar has, skips hangar itself, and never reuses a name', () => {
		const items = planImport(
			[
				file(server('a', {command: 'x', args: ['1']}), server('b.c', {url: 'https://u.example/mcp'}), server('hangar', {command: '/usr/bin/node', args: ['/x/dist/cli.js', '--stdio', '--config', '/c.json']})),
				file(server('again', {command: 'x', args: ['1']}, 'codex'), server('taken', {command: 'y'}, 'codex'), server('kept', {command: 'z'}, 'codex')),
			],
			{taken: {command: 'other'}, same: {command: 'z'}},
		);
		expect(items.map(item => [item.kind, item.server.name, 'name' in item ? item.name : undefined, item.kind === 'add' ? item.renamed : undefined])).toEqual([
			['add', 'a', 'a', undefined],
			['add', 'b.c', 'b-c', 'not a valid hangar name'],
			['hangar', 'hangar', undefined, undefined],
			['duplicate', 'again', 'a', undefined],
			['add', 'taken', 'taken-2', '"taken" is taken'],
			['present', 'kept', 'same', undefined],
		]);
	});

	it('reports an entry hangar would refuse, with the reason, and goes on with the rest', () => {
		const items = planImport([file(server('bad', {url: 'nope'}), server('good', {command: 'x'}))], {}, entry => (entry.url === 'nope' ? 'url: expected an http(s) URL' : undefined));
		expect(items.map(item => [item.kind, item.kind === 'unusable' ? item.problem : undefined])).toEqual([
			['unusable', 'url: expected an http(s) URL'],
			['add', undefined],
		]);
	});
});

describe('names, variables and typos', () => {
	it('makes names valid the way a person would', () => {
		expect(validServerName('github.com/modelcontextprotocol/servers/tree/main/src/github')).toBe('github');
		expect(validServerName('@scope/pkg')).toBe('pkg');
		expect(validServerName('My Database')).toBe('My-Database');
		expect(validServerName('brave.search')).toBe('brave-search');
		expect(validServerName('a__b_')).toBe('a_b');
		expect(validServerName('-x-')).toBe('x');
		expect(validServerName('!!!')).toBe('server');
		expect(validServerName('x'.repeat(40))).toBe('x'.repeat(32));
		for (const name of ['github.com/a/b', 'My Database', 'a__b_', '___', 'é']) expect(isValidServerName(validServerName(name)), name).toBe(true);
		expect(freeServerName('a', name => name === 'a' || name === 'a-2')).toBe('a-3');
		expect(freeServerName('x'.repeat(32), name => name === 'x'.repeat(32))).toBe(`${'x'.repeat(30)}-2`);
	});

	it('turns VS Code input ids into variable names', () => {
		expect(inputVariable('perplexity-key')).toBe('PERPLEXITY_KEY');
		expect(inputVariable('db.url')).toBe('DB_URL');
		expect(inputVariable('1st')).toBe('INPUT_1ST');
	});

	it('reads dotenv files', () => {
		expect(parseDotenv('# c\nA=1\nexport B="two words"\nC=\'lit\\n\'\nD=x # note\nnot a line\n')).toEqual({A: '1', B: 'two words', C: 'lit\\n', D: 'x'});
	});

	it('suggests the closest word only when it is close', () => {
		expect(editDistance('conifg', 'config')).toBe(1);
		expect(closestMatch('stauts', ['status', 'serve', 'setup'])).toBe('status');
		expect(closestMatch('xyz', ['status', 'serve'])).toBeUndefined();
	});
});
