/**
 * import, setup, add and remove through the built CLI, on a temp home laid
 * out as each client leaves it (test/fixtures/client-configs), and the CLI's
 * help, unknown-flag and version behaviour.
 */
import {execFile, spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {parseJson} from '../../source/client-files/json-text.js';
import {parseToml} from '../../source/client-files/toml.js';
import {clientFixtures, clientHome, type ClientHome} from '../support/client-homes.js';
import {cliPath, closeHangars, everythingPath, fixturePath, root, startHangar, waitFor} from '../support/hangar.js';

afterEach(closeHangars);

type Run = {code: number | null; stdout: string; stderr: string};

/**
 * The run's Node compile cache (test/support/state-dir-guard.ts), so that each run of the CLI does not compile
 * it again in a home of its own: a cache dir, not a place a client file is read from.
 */
const compileCache: Record<string, string> = process.env['NODE_COMPILE_CACHE'] === undefined ? {} : {NODE_COMPILE_CACHE: process.env['NODE_COMPILE_CACHE']};

/** The built CLI, seeing only `home` as the user's (no real client file can leak in), run in its project dir. */
async function hangar(home: ClientHome, args: string[], env: Record<string, string> = {}, cwd = home.project): Promise<Run> {
	return new Promise(resolve => {
		execFile(
			process.execPath,
			[cliPath, ...args],
			{cwd, env: {PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...compileCache, ...home.env, ...env}, timeout: 50_000},
			(error, stdout, stderr) => {
				resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr});
			},
		);
	});
}

