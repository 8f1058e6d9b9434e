import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ConfigError, defaults, maxSeconds, parseConfig, type StdioLaunch} from '../../../../source/core/config/read-config.js';

/** A variable name no environment sets. */
const unset = 'HANGAR_TEST_SURELY_UNSET_VARIABLE';

const server = {command: 'node', args: ['server.js']};

describe('parseConfig', () => {
	const file = path.join(path.sep, 'etc', 'hangar', 'mcp-hangar.json');

	it('takes a server\'s namespace: its name by default, another prefix, or false for none', () => {
		const config = parseConfig({mcpServers: {a: server, b: {...server, namespace: 'bee'}, c: {...server, namespace: false}}}, file);
		expect(config.servers.map(entry => entry.namespace)).toEqual(['a', 'bee', false]);
	});

	it('takes a server\'s instances: auto by default, shared, or per-client, which does not go with lazy false', () => {
		const config = parseConfig({mcpServers: {a: server, b: {...server, instances: 'per-client'}, c: {...server, instances: 'shared'}}}, file);
		expect(config.servers.map(entry => entry.instances)).toEqual(['auto', 'per-client', 'shared']);
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
		expect(issuesOf({a: {...server, instances: 'each'}})).toEqual([expect.stringMatching(/^\$\.mcpServers\.a\.instances: expected "auto" .* "shared" .* or "per-client"/)]);
		expect(issuesOf({a: {...server, instances: 'per-client', lazy: false}})).toEqual([expect.stringMatching(/^\$\.mcpServers\.a\.lazy: "lazy": false does not apply to a "per-client" server/)]);
	});

	it('makes an entry whose namespace is not a valid prefix, or one another server has, invalid', () => {
		const invalidOf = (servers: Record<string, unknown>): Record<string, string | undefined> =>
			Object.fromEntries(parseConfig({mcpServers: servers}, file).servers.map(entry => [entry.name, entry.invalid]));

		expect(invalidOf({a: server, d: {...server, namespace: true}})).toEqual({a: undefined, d: expect.stringMatching(/^namespace: expected a prefix string/)});
		expect(invalidOf({a: server, b: {...server, namespace: 'a'}, c: {...server, namespace: 'x__y'}})).toEqual({
			a: undefined,
			b: 'namespace: namespace "a" is already the prefix of server "a"; give one of them another "namespace" (or false for unprefixed names)',
			c: expect.stringMatching(/^namespace: bad namespace "x__y"/),
		});
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
		expect(config.servers.map(({launch}) => (launch.kind === 'remote' ? {...launch, auth: undefined} : launch))).toEqual([
			{kind: 'remote', url: 'https://example.com/mcp', headers: {}, transport: 'auto', auth: undefined},
			{kind: 'remote', url: 'https://example.com/mcp', headers: {}, transport: 'streamable-http', auth: undefined},
			{kind: 'remote', url: 'https://example.com/mcp', headers: {}, transport: 'streamable-http', auth: undefined},
			{kind: 'remote', url: 'https://example.com/sse', headers: {Authorization: 'Bearer anonymous'}, transport: 'sse', auth: undefined},
		]);
	});

	it('refuses a url that is not http(s), as its message says (ftp://, file://, a typo of the scheme)', () => {
		for (const url of ['ftp://example.com/mcp', 'file:///tmp/x', 'htps://example.com/mcp', 'localhost:8080/mcp']) {
			let thrown: unknown;
			try {
				parseConfig({mcpServers: {r: {url}}}, file);
			} catch (error) {
				thrown = error;
			}

			expect(thrown, url).toBeInstanceOf(ConfigError);
			expect((thrown as ConfigError).issues.map(issue => `${issue.path}: ${issue.message}`)).toEqual(['$.mcpServers.r.url: expected an http(s) URL']);
		}

	});

	it('expands variables anywhere in a url before checking it (docs/configuration.md, Variables): ${BASE}/mcp, a port, a default', () => {
		process.env['HANGAR_TEST_URL_BASE'] = 'https://mcp.example.com';
		process.env['HANGAR_TEST_URL_PORT'] = '8931';
		try {
			const config = parseConfig(
				{
					mcpServers: {
						base: {url: '${HANGAR_TEST_URL_BASE}/mcp'},
						port: {type: 'sse', url: 'http://127.0.0.1:${HANGAR_TEST_URL_PORT}/sse'},
						fallback: {url: `\${${unset}:-http://127.0.0.1:9}/mcp`},
					},
				},
				file,
			);
			expect(config.servers.map(server => (server.launch.kind === 'remote' ? server.launch.url : server.invalid))).toEqual([
				'https://mcp.example.com/mcp',
				'http://127.0.0.1:8931/sse',
				'http://127.0.0.1:9/mcp',
			]);
			const mixed = parseConfig({mcpServers: {ok: {url: 'https://example.com/mcp'}, ftp: {url: '${HANGAR_TEST_URL_PORT}/mcp'}, unset: {url: `\${${unset}}/mcp`}}}, file);
			expect(mixed.servers.map(server => server.invalid)).toEqual([undefined, 'url: expected an http(s) URL (it is "8931/mcp" with its variables expanded)', expect.stringContaining(`variable \${${unset}} is not set`)]);
		} finally {
			delete process.env['HANGAR_TEST_URL_BASE'];
			delete process.env['HANGAR_TEST_URL_PORT'];
		}
	});

	it('reads a remote server\'s oauth settings, naming the secret\'s variable and never holding its value', () => {
		const config = parseConfig(
			{
				hangar: {stateDir: '/tmp/hangar-state'},
				mcpServers: {
					linear: {url: 'https://mcp.linear.app/mcp', envFile: '/dev/null', oauth: {clientId: 'abc', clientSecretEnv: 'LINEAR_SECRET', scope: 'read'}},
					inline: {url: 'https://example.com/mcp', oauth: {clientId: 'abc', clientSecret: 'shh'}},
				},
			},
			file,
		);
		const [linear, inline] = config.servers;
		expect(linear!.launch.kind === 'remote' && linear!.launch.auth).toEqual({
			store: {kind: 'file', file: '/tmp/hangar-state/oauth-tokens.json'},
			clientId: 'abc',
			clientSecret: {variable: 'LINEAR_SECRET', envFile: '/dev/null'},
			clientMetadataUrl: undefined,
			scope: 'read',
			grant: 'authorization_code',
		});
		expect(inline!.invalid).toContain('a client secret is never written in the config');
		expect(JSON.stringify(config)).not.toContain('shh');
	});

	it('keeps sign-ins in the OS keychain when hangar.tokenStore says so, and refuses a store it does not know', () => {
		const keychain = parseConfig({hangar: {stateDir: '/tmp/hangar-state', tokenStore: 'keychain'}, mcpServers: {linear: {url: 'https://mcp.linear.app/mcp'}}}, file);
		expect(keychain.hangar.tokenStore).toBe('keychain');
		const [linear] = keychain.servers;
		expect(linear!.launch.kind === 'remote' && linear!.launch.auth?.store).toEqual({kind: 'keychain', file: '/tmp/hangar-state/oauth-tokens.json'});
		expect(parseConfig({mcpServers: {}}, file).hangar.tokenStore).toBe('file');
		const wrong = parseConfig({hangar: {tokenStore: 'vault'}, mcpServers: {}}, file);
		expect(wrong.issues.map(issue => issue.message).join('\n')).toContain('expected tokenStore to be "file"');
	});

	it('accepts the largest duration a timer can hold', () => {
		const config = parseConfig({mcpServers: {x: {...server, callTimeoutSeconds: maxSeconds}}}, file);
		expect(config.servers[0]!.callTimeoutMs).toBe(maxSeconds * 1000);
		expect(config.servers[0]!.callTimeoutMs).toBeLessThanOrEqual(2 ** 31 - 1);
	});
});

