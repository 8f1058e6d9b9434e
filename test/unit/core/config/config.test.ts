import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ConfigError, defaults, maxSeconds, parseConfig, type StdioLaunch} from '../../../../source/core/config/config.js';

/** A variable name no environment sets. */
const unset = 'HANGAR_TEST_SURELY_UNSET_VARIABLE';

const server = {command: 'node', args: ['server.js']};

describe('parseConfig', () => {
	const file = path.join(path.sep, 'etc', 'hangar', 'mcp-hangar.json');

	it('takes a server\'s namespace: its name by default, another prefix, or false for none', () => {
		const config = parseConfig({mcpServers: {a: server, b: {...server, namespace: 'bee'}, c: {...server, namespace: false}}}, file);
		expect(config.servers.map(entry => entry.namespace)).toEqual(['a', 'bee', false]);
	});

	it('takes a server\'s instances: shared by default, or per-client, which does not go with lazy false', () => {
		const config = parseConfig({mcpServers: {a: server, b: {...server, instances: 'per-client'}}}, file);
		expect(config.servers.map(entry => entry.instances)).toEqual(['shared', 'per-client']);
		const issuesOf = (servers: Record<string, unknown>): string[] => {
			let thrown: unknown;
			try {
				parseConfig({mcpServers: servers}, file);
			} catch (error) {
				thrown = error;
			}

			expect(thrown).toBeInstanceOf(ConfigError);
			return (thrown as ConfigError).issues.map(issue => `${issue.path}: ${issue.message}`);
		};
		expect(issuesOf({a: {...server, instances: 'each'}})).toEqual([expect.stringMatching(/^\$\.mcpServers\.a\.instances: expected "shared" .* or "per-client"/)]);
		expect(issuesOf({a: {...server, instances: 'per-client', lazy: false}})).toEqual([expect.stringMatching(/^\$\.mcpServers\.a\.lazy: "lazy": false does not apply to a "per-client" server/)]);
	});

	it('refuses a namespace that is not a valid prefix, or one two servers share', () => {
		const issuesOf = (servers: Record<string, unknown>): string[] => {
			let thrown: unknown;
			try {
				parseConfig({mcpServers: servers}, file);
			} catch (error) {
				thrown = error;
			}

			expect(thrown).toBeInstanceOf(ConfigError);
			return (thrown as ConfigError).issues.map(issue => `${issue.path}: ${issue.message}`);
		};

		expect(issuesOf({a: server, d: {...server, namespace: true}})).toEqual([expect.stringMatching(/^\$\.mcpServers\.d\.namespace: expected a prefix string/)]);
		expect(issuesOf({a: server, b: {...server, namespace: 'a'}, c: {...server, namespace: 'x__y'}})).toEqual([
			'$.mcpServers.b.namespace: namespace "a" is already the prefix of server "a"; give one of them another "namespace" (or false for unprefixed names)',
			expect.stringMatching(/^\$\.mcpServers\.c\.namespace: bad namespace "x__y"/),
		]);
	});

	it('fills in every default', () => {
		const config = parseConfig({mcpServers: {x: server}}, file);
		expect(config.path).toBe(file);
		expect(config.hangar).toMatchObject({
			failureThreshold: 3,
			backoffMinMs: 1000,
			backoffMaxMs: 60_000,
			restartBudget: {maxRestarts: 5, windowMs: 60_000},
			healthIntervalMs: defaults.healthIntervalSeconds * 1000,
			pingTimeoutMs: defaults.pingTimeoutSeconds * 1000,
			stopGraceMs: defaults.stopGraceSeconds * 1000,
			maxMessageBytes: defaults.maxMessageBytes,
			logLines: defaults.logLines,
		});
		expect(path.isAbsolute(config.hangar.stateDir)).toBe(true);
		const [x] = config.servers;
		expect(x).toMatchObject({
			name: 'x',
			lazy: true,
			idleTimeoutMs: 300_000,
			callTimeoutMs: 60_000,
			startTimeoutMs: defaults.startTimeoutSeconds * 1000,
			tools: undefined,
			disabled: false,
			quarantined: false,
		});
		expect(x!.launch).toEqual({kind: 'stdio', command: 'node', args: ['server.js'], env: {}, cwd: path.dirname(file)});
	});

	it('lets hangar defaults apply to every server and a server override them', () => {
		const config = parseConfig(
			{
				hangar: {lazy: false, idleTimeoutSeconds: 10, callTimeoutSeconds: 2.5, startTimeoutSeconds: 4},
				mcpServers: {
					a: server,
					b: {...server, lazy: true, idleTimeoutSeconds: 0, callTimeoutSeconds: 1, startTimeoutSeconds: 0.5},
					c: {...server, lazy: true},
					d: {...server, idleTimeoutSeconds: 20},
				},
			},
			file,
		);
		expect(config.servers.map(({name, lazy, idleTimeoutMs, callTimeoutMs, startTimeoutMs}) => ({name, lazy, idleTimeoutMs, callTimeoutMs, startTimeoutMs}))).toEqual([
			// lazy: false servers are idle-stopped only when their own entry sets idleTimeoutSeconds.
			{name: 'a', lazy: false, idleTimeoutMs: 0, callTimeoutMs: 2500, startTimeoutMs: 4000},
			{name: 'b', lazy: true, idleTimeoutMs: 0, callTimeoutMs: 1000, startTimeoutMs: 500},
			{name: 'c', lazy: true, idleTimeoutMs: 10_000, callTimeoutMs: 2500, startTimeoutMs: 4000},
			{name: 'd', lazy: false, idleTimeoutMs: 20_000, callTimeoutMs: 2500, startTimeoutMs: 4000},
		]);
	});

	it('resolves cwd and stateDir relative to the config file', () => {
		const config = parseConfig(
			{hangar: {stateDir: 'state'}, mcpServers: {rel: {...server, cwd: 'servers/rel'}, abs: {...server, cwd: '/opt/abs'}, none: server}},
			file,
		);
		const cwd = (name: string) => (config.servers.find(entry => entry.name === name)!.launch as StdioLaunch).cwd;
		expect(cwd('rel')).toBe(path.join(path.dirname(file), 'servers', 'rel'));
		expect(cwd('abs')).toBe('/opt/abs');
		expect(cwd('none')).toBe(path.dirname(file));
		expect(config.hangar.stateDir).toBe(path.join(path.dirname(file), 'state'));
	});

	it('expands ${VAR:-fallback} when the variable is unset or empty, and ${VAR} when it is set', () => {
		const set = 'HANGAR_TEST_SET_VARIABLE';
		const empty = 'HANGAR_TEST_EMPTY_VARIABLE';
		process.env[set] = 'from-env';
		process.env[empty] = '';
		try {
			const config = parseConfig(
				{
					mcpServers: {
						x: {
							command: 'node',
							args: [`\${${unset}:-fallback}`, `\${${unset}:-}`, `\${${set}}`, `\${${set}:-unused}`, `\${${empty}:-was-empty}`, `a-\${${set}}-b`],
							env: {DIR: '${HANGAR_CONFIG_DIR}', STATE: '${HANGAR_STATE_DIR}/memory.jsonl'},
						},
					},
				},
				file,
				{stateDir: '/var/lib/hangar'},
			);
			const launch = config.servers[0]!.launch as StdioLaunch;
			expect(launch.args).toEqual(['fallback', '', 'from-env', 'from-env', 'was-empty', 'a-from-env-b']);
			expect(launch.env).toEqual({DIR: path.dirname(file), STATE: '/var/lib/hangar/memory.jsonl'});
		} finally {
			delete process.env[set];
			delete process.env[empty];
		}
	});

	it('throws a ConfigError listing every unset variable with its path', () => {
		let thrown: unknown;
		try {
			parseConfig({mcpServers: {x: {command: 'node', args: [`\${${unset}}`, 'ok', `\${${unset}_2}`]}}}, file);
		} catch (error) {
			thrown = error;
		}

		expect(thrown).toBeInstanceOf(ConfigError);
		const error = thrown as ConfigError;
		expect(error.file).toBe(file);
		expect(error.issues.map(issue => issue.path)).toEqual(['$.mcpServers.x.args[0]', '$.mcpServers.x.args[2]']);
		expect(error.message).toContain(`Invalid configuration in ${file}:`);
	});

	it('maps remote server types to their transport and expands their url and headers', () => {
		const config = parseConfig(
			{
				mcpServers: {
					auto: {url: 'https://example.com/mcp'},
					http: {type: 'http', url: 'https://example.com/mcp'},
					streamable: {type: 'streamable-http', url: 'https://example.com/mcp'},
					sse: {type: 'sse', url: 'https://example.com/sse', headers: {Authorization: `Bearer \${${unset}:-anonymous}`}},
				},
			},
			file,
		);
		expect(config.servers.map(entry => entry.launch)).toEqual([
			{kind: 'remote', url: 'https://example.com/mcp', headers: {}, transport: 'auto'},
			{kind: 'remote', url: 'https://example.com/mcp', headers: {}, transport: 'streamable-http'},
			{kind: 'remote', url: 'https://example.com/mcp', headers: {}, transport: 'streamable-http'},
			{kind: 'remote', url: 'https://example.com/sse', headers: {Authorization: 'Bearer anonymous'}, transport: 'sse'},
		]);
	});

	it('accepts the largest duration a timer can hold', () => {
		const config = parseConfig({mcpServers: {x: {...server, callTimeoutSeconds: maxSeconds}}}, file);
		expect(config.servers[0]!.callTimeoutMs).toBe(maxSeconds * 1000);
		expect(config.servers[0]!.callTimeoutMs).toBeLessThanOrEqual(2 ** 31 - 1);
	});
});