/** The built CLI run as `hangar` runs it, its stdout a pipe whose reader has already gone (as after `| head -1`). */
async function stdoutClosed(home: ClientHome, args: string[]): Promise<{code: number | null; stderr: string}> {
	const child = spawn(process.execPath, [cliPath, ...args], {cwd: home.project, env: {PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...compileCache, ...home.env}, stdio: ['ignore', 'pipe', 'pipe']});
	child.stdout.destroy();
	let stderr = '';
	child.stderr.on('data', (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	const code = await new Promise<number | null>(resolve => child.on('close', resolve));
	return {code, stderr};
}

/** How the CLI's messages name itself: mcp-hangar is not on the tests' PATH, so they give node and this cli.js, which run as written. */
const self = `node ${cliPath}`;

/** Every value the sample files hold as a secret contains this. */
const secretMarker = /SECRET/;

/** The variables the imported servers reference, as a client's environment would set them. */
const variables = {DOCS_API_KEY: 'k', SENTRY_TOKEN: 's', NOTION_TOKEN: 'n', PERPLEXITY_KEY: 'p', DB_URL: 'd', DB_CONNECTION_STRING: 'c', EXTERNAL_API_KEY: 'e', FIGMA_OAUTH_TOKEN: 'f'};

const importedNames = [
	'filesystem',
	'memory',
	'github',
	'brave-search',
	'sequential-thinking',
	'linear',
	'sentry',
	'postgres',
	'playwright',
	'api-docs',
	'memory-2',
	'context7',
	'notion',
	'shop-tools',
	'time',
	'Perplexity',
	'My-Database',
	'fetch',
	'puppeteer',
	'figma',
	'memory-3',
	'github-2',
	'context7-mcp',
	'weather',
	'pythonTools',
	'httpServer',
	'sseServer',
	'context7-2',
	'github-3',
	'figma-remote',
	'old_server',
];

const readJson = (file: string) => parseJson(fs.readFileSync(file, 'utf8'), {jsonc: true}) as Record<string, unknown>;

describe('mcp-hangar import', () => {
	it('with no argument lists what every client found would give, from where, and writes nothing', async () => {
		const home = clientHome();
		const config = path.join(home.root, 'hangar.json');
		const run = await hangar(home, ['import', '--config', config]);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		for (const where of [
			'Claude Desktop, ~/.config/Claude/claude_desktop_config.json: 4 servers',
			'Claude Code, ~/.claude.json: 4 servers',
			`Claude Code, ${home.project}/.mcp.json: 2 servers`,
			'Cursor, ~/.cursor/mcp.json: 3 servers',
			`Cursor, ${home.project}/.cursor/mcp.json: 1 server`,
			'VS Code, ~/.config/Code/User/settings.json: 1 server',
			`VS Code, ${home.project}/.vscode/mcp.json: 3 servers`,
			'Windsurf, ~/.codeium/windsurf/mcp_config.json: 4 servers',
			'Cline, ~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json: 3 servers',
			'Gemini CLI, ~/.gemini/settings.json: 3 servers',
			'Codex, ~/.codex/config.toml: 4 servers',
		]) {
			expect(run.stdout).toContain(where);
		}

		expect(run.stdout).toContain('31 servers would be added to');
		expect(run.stdout).toContain('Nothing was written.');
		expect(run.stdout).toContain(`To import: ${self} import all --config`);
		expect(fs.existsSync(config)).toBe(false);
		expect(run.stdout).not.toMatch(secretMarker);
	});

	it('reports each rename, duplicate, unusable entry and dropped key, naming env and header keys but never their values', async () => {
		const home = clientHome();
		const run = await hangar(home, ['import', '--config', path.join(home.root, 'hangar.json')]);
		const lines = run.stdout.split('\n');
		const line = (start: string) => lines.find(text => text.trimStart().startsWith(start)) ?? `(no line starting with ${start})`;
		expect(line('+ brave-search')).toBe('  + brave-search             npx -y @modelcontextprotocol/server-brave-search  env: BRAVE_API_KEY');
		expect(run.stdout).toContain('      renamed from "brave.search" (not a valid hangar name)');
		expect(line('+ context7 ')).toBe('  + context7                 npx -y @upstash/context7-mcp --api-key ***');
		expect(run.stdout).toContain('renamed from "github.com/upstash/context7-mcp" (not a valid hangar name)');
		expect(line('+ context7-2')).toContain('npx -y @upstash/context7-mcp');
		expect(run.stdout).toContain('renamed from "context7" ("context7" is taken)');
		// Three clients' github entries each carry their own token: three upstreams, no token lost.
		expect(lines.filter(text => /^\s+\+ \S+\s+npx -y @modelcontextprotocol\/server-github {2}env: GITHUB_PERSONAL_ACCESS_TOKEN$/.test(text))).toHaveLength(3);
		// Windsurf's figma.remote sends other headers than figma: another upstream, imported under its own name.
		expect(line('+ figma-remote')).toContain('headers: Authorization');
		expect(line('! half-written')).toContain('not imported: it has neither "command" nor a URL; fix it in ~/.codeium/windsurf/mcp_config.json');
		// Claude Code's ${VAR:-default} in a url is expanded by hangar as it is by Claude Code: the entry is imported as written.
		expect(line('+ api-docs')).toBe('  + api-docs                 ${DOCS_URL:-https://docs.example.com/mcp}  (http)  headers: X-Api-Key');
		expect(line('+ sentry')).toBe('  + sentry                   https://mcp.sentry.dev/mcp  (http)  headers: Authorization');
		expect(line('+ figma ')).toBe('  + figma                    https://mcp.figma.com/mcp  headers: Authorization');
		expect(line('+ shop-tools')).toBe(`  + shop-tools               node ${home.project}/tools/mcp-server.js --verbose  env: LOG_LEVEL  envFile: ${home.project}/.env`);
		expect(run.stdout).toContain(`envFile ${home.project}/.env kept as a reference: hangar reads its 3 variables (SHOP_API_TOKEN, SHOP_REGION, LOG_LEVEL) when it loads the config; env sets LOG_LEVEL itself, and that wins`);
		expect(run.stdout).toContain('autoApprove dropped: hangar does not approve calls itself');
		expect(run.stdout).toContain('timeout → callTimeoutSeconds');
		expect(run.stdout).toContain('${input:perplexity-key} → ${PERPLEXITY_KEY}: hangar cannot prompt; set PERPLEXITY_KEY');
		expect(run.stdout).toContain('note: VS Code prompts for input "perplexity-key" (Perplexity API Key, a secret)');
		expect(run.stdout).toContain('dev dropped: hangar does not watch or debug a server');
		expect(run.stdout).toContain('startup_timeout_sec → startTimeoutSeconds');
		expect(line('+ puppeteer')).toContain('[disabled]');
		expect(run.stdout).toContain('disabledTools → excludeTools');
		expect(run.stdout).not.toMatch(secretMarker);
	});

	it('imports every importable server, and --check-config then lists them all', async () => {
		const home = clientHome();
		const config = path.join(home.root, 'hangar.json');
		const run = await hangar(home, ['import', 'all', '--config', config]);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		expect(run.stdout).toContain(`Added 31 servers to ${config} (a new file): ${importedNames.join(', ')}.`);
		expect(run.stdout).not.toMatch(secretMarker);
		expect((fs.statSync(config).mode & 0o777).toString(8)).toBe('600');

		const check = await hangar(home, ['--check-config', '--config', config], variables);
		expect(check.stderr).toBe('');
		const [ok, ...rest] = check.stdout.split('\n');
		expect(ok).toBe(`${config}: OK, 31 upstreams (${importedNames.join(', ')})`);
		// The pasted configs name directories and programs this machine does not have: warnings, not errors.
		expect(rest.filter(line => line.startsWith('warning: ')).map(line => /^warning: "([^"]+)"/.exec(line)?.[1])).toEqual(expect.arrayContaining(['postgres', 'pythonTools']));
		expect(check.code).toBe(0);

		// The secrets are in the file, where the clients had them.
		const servers = readJson(config)['mcpServers'] as Record<string, {env?: Record<string, string>; envFile?: string; headers?: Record<string, string>}>;
		expect(servers['github']!.env).toEqual({GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_desktopSECRETdesktopSECRET0000'});
		// The dotenv file stays where it is, with its secrets: the imported entry points at it.
		expect(servers['shop-tools']!.env).toEqual({LOG_LEVEL: 'debug'});
		expect(servers['shop-tools']!.envFile).toBe(path.join(home.project, '.env'));
		expect(servers['figma']!.headers).toEqual({Authorization: 'Bearer figd_windsurfSECRET4444'});
		expect(servers['Perplexity']).toEqual({command: 'npx', args: ['-y', 'server-perplexity-ask'], env: {PERPLEXITY_API_KEY: '${PERPLEXITY_KEY}'}, cwd: home.project});
		expect(servers['postgres']).toMatchObject({cwd: '/home/ada/src/shop'});
		expect(servers['context7-2']).toEqual({command: 'npx', args: ['-y', '@upstash/context7-mcp'], callTimeoutSeconds: 90.5, startTimeoutSeconds: 20});
		expect(servers['pythonTools']).toMatchObject({env: {DATABASE_URL: '${DB_CONNECTION_STRING}', API_KEY: '${EXTERNAL_API_KEY}'}, callTimeoutSeconds: 15, includeTools: ['query', 'schema']});
		// Windsurf's disabledTools is hangar's excludeTools.
		expect(servers['puppeteer']).toMatchObject({excludeTools: ['puppeteer_evaluate'], disabled: true});
		expect(servers['sseServer']).toEqual({type: 'sse', url: 'http://localhost:8081/sse'});
		expect(servers['weather']).toEqual({type: 'streamable-http', url: 'https://weather.example.com/mcp', callTimeoutSeconds: 60});
		expect(servers['old_server']).toEqual({command: '/usr/local/bin/old-mcp', env: {LEGACY: '1', RETRIES: '3'}, disabled: true});

		// Again: everything is there already.
		const again = await hangar(home, ['import', 'all', '--config', config]);
		expect(again.code).toBe(0);
		expect(again.stdout).toContain('Nothing to add');
		expect(again.stdout).toContain('= filesystem               already in hangar\'s config as "filesystem"');
	});

	it('--dry-run prints the plan and writes nothing', async () => {
		const home = clientHome();
		const config = path.join(home.root, 'hangar.json');
		const run = await hangar(home, ['import', 'cursor', '--dry-run', '--config', config]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain('4 servers would be added to');
		expect(run.stdout).toContain('Nothing was written.');
		expect(fs.existsSync(config)).toBe(false);
	});

	it('merges into an existing config: other keys and servers stay as written, a taken name is never overwritten', async () => {
		const home = clientHome(entry => entry.client === 'claude-desktop');
		const config = path.join(home.root, 'hangar.json');
		const before = [
			'{',
			'    "$schema": "https://example.com/hangar.schema.json",',
			'    "hangar": {"idleTimeoutSeconds": 600, "lazy": true},',
			'    "mcpServers": {',
			'        "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "/Users/ada/.memory/memory.jsonl"}, "lazy": false},',
			'        "github": {"command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"]}',
			'    }',
			'}',
			'',
		].join('\n');
		fs.writeFileSync(config, before, {mode: 0o640});
		const run = await hangar(home, ['import', 'claude-desktop', '--config', config]);
		expect(run.stderr).toBe('');
		expect(run.stdout).toContain('= memory                   already in hangar\'s config as "memory"');
		expect(run.stdout).toContain('renamed from "github" ("github" is taken)');
		const after = fs.readFileSync(config, 'utf8');
		// The file up to its last existing server is unchanged, byte for byte.
		const keep = before.indexOf('"ghcr.io/github/github-mcp-server"]}') + '"ghcr.io/github/github-mcp-server"]}'.length;
		expect(after.slice(0, keep)).toBe(before.slice(0, keep));
		expect(Object.keys((readJson(config)['mcpServers'] as object))).toEqual(['memory', 'github', 'filesystem', 'github-2', 'brave-search']);
		expect(after).toContain('\n        "filesystem": {\n            "command": "npx",');
		expect((fs.statSync(config).mode & 0o777).toString(8)).toBe('640');
	});

	it('reads a file given by path, and refuses a client name it does not know with the closest one', async () => {
		const home = clientHome(() => false);
		const config = path.join(home.root, 'hangar.json');
		const run = await hangar(home, ['import', path.join(clientFixtures, 'codex-config.toml'), '--dry-run', '--config', config]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain('Codex, ');
		expect(run.stdout).toContain('4 servers would be added');

		const typo = await hangar(home, ['import', 'curosr', '--config', config]);
		expect(typo.code).toBe(2);
		expect(typo.stderr).toContain('"curosr" is neither a client nor a file. Did you mean "cursor"?');

		const missing = await hangar(home, ['import', 'cursor', '--config', config]);
		expect(missing.code).toBe(1);
		expect(missing.stderr).toContain('no Cursor config found. Looked for:');

		fs.mkdirSync(path.join(home.home, '.cursor'));
		fs.writeFileSync(path.join(home.home, '.cursor', 'mcp.json'), '{"mcpServers": {"a": {"command": "x"},}');
		const broken = await hangar(home, ['import', 'cursor', '--config', config]);
		expect(broken.code).toBe(1);
		expect(broken.stderr).toContain('cannot import from Cursor:');
		expect(broken.stderr).toContain('not valid JSON: expected "}", found the end of the file at line 1, column 40');
	});

	it('follows its own advice: a pasted config with comments is refused as hangar\'s config, and imported as a file', async () => {
		const home = clientHome(() => false);
		const pasted = path.join(home.root, 'pasted.json');
		fs.writeFileSync(pasted, `// from a README\n{\n  "mcpServers": {\n    "echo": {"command": "node", "args": ["server.js"]}, // the demo\n  },\n}\n`);
		const refused = await hangar(home, ['--check-config', '--config', pasted]);
		expect(refused.code).not.toBe(0);
		expect(refused.stderr).toContain('This looks like JSON with comments');
		expect(refused.stderr).toContain(`mcp-hangar import ${pasted}`);

		const config = path.join(home.root, 'hangar.json');
		const run = await hangar(home, ['import', pasted, '--config', config]);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		expect(JSON.parse(fs.readFileSync(config, 'utf8')).mcpServers.echo).toMatchObject({command: 'node', args: ['server.js']});
		// The file is no client's: setup of the client whose format it was read in would rewrite that client's own file instead.
		expect(run.stdout).not.toContain('setup claude-code');
		expect(run.stdout).toContain(`Then point your client at hangar: ${self} setup CLIENT --config ${config} (CLIENT: claude-desktop, claude-code, cursor, vscode, windsurf, cline, gemini, codex).`);
	});

	it('reads a file once when the project is the home directory, and suggests every client a short name starts', async () => {
		const home = clientHome(entry => entry.client === 'cursor' && entry.at.startsWith('~/'));
		const fromHome = await hangar(home, ['import', 'cursor', '--dry-run', '--config', path.join(home.root, 'hangar.json')], {}, home.home);
		expect(fromHome.code).toBe(0);
		expect(fromHome.stdout.match(/^Cursor, /gm)).toHaveLength(1);

		const short = await hangar(home, ['import', 'claude']);
		expect(short.code).toBe(2);
		expect(short.stderr).toContain('Did you mean "claude-desktop" or "claude-code"?');
	});

	it('imports a pasted config whose servers then serve their tools', async () => {
		const home = clientHome(() => false);
		const desktop = home.file('~/.config/Claude/claude_desktop_config.json');
		fs.mkdirSync(path.dirname(desktop), {recursive: true});
		fs.writeFileSync(
			desktop,
			JSON.stringify({
				globalShortcut: 'Ctrl+Space',
				mcpServers: {
					'everything.server': {command: process.execPath, args: [everythingPath, 'stdio'], alwaysAllow: ['echo']},
					'github.com/acme/fixture': {command: process.execPath, args: [fixturePath, '--mode', 'normal']},
				},
			}),
		);
		const config = path.join(home.root, 'hangar.json');
		const run = await hangar(home, ['import', 'claude-desktop', '--config', config]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain('Added 2 servers');

		// In the sample home, so its state goes to the sample's state dir: the config import wrote names none.
		const served = await startHangar(config, {env: home.env});
		// On a first run the upstreams' tools arrive once each has been started to list them.
		const names = await waitFor(
			async () => {
				const listed = (await served.client.listTools()).tools.map(tool => tool.name);
				return listed.includes('everything-server__echo') && listed.includes('fixture__echo') ? listed : undefined;
			},
			'both imported upstreams to list their tools',
			30_000,
			200,
		);
		expect(names.filter(name => name.startsWith('github.com'))).toEqual([]);
		const result = await served.client.callTool({name: 'fixture__echo', arguments: {message: 'imported'}});
		expect(result.content).toEqual([{type: 'text', text: 'imported'}]);
	});
});

/** Where setup writes in each client's file, and the rest of the sample home it needs. */
const setupCases: Array<{client: string; at: string; servers: (value: Record<string, unknown>) => unknown}> = [
	{client: 'claude-desktop', at: '~/.config/Claude/claude_desktop_config.json', servers: value => value['mcpServers']},
	{client: 'claude-code', at: '~/.claude.json', servers: value => value['mcpServers']},
	{client: 'cursor', at: '~/.cursor/mcp.json', servers: value => value['mcpServers']},
	{client: 'vscode', at: '~/.config/Code/User/settings.json', servers: value => (value['mcp'] as Record<string, unknown>)['servers']},
	{client: 'windsurf', at: '~/.codeium/windsurf/mcp_config.json', servers: value => value['mcpServers']},
	{client: 'cline', at: '~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json', servers: value => value['mcpServers']},
	{client: 'gemini', at: '~/.gemini/settings.json', servers: value => value['mcpServers']},
	{client: 'codex', at: '~/.codex/config.toml', servers: value => value['mcp_servers']},
];

describe('mcp-hangar setup', () => {
	it('imports two entries of one command with different tokens as two upstreams, and setup then keeps both', async () => {
		const home = clientHome();
		const file = home.file('~/.cursor/mcp.json');
		const github = {command: 'npx', args: ['-y', '@modelcontextprotocol/server-github']};
		fs.writeFileSync(
			file,
			`${JSON.stringify({mcpServers: {'github-work': {...github, env: {GITHUB_TOKEN: 'work-SECRET'}}, 'github-personal': {...github, env: {GITHUB_TOKEN: 'personal-SECRET'}}}}, null, 2)}\n`,
		);
		const config = path.join(home.root, 'hangar.json');
		const imported = await hangar(home, ['import', 'cursor', '--config', config]);
		expect(imported.code).toBe(0);
		expect(imported.stdout).not.toMatch(secretMarker);
		const servers = readJson(config)['mcpServers'] as Record<string, {env?: Record<string, string>}>;
		expect(servers['github-work']?.env).toEqual({GITHUB_TOKEN: 'work-SECRET'});
		expect(servers['github-personal']?.env).toEqual({GITHUB_TOKEN: 'personal-SECRET'});

		const setup = await hangar(home, ['setup', 'cursor', '--config', config]);
		expect(setup.code).toBe(0);
		expect(Object.keys(readJson(config)['mcpServers'] as object)).toEqual(expect.arrayContaining(['github-work', 'github-personal']));

		// A client entry that hangar's config launches differently is not "in hangar's config": setup refuses to drop it.
		fs.writeFileSync(file, `${JSON.stringify({mcpServers: {'github-other': {...github, env: {GITHUB_TOKEN: 'other-SECRET'}}}}, null, 2)}\n`);
		const refused = await hangar(home, ['setup', 'cursor', '--config', config]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain('1 of its servers is not in hangar\'s config');
		expect(refused.stderr).toContain('  github-other\n');
	});

	it('refuses to drop servers hangar does not have yet, and says to import them first', async () => {
		const home = clientHome();
		const config = path.join(home.root, 'hangar.json');
		const missingConfig = await hangar(home, ['setup', 'cursor', '--config', config]);
		expect(missingConfig.code).toBe(1);
		expect(missingConfig.stderr).toContain(`hangar's config ${config} does not exist yet. Run ${self} import cursor --config ${config} first`);

		fs.writeFileSync(config, '{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}\n');
		const before = fs.readFileSync(home.file('~/.cursor/mcp.json'));
		const refused = await hangar(home, ['setup', 'cursor', '--config', config]);
		expect(refused.code).toBe(1);
		// Cursor's memory sets MEMORY_FILE_PATH, hangar's does not: it launches differently, so it is not covered.
		expect(refused.stderr).toContain('not changing ~/.cursor/mcp.json: 3 of its servers are not in hangar\'s config');
		expect(refused.stderr).toContain('  memory\n  context7\n  notion\n');
		expect(refused.stderr).toContain(`Run ${self} import cursor --config ${config} first`);
		expect(fs.readFileSync(home.file('~/.cursor/mcp.json'))).toEqual(before);

		// An entry that cannot be imported is named with the reason; nothing is dropped silently.
		await hangar(home, ['import', 'all', '--config', config]);
		const unusable = await hangar(home, ['setup', 'windsurf', '--config', config]);
		expect(unusable.code).toBe(1);
		expect(unusable.stderr).toContain('half-written: cannot be imported (it has neither "command" nor a URL); fix or remove it in ~/.codeium/windsurf/mcp_config.json, then setup again');
	});

	it('names an entry import refuses with the reason, rather than sending the person back to import it', async () => {
		const home = clientHome(() => false);
		const config = path.join(home.root, 'hangar.json');
		const file = home.file('~/.cursor/mcp.json');
		fs.mkdirSync(path.dirname(file), {recursive: true});
		const local = {command: 'python', args: ['${workspaceFolder}/server.py']};
		fs.writeFileSync(file, `${JSON.stringify({mcpServers: {memory: {command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory']}, 'local-py': local}}, null, 2)}\n`);
		const imported = await hangar(home, ['import', 'cursor', '--config', config]);
		expect(imported.stdout).toContain('! local-py');

		const refused = await hangar(home, ['setup', 'cursor', '--config', config]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain('  local-py: import refuses it (args[0]: "${workspaceFolder}" is VS Code\'s own variable');
		expect(refused.stderr).toContain('fix or remove it in ~/.cursor/mcp.json, then setup again');
		// Importing again would change nothing: the advice is not to.
		expect(refused.stderr).not.toContain('import cursor');
	});

	it.each(setupCases)('$client: replaces its servers with one hangar entry, keeps the rest, and --undo restores the file byte for byte', async ({client, at, servers}) => {
		const home = clientHome();
		const file = home.file(at);
		if (client === 'windsurf') {
			// Its sample has an entry no client can run; setup refuses it (see above), so this copy goes without.
			const value = readJson(file);
			delete (value['mcpServers'] as Record<string, unknown>)['half-written'];
			fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
		}

		fs.chmodSync(file, 0o640);
		const original = fs.readFileSync(file);
		const config = path.join(home.root, 'hangar.json');
		expect((await hangar(home, ['import', 'all', '--config', config])).code).toBe(0);

		const run = await hangar(home, ['setup', client, '--config', config]);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/^Backed up .* to .*\.hangar-backup-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.\n/);
		// The state dir the person's environment resolves is pinned: a client that trims its environment reaches the same supervisor.
		const expected = {command: process.execPath, args: [path.join(root, 'dist', 'cli.js'), '--stdio', '--config', config, '--state-dir', home.env['MCP_HANGAR_STATE_DIR']]};
		const text = fs.readFileSync(file, 'utf8');
		const value = (client === 'codex' ? parseToml(text) : readJson(file)) as Record<string, unknown>;
		expect(servers(value)).toEqual({hangar: client === 'vscode' ? {type: 'stdio', ...expected} : client === 'claude-code' ? {type: 'stdio', ...expected, env: {}} : expected});
		expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('640');

		// Everything else in the file is still there.
		const originalValue = (client === 'codex' ? parseToml(original.toString()) : parseJson(original.toString(), {jsonc: true})) as Record<string, unknown>;
		for (const key of Object.keys(originalValue).filter(name => !['mcpServers', 'mcp_servers', 'mcp', 'projects'].includes(name))) {
			expect(value[key], key).toEqual(originalValue[key]);
		}

		if (client === 'claude-code') {
			const projects = value['projects'] as Record<string, Record<string, unknown>>;
			expect(projects['/home/ada/src/shop']!['mcpServers']).toEqual({});
			expect(projects['/home/ada/src/shop']!['history']).toEqual([{display: 'fix the cart', pastedContents: {}}]);
		}

		if (client === 'vscode') expect(text).toContain('// MCP servers, as VS Code 1.99 kept them in settings.');
		if (client === 'codex') expect(text).toContain('# Notifications go last\n[tui]\nnotifications = true\n');

		const again = await hangar(home, ['setup', client, '--config', config]);
		expect(again.stdout).toContain('already launches hangar');

		const undo = await hangar(home, ['setup', client, '--undo']);
		expect(undo.stderr).toBe('');
		expect(undo.code).toBe(0);
		expect(fs.readFileSync(file)).toEqual(original);
		expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('640');
		expect(fs.readdirSync(path.dirname(file)).filter(name => name.includes('hangar-backup'))).toEqual([]);

		const nothing = await hangar(home, ['setup', client, '--undo']);
		expect(nothing.code).toBe(1);
		expect(nothing.stderr).toContain('no backup of');
	});

	it('vscode with a settings.json that does not parse: refused in a sentence naming the file, no stack trace', async () => {
		const home = clientHome(entry => entry.client === 'vscode');
		fs.writeFileSync(home.file('~/.config/Code/User/mcp.json'), '{"servers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}\n');
		fs.writeFileSync(home.file('~/.config/Code/User/settings.json'), '{"editor.fontSize": 14,,}\n');
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, '{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}\n');
		const run = await hangar(home, ['setup', 'vscode', '--dry-run', '--config', config]);
		expect(run.code).toBe(1);
		expect(run.stderr).toMatch(/settings\.json: .*Fix that file \(or move it away\), then run the command again\.\n$/);
		expect(run.stderr).not.toContain('    at ');
	});

	it('vscode with servers in both user files: hangar goes in mcp.json, settings.json\'s servers go too (its other settings kept), and --undo restores both byte for byte', async () => {
		const home = clientHome(entry => entry.client === 'vscode');
		const mcpJson = home.file('~/.config/Code/User/mcp.json');
		const settingsJson = home.file('~/.config/Code/User/settings.json');
		fs.writeFileSync(mcpJson, '{\n  // mine\n  "servers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}\n}\n');
		const originals = [fs.readFileSync(mcpJson), fs.readFileSync(settingsJson)];
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, '{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}\n');

		// settings.json's "time" is not in hangar's config yet: neither file changes.
		const refused = await hangar(home, ['setup', 'vscode', '--config', config]);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toContain('not changing ~/.config/Code/User/mcp.json and ~/.config/Code/User/settings.json: 1 of its servers is not in hangar\'s config');
		expect(refused.stderr).toContain('  time\n');
		expect([fs.readFileSync(mcpJson), fs.readFileSync(settingsJson)]).toEqual(originals);

		expect((await hangar(home, ['import', 'vscode', '--config', config])).code).toBe(0);
		const run = await hangar(home, ['setup', 'vscode', '--config', config]);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/^Backed up ~\/\.config\/Code\/User\/mcp\.json to .*\n^Backed up ~\/\.config\/Code\/User\/settings\.json to .*$/m);
		expect(run.stdout).toContain('instead of its 2 servers (memory, time)');
		expect(run.stdout).toContain('Also removed the servers of:\n  ~/.config/Code/User/settings.json: time (VS Code runs them beside ~/.config/Code/User/mcp.json\'s)\n');
		expect(Object.keys(readJson(mcpJson)['servers'] as object)).toEqual(['hangar']);
		const settings = readJson(settingsJson);
		expect(settings['mcp']).toEqual({inputs: [], servers: {}});
		expect(settings['workbench.colorTheme']).toBe('Default Dark Modern');
		expect(fs.readFileSync(settingsJson, 'utf8')).toContain('// MCP servers, as VS Code 1.99 kept them in settings.');
		expect((await hangar(home, ['setup', 'vscode', '--config', config])).stdout).toContain('already launches hangar');

		const undo = await hangar(home, ['setup', 'vscode', '--undo']);
		expect(undo.code).toBe(0);
		expect(undo.stdout).toContain('Restored ~/.config/Code/User/mcp.json from');
		expect(undo.stdout).toContain('Restored ~/.config/Code/User/settings.json from');
		expect([fs.readFileSync(mcpJson), fs.readFileSync(settingsJson)]).toEqual(originals);
		expect(fs.readdirSync(path.dirname(mcpJson)).filter(name => name.includes('hangar-backup'))).toEqual([]);
	});

	it('ends quietly when its reader stops reading (| head): no EPIPE stack, the exit it would have had, the client file written whole', async () => {
		const home = clientHome();
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, '{"mcpServers": {}}\n');
		expect(await stdoutClosed(home, ['import', '--config', config])).toEqual({code: 0, stderr: ''});
		expect(await stdoutClosed(home, ['--help'])).toEqual({code: 0, stderr: ''});
		// Both write a file, which is written whole.
		expect(await stdoutClosed(home, ['import', 'claude-desktop', '--config', config])).toEqual({code: 0, stderr: ''});
		expect(Object.keys(readJson(config)['mcpServers'] as Record<string, unknown>)).toHaveLength(4);

		const file = home.file('~/.config/Claude/claude_desktop_config.json');
		const set = await stdoutClosed(home, ['setup', 'claude-desktop', '--config', config]);
		expect(set).toEqual({code: 0, stderr: ''});
		expect(Object.keys(readJson(file)['mcpServers'] as Record<string, unknown>)).toEqual(['hangar']);
		expect((await hangar(home, ['setup', 'claude-desktop', '--undo'])).code).toBe(0);
	});

	it('writes a command that runs from a client\'s bare environment, and creates (then removes) a file the client did not have', async () => {
		const home = clientHome(() => false);
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, '{"mcpServers": {}}\n');
		const file = home.file('~/.config/Claude/claude_desktop_config.json');
		const run = await hangar(home, ['setup', 'claude-desktop', '--config', config]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain('Claude Desktop now launches hangar (it had no servers of its own)');
		const entry = (readJson(file)['mcpServers'] as Record<string, {command: string; args: string[]}>)['hangar']!;
		expect(path.isAbsolute(entry.command)).toBe(true);

		// A desktop app's PATH has no node in it: the command must not need one.
		const launched = await new Promise<Run>(resolve => {
			execFile(entry.command, [...entry.args.filter(arg => arg !== '--stdio'), '--check-config'], {env: {PATH: '/nonexistent', HOME: home.home}, cwd: '/'}, (error, stdout, stderr) => {
				resolve({code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr});
			});
		});
		expect(launched).toMatchObject({code: 0, stdout: `${config}: OK, but it has no upstreams yet: add one under "mcpServers" (\`mcp-hangar add --help\`), or import your clients' servers (\`mcp-hangar import --help\`)\n`});

		const undo = await hangar(home, ['setup', 'claude-desktop', '--undo']);
		expect(undo.stdout).toContain('it did not exist before setup');
		expect(fs.existsSync(file)).toBe(false);
	});
});

describe('mcp-hangar add and remove', () => {
	const original = '{\n\t"hangar": {"exposure": "search"},\n\t"mcpServers": {\n\t\t"a": {"command": "x", "args": ["1"]}\n\t},\n\t"$schema": "s"\n}\n';

	it('add writes one entry in the file\'s own style and leaves the rest as written', async () => {
		const home = clientHome(() => false);
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, original, {mode: 0o640});
		const run = await hangar(home, ['add', 'memory', '--env', 'MEMORY_FILE_PATH=/tmp/m.jsonl', '--env', 'TOKEN=abcSECRETdef', '--config', config, '--', 'npx', '-y', '@modelcontextprotocol/server-memory', '--flag']);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		expect(run.stdout).toBe(`Added "memory" to ${config}: npx -y @modelcontextprotocol/server-memory --flag  env: MEMORY_FILE_PATH, TOKEN\n`);
		expect(fs.readFileSync(config, 'utf8')).toBe(
			'{\n\t"hangar": {"exposure": "search"},\n\t"mcpServers": {\n\t\t"a": {"command": "x", "args": ["1"]},\n\t\t"memory": {\n\t\t\t"command": "npx",\n\t\t\t"args": [\n\t\t\t\t"-y",\n\t\t\t\t"@modelcontextprotocol/server-memory",\n\t\t\t\t"--flag"\n\t\t\t],\n\t\t\t"env": {\n\t\t\t\t"MEMORY_FILE_PATH": "/tmp/m.jsonl",\n\t\t\t\t"TOKEN": "abcSECRETdef"\n\t\t\t}\n\t\t}\n\t},\n\t"$schema": "s"\n}\n',
		);
		expect((fs.statSync(config).mode & 0o777).toString(8)).toBe('640');

		const remote = await hangar(home, ['add', 'docs', '--url', 'https://docs.example.com/mcp', '--header', 'Authorization: Bearer ${DOCS_TOKEN}', '--config', config]);
		expect(remote.stdout).toBe(`Added "docs" to ${config}: https://docs.example.com/mcp  headers: Authorization\n`);
		expect((readJson(config)['mcpServers'] as Record<string, unknown>)['docs']).toEqual({url: 'https://docs.example.com/mcp', headers: {Authorization: 'Bearer ${DOCS_TOKEN}'}});

		const removed = await hangar(home, ['remove', 'memory', '--config', config]);
		expect(removed.stdout).toBe(`Removed "memory" from ${config}.\n`);
		expect(await hangar(home, ['remove', 'docs', '--config', config])).toMatchObject({code: 0});
		expect(fs.readFileSync(config, 'utf8')).toBe(original);
	});

	it('add writes a command it cannot find here, or a value the shell emptied, and warns about each', async () => {
		const home = clientHome(() => false);
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, original);
		const missing = await hangar(home, ['add', 'nowhere', '--config', config, '--', 'surely-not-a-command-xyz', '--port', '1']);
		expect(missing.code).toBe(0);
		expect(missing.stdout).toContain('Added "nowhere"');
		expect(missing.stderr).toMatch(/^warning: "nowhere": command "surely-not-a-command-xyz" was not found on PATH \(searched: .*\)\. Check the spelling/);
		expect(missing.stderr).toContain('the client that starts hangar may have another PATH');

		// What `--header "Authorization: Bearer ${TOKEN}"` and `--env KEY="$KEY"` leave when the shell has no such variable.
		const emptied = await hangar(home, ['add', 'docs', '--url', 'https://docs.example.com/mcp', '--header', 'Authorization: Bearer', '--config', config]);
		expect(emptied.code).toBe(0);
		expect(emptied.stderr).toBe('warning: "docs": header Authorization is "Bearer" with no token after it. A ${VAR} in double quotes is expanded by the shell before hangar sees it: write it in single quotes (\'Authorization: Bearer ${TOKEN}\'), or edit the config file.\n');
		const empty = await hangar(home, ['add', 'mem', '--env', 'API_KEY=', '--config', config, '--', 'npx', 'x']);
		expect(empty.stderr).toBe('warning: "mem": env API_KEY is empty. A ${VAR} in double quotes is expanded by the shell before hangar sees it: write it in single quotes (\'API_KEY=${API_KEY}\'), or edit the config file.\n');
	});

	it('refuses a taken name, a bad name, a missing or doubled command and an invalid result, writing nothing', async () => {
		const home = clientHome(() => false);
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, original);
		const refusals: Array<[string[], number, string]> = [
			[['add', 'a', '--', 'y'], 1, `cannot add "a": ${config} already has a server of that name. Pick another name, or run ${self} remove a --config ${config} first`],
			[['add', 'my.server', '--', 'y'], 2, 'bad server name "my.server": expected 1-32 letters, digits, "-" or single "_"'],
			[['add', 'b'], 2, '"add b" needs a command after -- (e.g. mcp-hangar add b -- npx -y @modelcontextprotocol/server-memory) or --url URL'],
			[['add', 'b', '--url', 'https://x.example/mcp', '--', 'y'], 2, 'takes either --url or a command after --, not both'],
			[['add', 'b', '--env', 'NOVALUE', '--', 'y'], 2, '--env "NOVALUE" is not KEY=VALUE'],
			[['add', 'b', '--header', 'x', '--url', 'https://x.example/mcp'], 2, '--header "x" is not "Name: value"'],
			[['add', 'b', '--url', 'not a url'], 2, '"add b": the entry these arguments make is not usable: url: expected an http(s) URL. Nothing was written'],
			[['remove', 'aa'], 1, `cannot remove "aa": ${config} has no server of that name. Did you mean "a"? Its servers: a.`],
			[['remove'], 2, '"remove" needs one NAME'],
		];
		for (const [args, code, message] of refusals) {
			// --config before "--": after it, it would be part of the command.
			const run = await hangar(home, [...args.slice(0, 2), '--config', config, ...args.slice(2)]);
			expect(run.code, args.join(' ')).toBe(code);
			expect(run.stderr, args.join(' ')).toContain(message);
		}

		expect(fs.readFileSync(config, 'utf8')).toBe(original);
		expect(fs.readdirSync(home.root).filter(name => name.endsWith('.tmp'))).toEqual([]);
	});

	it('edits a config with an invalid entry, keeping that entry as written, and removes it when asked; a file invalid as a whole is refused', async () => {
		const home = clientHome(() => false);
		const config = path.join(home.root, 'hangar.json');
		fs.writeFileSync(config, '{"mcpServers": {"a": {"comand": "x"}, "c": {"command": "z"}}}');
		// Hangar runs the other entries of such a file: an editor does not refuse them either.
		const added = await hangar(home, ['add', 'b', '--config', config, '--', 'y']);
		expect(added.code, added.stderr).toBe(0);
		expect(JSON.parse(fs.readFileSync(config, 'utf8'))).toEqual({mcpServers: {a: {comand: 'x'}, c: {command: 'z'}, b: {command: 'y'}}});
		expect(await hangar(home, ['remove', 'c', '--config', config])).toMatchObject({code: 0});
		expect(JSON.parse(fs.readFileSync(config, 'utf8'))).toEqual({mcpServers: {a: {comand: 'x'}, b: {command: 'y'}}});
		const removed = await hangar(home, ['remove', 'a', '--config', config]);
		expect(removed).toMatchObject({code: 0, stdout: `Removed "a" from ${config}.\n`});
		expect(JSON.parse(fs.readFileSync(config, 'utf8'))).toEqual({mcpServers: {b: {command: 'y'}}});

		// A setting hangar does not know: hangar runs the file with it ignored (as status and --stdio do), so the edit is made, with a warning.
		fs.writeFileSync(config, '{"hangar": {"bogus": 1}, "mcpServers": {}}');
		const warned = await hangar(home, ['add', 'b', '--config', config, '--', 'y']);
		expect(warned.code, warned.stderr).toBe(0);
		expect(warned.stderr).toContain(`warning: ${config}: $.hangar.bogus: unknown setting "bogus", ignored`);
		expect(JSON.parse(fs.readFileSync(config, 'utf8'))).toEqual({hangar: {bogus: 1}, mcpServers: {b: {command: 'y'}}});
		const check = await hangar(home, ['--check-config', '--config', config]);
		expect(check.code).toBe(1);
		expect(check.stderr).toContain('Until then hangar runs this file with each of those settings ignored or at its default.');

		// Invalid as a whole (not a config at all): fixing it comes first, and it says what is wrong.
		fs.writeFileSync(config, '{"hangar": {}}');
		const refused = await hangar(home, ['add', 'b', '--config', config, '--', 'y']);
		expect(refused.code).toBe(1);
		expect(fs.readFileSync(config, 'utf8')).toBe('{"hangar": {}}');
	});
});

describe('the CLI as a good citizen', () => {
	const home = () => clientHome(() => false);

	it.each(['tui', 'serve', 'status', 'call', 'approve', 'quarantine', 'import', 'setup', 'add', 'remove'])('%s: COMMAND --help, -h and help COMMAND print its help with examples and exit 0', async command => {
		const where = home();
		const runs = await Promise.all([hangar(where, [command, '--help']), hangar(where, [command, '-h']), hangar(where, ['help', command])]);
		for (const run of runs) {
			expect(run.stderr).toBe('');
			expect(run.code).toBe(0);
			expect(run.stdout).toMatch(new RegExp(`^Usage\\n  \\$ mcp-hangar ${command}`));
			expect(run.stdout).toContain('\nExamples\n  $ ');
		}

		expect(runs[1]!.stdout).toBe(runs[0]!.stdout);
		expect(runs[2]!.stdout).toBe(runs[0]!.stdout);
	});

	it('--help and -h alone print the overview and exit 0; no arguments print it to stderr and exit 2', async () => {
		const where = home();
		for (const flag of ['--help', '-h']) {
			const run = await hangar(where, [flag]);
			expect(run.code).toBe(0);
			expect(run.stdout).toContain('$ mcp-hangar import [CLIENT|all|FILE] [--dry-run] [--config PATH]');
			expect(run.stdout).toContain('Run mcp-hangar help COMMAND');
		}

		const bare = await hangar(where, []);
		expect(bare.code).toBe(2);
		expect(bare.stdout).toBe('');
		expect(bare.stderr).toContain('Usage');
	});

	it('names the closest flag or command to a typo and exits 2', async () => {
		const where = home();
		expect(await hangar(where, ['status', '--conifg', 'x.json'])).toMatchObject({
			code: 2,
			stdout: '',
			stderr: `mcp-hangar: unknown flag --conifg. Did you mean --config? Run ${self} help status for its usage and examples.\n`,
		});
		expect(await hangar(where, ['stauts'])).toMatchObject({code: 2, stderr: `mcp-hangar: unknown command "stauts". Did you mean "status"? Run ${self} help for the commands.\n`});
		expect((await hangar(where, ['--stdio', '-x'])).stderr).toContain('unknown flag -x');
		expect((await hangar(where, ['help', 'imprt'])).stderr).toContain('no help for "imprt": not a command. Did you mean "import"?');
		expect((await hangar(where, ['status', '--dry-run'])).stderr).toContain('--dry-run only applies to "import" and "setup"');
		expect((await hangar(where, ['status', '--', 'x'])).stderr).toContain('"--" only applies to "add"');
	});

	it('says a bad flag value in one line and exits 2: a log level that does not exist, a flag given twice or with no value', async () => {
		const where = home();
		const levels = 'use one of debug, info, warn, error, silent';
		const cases: Array<[string[], string]> = [
			[['status', '--log-level', 'loud'], `--log-level "loud" is not a log level: ${levels}. Run ${self} help status for its usage and examples.`],
			[['tui', '--log-level', 'INFO'], `--log-level "INFO" is not a log level: ${levels}. Run ${self} help tui for`],
			[['status', '-c', 'a.json', '-c', 'b.json'], `--config was given more than once: it takes one value. Run ${self} help status for`],
			// With no value, --config read as "" was the current directory ("cannot read the file (EISDIR)"), and --port was dropped (8080).
			[['status', '--config'], '--config needs a value: --config, -c PATH.'],
			[['status', '--config', '--json'], '--config needs a value: --config, -c PATH.'],
			[['serve', '--http', '--port'], '--port needs a value: --port N.'],
			[['serve', '--http', '--port='], '--port needs a value: --port N.'],
		];
		for (const [args, message] of cases) {
			const run = await hangar(where, args);
			expect(run, args.join(' ')).toMatchObject({code: 2, stdout: ''});
			expect(run.stderr, args.join(' ')).toContain(`mcp-hangar: ${message}`);
			expect(run.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
		}

		// --stdio: stdout is the protocol's, so its usage errors go to stderr alone.
		const stdio = await hangar(where, ['--stdio', '--log-level', 'verbose']);
		expect(stdio).toMatchObject({code: 2, stdout: '', stderr: `mcp-hangar: --log-level "verbose" is not a log level: ${levels}. Run ${self} help for the commands.\n`});
	});

	it('--version prints the version from package.json', async () => {
		const {version} = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {version: string};
		expect(await hangar(home(), ['--version'])).toEqual({code: 0, stdout: `${version}\n`, stderr: ''});
	});
});