describe('parseConfig, tolerant of one bad entry', () => {
	const file = path.join(path.sep, 'etc', 'hangar', 'mcp-hangar.json');
	const byName = (config: ReturnType<typeof parseConfig>) => Object.fromEntries(config.servers.map(entry => [entry.name, entry]));

	it('keeps every usable entry and marks each unusable one invalid with its reason', () => {
		const config = parseConfig(
			{
				mcpServers: {
					good: server,
					typo: {...server, comand: 'node'},
					wrong: {command: 'node', args: 'server.js'},
					unset: {command: 'node', env: {TOKEN: `\${${unset}}`}},
					'github.com/owner/repo': server,
				},
			},
			file,
		);
		const servers = byName(config);
		expect(servers['good']!.invalid).toBeUndefined();
		expect(servers['typo']!.invalid).toBe('comand: unknown key "comand" (did you mean "command"?): not a key of hangar\'s, nor one another MCP client is known to write (see the configuration reference, docs/configuration.md)');
		expect(servers['wrong']!.invalid).toBe('args: expected an array of strings');
		expect(servers['unset']!.invalid).toEqual(expect.stringContaining(`env.TOKEN: variable \${${unset}} is not set (in the environment of hangar pid ${process.pid}): set it in this server's "env" or in its "envFile" (read again on mcp-hangar reload), or write \${${unset}:-default}`));
		expect(servers['github.com/owner/repo']!.invalid).toMatch(/^bad server name "github\.com\/owner\/repo": .* rename it, e\.g\. to "repo"$/);
		// Every problem once, in file order, each with its entry.
		expect(config.issues.map(issue => [issue.server, issue.path, issue.cause])).toEqual([
			['typo', '$.mcpServers.typo.comand', undefined],
			['wrong', '$.mcpServers.wrong.args', undefined],
			['unset', '$.mcpServers.unset.env.TOKEN', 'unset-variable'],
			['github.com/owner/repo', '$.mcpServers["github.com/owner/repo"]', undefined],
		]);
	});

	it('throws a ConfigError when no entry is usable, listing every problem', () => {
		let thrown: unknown;
		try {
			parseConfig({mcpServers: {a: {...server, lazzy: true}, b: {command: 5}}}, file);
		} catch (error) {
			thrown = error;
		}

		expect(thrown).toBeInstanceOf(ConfigError);
		expect((thrown as ConfigError).issues.map(issue => issue.path)).toEqual(['$.mcpServers.a.lazzy', '$.mcpServers.b.command']);
	});

	it('understands other clients\' keys that mean something, with a notice saying how', () => {
		const config = parseConfig(
			{
				mcpServers: {
					cline: {...server, timeout: 30, transportType: 'stdio', alwaysAllow: ['x'], autoApprove: []},
					gemini: {httpUrl: 'https://example.com/mcp', timeout: 15_000, trust: true},
					windsurf: {serverUrl: 'https://example.com/sse', type: 'sse', disabledTools: ['delete_*']},
					codex: {...server, enabled: false},
					mcpmu: {...server, deniedTools: ['rm'], excludeTools: ['drop']},
				},
			},
			file,
		);
		const servers = byName(config);
		expect(config.servers.every(entry => entry.invalid === undefined)).toBe(true);
		expect(servers['cline']!.callTimeoutMs).toBe(30_000);
		expect(servers['gemini']).toMatchObject({callTimeoutMs: 15_000, launch: {kind: 'remote', url: 'https://example.com/mcp', transport: 'streamable-http'}});
		expect(servers['windsurf']).toMatchObject({excludeTools: ['delete_*'], launch: {kind: 'remote', url: 'https://example.com/sse', transport: 'sse'}});
		expect(servers['codex']!.disabled).toBe(true);
		expect(servers['mcpmu']!.excludeTools).toEqual(['drop', 'rm']);
		expect(config.issues.every(issue => issue.severity === 'notice')).toBe(true);
		expect(config.issues.map(issue => issue.path)).toContain('$.mcpServers.cline.alwaysAllow');
		expect(config.issues.find(issue => issue.path === '$.mcpServers.gemini.trust')!.message).toMatch(/^"trust" \(Gemini CLI\) is ignored: /);
	});

	it('ignores Claude Desktop\'s top-level keys with a notice, and reports a top-level key nobody knows without refusing the file', () => {
		const config = parseConfig({globalShortcut: 'Ctrl+Space', mcpServer: {}, mcpServers: {x: server}}, file);
		expect(config.servers.map(entry => entry.name)).toEqual(['x']);
		expect(config.issues).toEqual([
			{path: '$.globalShortcut', message: '"globalShortcut" (Claude Desktop) is ignored', severity: 'notice'},
			{path: '$.mcpServer', message: 'unknown top-level key "mcpServer", ignored (did you mean "mcpServers"?) (hangar reads "mcpServers", "hangar" and "$schema")'},
		]);
	});

	it('gives a bad global setting its default and says so', () => {
		const config = parseConfig({hangar: {failureThreshold: 'three', failureTreshold: 2, callTimeoutSeconds: 10}, mcpServers: {x: server}}, file);
		expect(config.hangar.failureThreshold).toBe(defaults.failureThreshold);
		expect(config.hangar.callTimeoutMs).toBe(10_000);
		expect(config.issues.map(issue => issue.path)).toEqual(['$.hangar.failureThreshold', '$.hangar.failureTreshold']);
		expect(config.issues[1]!.message).toContain('did you mean "failureThreshold"?');
	});

	it('takes httpAllowedOrigins as web origins, written as a browser sends them, and refuses one with a path', () => {
		const taken = parseConfig({hangar: {httpAllowedOrigins: ['https://App.Example.com', 'http://localhost:3000/']}, mcpServers: {x: server}}, file);
		expect(taken.hangar.httpAllowedOrigins).toEqual(['https://app.example.com', 'http://localhost:3000']);
		expect(parseConfig({mcpServers: {x: server}}, file).hangar.httpAllowedOrigins).toEqual([]);
		const refused = parseConfig({hangar: {httpAllowedOrigins: ['https://app.example.com/page']}, mcpServers: {x: server}}, file);
		expect(refused.hangar.httpAllowedOrigins).toEqual([]);
		expect(refused.issues.map(issue => [issue.path, issue.message])).toEqual([['$.hangar.httpAllowedOrigins[0]', expect.stringContaining('expected a web origin') as unknown]]);
	});

	it('names the client whose file it looks like when there is no "mcpServers"', () => {
		const message = (raw: unknown) => {
			try {
				parseConfig(raw, file);
			} catch (error) {
				return (error as ConfigError).issues[0]!.message;
			}

			return 'loaded';
		};

		expect(message({servers: {x: server}, inputs: []})).toMatch(/^this looks like a VS Code mcp\.json \("servers" and "inputs"\)/);
		expect(message({mcp_servers: {x: server}})).toMatch(/^this looks like a Codex config/);
		expect(message({context_servers: {}})).toMatch(/^this looks like a Zed settings\.json/);
	});

	it('reads an entry\'s envFile below its env, and makes the entry invalid when the file is missing', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-envfile-'));
		const configFile = path.join(dir, 'mcp-hangar.json');
		fs.writeFileSync(path.join(dir, '.env'), 'A=from-file\nB="two words"\n');
		const config = parseConfig({mcpServers: {x: {...server, envFile: '.env', env: {A: 'from-env'}}, y: {...server, envFile: 'missing.env'}}}, configFile);
		const servers = byName(config);
		expect((servers['x']!.launch as StdioLaunch).env).toEqual({A: 'from-env', B: 'two words'});
		expect(servers['y']!.invalid).toMatch(/^envFile: cannot read the env file .*missing\.env \(ENOENT\)/);
	});

	it('expands an entry\'s ${VAR}s from its envFile too, as the unset variable\'s error advises', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-envfile-'));
		const configFile = path.join(dir, 'mcp-hangar.json');
		const name = 'HANGAR_TEST_ONLY_IN_ENV_FILE';
		fs.writeFileSync(path.join(dir, '.env'), `${name}=/data/memory.jsonl\nTOKEN=t0k\n`);
		const config = parseConfig(
			{
				mcpServers: {
					local: {...server, args: [`--file=\${${name}}`], env: {MEMORY_FILE_PATH: `\${${name}}`}, envFile: '.env'},
					remote: {url: 'https://example.com/mcp', headers: {Authorization: 'Bearer ${TOKEN}'}, envFile: '.env'},
					other: {...server, env: {MEMORY_FILE_PATH: `\${${name}}`}},
				},
			},
			configFile,
		);
		const servers = byName(config);
		expect(servers['local']!.invalid).toBeUndefined();
		expect((servers['local']!.launch as StdioLaunch).args).toEqual(['--file=/data/memory.jsonl']);
		expect((servers['local']!.launch as StdioLaunch).env).toEqual({[name]: '/data/memory.jsonl', TOKEN: 't0k', MEMORY_FILE_PATH: '/data/memory.jsonl'});
		expect(servers['remote']!.invalid).toBeUndefined();
		expect(servers['remote']!.launch).toMatchObject({headers: {Authorization: 'Bearer t0k'}});
		// Another entry's envFile is not this one's environment.
		expect(servers['other']!.invalid).toContain(`variable \${${name}} is not set`);
	});

	it('expands VS Code\'s ${env:VAR} and refuses its ${input:…} prompts', () => {
		process.env['HANGAR_TEST_SET_VARIABLE'] = 'v';
		try {
			const config = parseConfig({mcpServers: {a: {...server, args: ['${env:HANGAR_TEST_SET_VARIABLE}']}, b: {...server, env: {KEY: '${input:api-key}'}}}}, file);
			const servers = byName(config);
			expect((servers['a']!.launch as StdioLaunch).args).toEqual(['v']);
			expect(servers['b']!.invalid).toMatch(/^env\.KEY: "\$\{input:api-key\}" is VS Code's own variable/);
		} finally {
			delete process.env['HANGAR_TEST_SET_VARIABLE'];
		}
	});

	it('suggests the short key for its spelt-out form and its typos ("enviroment": env), and nothing for a word near none', () => {
		const suggestionOf = (key: string): string | undefined => {
			const invalid = byName(parseConfig({mcpServers: {good: server, x: {...server, [key]: {}}}}, file))['x']!.invalid!;
			expect(invalid).toContain(`unknown key "${key}"`);
			return /\(did you mean "([^"]+)"\?\)/.exec(invalid)?.[1];
		};
		const expected: Record<string, string | undefined> = {
			enviroment: 'env',
			environment: 'env',
			enviornment: 'env',
			environement: 'env',
			Environment: 'env',
			environmentVariables: 'env',
			envVars: 'env',
			env_vars: 'env',
			arguments: 'args',
			argument: 'args',
			arguements: 'args',
			cmd: 'command',
			workingDirectory: 'cwd',
			working_dir: 'cwd',
			// Typos of the keys themselves keep their suggestion.
			comand: 'command',
			envFiles: 'envFile',
			heders: 'headers',
			// Near nothing: no guess.
			envelope: undefined,
			argon: undefined,
			commentary: undefined,
			priority: undefined,
		};
		expect(Object.fromEntries(Object.keys(expected).map(key => [key, suggestionOf(key)]))).toEqual(expected);
	});
});
