/**
 * import, add and setup run in-process on a temp home: what they print and
 * what they write, for the cases the e2e test (test/e2e/cli-config-files.test.ts)
 * does not lay out in its sample files.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {addVerb} from '../../../source/cli/edit-verbs.js';
import {importVerb} from '../../../source/cli/import-verb.js';
import type {ClientEnvironment} from '../../../source/client-files/client-model.js';
import {parseJson} from '../../../source/client-files/json-text.js';

const roots: string[] = [];
afterEach(() => {
	for (const root of roots.splice(0)) fs.rmSync(root, {recursive: true, force: true});
});

type Home = {root: string; home: string; environment: ClientEnvironment; config: string; write: (relative: string, text: string) => string};

function tempHome(): Home {
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-verbs-')));
	roots.push(root);
	const home = path.join(root, 'home');
	const cwd = path.join(root, 'project');
	fs.mkdirSync(home);
	fs.mkdirSync(cwd);
	const write = (relative: string, text: string) => {
		const file = path.join(root, relative);
		fs.mkdirSync(path.dirname(file), {recursive: true});
		fs.writeFileSync(file, text);
		return file;
	};

	return {root, home, environment: {home, platform: 'linux', env: {XDG_CONFIG_HOME: path.join(home, '.config')}, cwd}, config: path.join(root, 'hangar.json'), write};
}

function captured(): {io: {out: (text: string) => void; err: (text: string) => void}; out: () => string; err: () => string} {
	let out = '';
	let err = '';
	return {io: {out: text => (out += text), err: text => (err += text)}, out: () => out, err: () => err};
}

const servers = (file: string) => (parseJson(fs.readFileSync(file, 'utf8')) as {mcpServers: Record<string, Record<string, unknown>>}).mcpServers;

describe('secrets in what import and add print', () => {
	const secrets = ['S3cretPassw0rd', 'r3dispass', 'm0ngopass', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'sk-abcdef0123456789abcdef', 'xoxb-1234567890-abcdefghij'];

	it('import masks credentials in URLs, arguments and notes, and writes them as they were', () => {
		const home = tempHome();
		const file = home.write(
			'pasted/claude_desktop_config.json',
			JSON.stringify({
				mcpServers: {
					postgres: {command: 'npx', args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://admin:S3cretPassw0rd@db.internal:5432/prod']},
					redis: {command: 'npx', args: ['-y', '@modelcontextprotocol/server-redis', 'redis://:r3dispass@localhost:6379']},
					mongo: {command: 'npx', args: ['-y', 'mongo-mcp', 'mongodb+srv://user:m0ngopass@cluster0.example.net/db']},
					tokarg: {command: 'npx', args: ['-y', 'x-mcp', '--token=ghp_abcdefghijklmnopqrstuvwxyz0123456789']},
					slack: {command: 'npx', args: ['mcp-remote', 'https://mcp.example.com/sse?api_key=sk-abcdef0123456789abcdef', '--header', 'Authorization: Bearer ${SLACK_TOKEN}'], env: {SLACK_TOKEN: 'xoxb-1234567890-abcdefghij'}},
				},
			}),
		);
		for (const dryRun of [true, false]) {
			const run = captured();
			expect(importVerb({source: file, dryRun, config: home.config, environment: home.environment}, run.io)).toBe(0);
			for (const secret of secrets) expect(run.out() + run.err()).not.toContain(secret);
			expect(run.out()).toContain('postgresql://***@db.internal:5432/prod');
			expect(run.out()).toContain('redis://***@localhost:6379');
			expect(run.out()).toContain('mongodb+srv://***@cluster0.example.net/db');
			expect(run.out()).toContain('--token=***');
			expect(run.out()).toContain('https://mcp.example.com/sse?api_key=***');
		}

		const written = servers(home.config);
		expect(written['postgres']!['args']).toEqual(['-y', '@modelcontextprotocol/server-postgres', 'postgresql://admin:S3cretPassw0rd@db.internal:5432/prod']);
		expect(written['slack']).toEqual({url: 'https://mcp.example.com/sse?api_key=sk-abcdef0123456789abcdef', headers: {Authorization: 'Bearer xoxb-1234567890-abcdefghij'}});
	});

	it('add masks a credential in its command line or URL, and writes it as given', () => {
		const home = tempHome();
		const runs = [
			{name: 'pg', command: ['npx', '-y', 'server-postgres', 'postgresql://admin:S3cretPassw0rd@host/db'], url: undefined, shown: 'postgresql://***@host/db'},
			{name: 'u', command: [], url: 'https://mcp.example.com/mcp?api_key=sk-abcdef0123456789abcdef', shown: 'https://mcp.example.com/mcp?api_key=***'},
			{name: 'v', command: [], url: 'https://user:m0ngopass@mcp.example.com/mcp', shown: 'https://***@mcp.example.com/mcp'},
		];
		for (const {name, command, url, shown} of runs) {
			const run = captured();
			expect(addVerb({name, command, env: [], url, headers: [], config: home.config}, run.io)).toBe(0);
			for (const secret of secrets) expect(run.out() + run.err()).not.toContain(secret);
			expect(run.out()).toContain(shown);
		}

		expect(servers(home.config)['pg']!['args']).toEqual(['-y', 'server-postgres', 'postgresql://admin:S3cretPassw0rd@host/db']);
		expect(servers(home.config)['u']!['url']).toBe('https://mcp.example.com/mcp?api_key=sk-abcdef0123456789abcdef');
	});
});

describe('import of a file given by path', () => {
	const filesystem = {command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/alice']};

	it('imports a README\'s bare snippet (no "mcpServers" around it), saying so', () => {
		const home = tempHome();
		const file = home.write('snippet.json', JSON.stringify({filesystem, remote: {url: 'https://mcp.example.com/mcp'}}));
		const run = captured();
		expect(importVerb({source: file, dryRun: false, config: home.config, environment: home.environment}, run.io)).toBe(0);
		expect(run.out()).toContain('note: no "mcpServers" around the servers: read as a bare map of servers');
		expect(servers(home.config)).toEqual({filesystem, remote: {url: 'https://mcp.example.com/mcp'}});

		const again = captured();
		expect(importVerb({source: file, dryRun: false, config: home.config, environment: home.environment}, again.io)).toBe(0);
		expect(again.out()).toContain(`Nothing to add to ${home.config}: of the 2 servers found, 2 already in it.`);
	});

	it('imports both "mcpServers" and VS Code\'s "servers" of one file', () => {
		const home = tempHome();
		const file = home.write('mixed.json', JSON.stringify({mcpServers: {a: {command: 'npx', args: ['-y', 'x']}}, servers: {b: {command: 'npx', args: ['-y', 'y']}}}));
		expect(importVerb({source: file, dryRun: false, config: home.config, environment: home.environment}, captured().io)).toBe(0);
		expect(Object.keys(servers(home.config))).toEqual(['a', 'b']);
	});

	it('says a file with no servers in a form hangar knows is not one, what it holds and what was expected, and writes nothing', () => {
		const home = tempHome();
		const cases: Array<[string, string, string]> = [
			['obj.json', '{}', 'it holds an empty object'],
			['arr.json', '[1,2]', 'it holds an array'],
			['empty.json', '\n', 'the file is empty'],
			['package.json', JSON.stringify({name: 'my-app', version: '1.0.0', scripts: {start: 'node .'}}), 'its keys ("name", "version", "scripts") are neither "mcpServers" nor "servers"'],
			['half.json', JSON.stringify({filesystem, logging: {level: 'debug'}}), 'its keys ("filesystem", "logging")'],
		];
		for (const [name, text, what] of cases) {
			const run = captured();
			expect(importVerb({source: home.write(name, text), dryRun: false, config: home.config, environment: home.environment}, run.io), name).toBe(1);
			expect(run.err(), name).toContain(`holds no MCP servers in a form hangar knows (${what}`);
			expect(run.err(), name).toContain('Expected {"mcpServers": {"NAME": {"command": "npx", "args": [...]}}}');
			expect(run.out(), name).toBe('');
		}

		expect(fs.existsSync(home.config)).toBe(false);
	});

	it('says an empty "mcpServers" has no servers, not that hangar has them all', () => {
		const home = tempHome();
		const run = captured();
		expect(importVerb({source: home.write('none.json', '{"mcpServers": {}}'), dryRun: false, config: home.config, environment: home.environment}, run.io)).toBe(0);
		expect(run.out()).toContain('Nothing to add to');
		expect(run.out()).toContain(': no servers found.');
	});
});
