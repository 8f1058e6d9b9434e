/**
 * Secrets planted in a config (URL userinfo, a secret query value, a header,
 * argument values after secret flags and in KEY=value form, an env value)
 * never appear on any surface: `status`, `hangar_list`, `hangar_details`, an
 * error from a failing start, hangar's log at debug level, and the files in
 * the state dir. The surfaces show masked forms (***) instead.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {closeHangars, fastHangar, fixture, openHangar, rpcError, runCli, statusOf, tempDir, waitFor, writeConfig} from '../support/hangar.js';
import {spawnServe, type Served} from '../support/serve.js';

const planted = {
	urlPassword: 'pl4nted-url-pass',
	queryKey: 'pl4nted-query-key',
	header: 'pl4nted-header-token',
	argToken: 'pl4nted-arg-token',
	argKey: 'pl4nted-arg-key',
	argPassword: 'pl4nted-arg-pass',
	argSecret: 'pl4nted-arg-secret',
	env: 'pl4nted-env-token',
};

/** A local port nothing listens on (the remote upstream's start fails with ECONNREFUSED). */
async function closedPort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
	const {port} = server.address() as net.AddressInfo;
	await new Promise(resolve => server.close(resolve));
	return port;
}

/** Every file under `dir`, as text. */
function filesUnder(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const entry of fs.readdirSync(dir, {withFileTypes: true, recursive: true})) {
		if (!entry.isFile()) continue;
		const file = path.join(entry.parentPath, entry.name);
		out[path.relative(dir, file)] = fs.readFileSync(file, 'utf8');
	}

	return out;
}

let served: Served | undefined;
afterEach(async () => {
	await closeHangars();
	await served?.stop();
	served = undefined;
});

describe('secrets in a config', () => {
	it('are masked on every surface: status, hangar_list, hangar_details, errors, the debug log and the state dir', async () => {
		const dir = tempDir();
		const port = await closedPort();
		const config = writeConfig(
			dir,
			{
				remote: {
					url: `http://planted-user:${planted.urlPassword}@127.0.0.1:${port}/mcp?api_key=${planted.queryKey}&mode=x`,
					headers: {Authorization: `Bearer ${planted.header}`},
					lazy: false,
				},
				fx: fixture('normal', ['--log-args', '--', '--token', planted.argToken, `--api-key=${planted.argKey}`, `DB_PASSWORD=${planted.argPassword}`, '--secret', planted.argSecret], {
					lazy: false,
					env: {API_TOKEN: planted.env},
				}),
			},
			{...fastHangar, restartBudget: {maxRestarts: 1, windowSeconds: 60}},
		);
		const logFile = path.join(dir, 'hangar.log');
		const readLog = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
		({served} = await spawnServe(['serve', '--config', config, '--log-level', 'debug', '--log-file', logFile], {log: readLog, listening: log => /serving 2 upstreams/.test(log) || undefined}));

		// An MCP client, attached through the --stdio bridge.
		const hangar = await openHangar(config, {shared: true});
		await waitFor(async () => (await statusOf(hangar.client, 'fx')).state === 'ready', 'fx to be ready');
		await waitFor(async () => (await statusOf(hangar.client, 'remote')).state === 'dead', 'remote to be dead');

		const surfaces: Record<string, string> = {};
		surfaces['hangar_list'] = JSON.stringify(await hangar.client.callTool({name: 'hangar_list', arguments: {}}));
		for (const server of ['fx', 'remote']) {
			surfaces[`hangar_details ${server}`] = JSON.stringify(await hangar.client.callTool({name: 'hangar_details', arguments: {server}}));
		}

		const failed = await rpcError(hangar.client.callTool({name: 'hangar_call', arguments: {server: 'remote', tool: 'anything'}}));
		surfaces['error of a call to the upstream whose start failed'] = JSON.stringify({message: failed.message, data: failed.data});
		for (const args of [['status'], ['status', '--json'], ['call', 'remote', 'anything']]) {
			const run = await runCli([...args, '--config', config]);
			surfaces[`mcp-hangar ${args.join(' ')}`] = run.stdout + run.stderr;
		}

		await served!.stop();
		served = undefined;
		surfaces['log file (debug)'] = readLog();
		for (const [file, text] of Object.entries(filesUnder(path.join(dir, 'state')))) {
			surfaces[`state dir: ${file}`] = text;
			// What hangar keeps there is for the user who runs it alone.
			expect(fs.statSync(path.join(dir, 'state', file)).mode & 0o777, `mode of ${file}`).toBe(0o600);
		}

		expect(fs.statSync(logFile).mode & 0o777).toBe(0o600);

		for (const [surface, text] of Object.entries(surfaces)) {
			for (const [what, value] of Object.entries(planted)) expect(text, `${what} on ${surface}`).not.toContain(value);
		}

		// Not vacuous: the surfaces do show what the secrets were part of, masked.
		expect(surfaces['hangar_details fx']).toContain(`--token *** --api-key=*** DB_PASSWORD=*** --secret ***`);
		expect(surfaces['hangar_details remote']).toContain('http://***@127.0.0.1');
		expect(surfaces['hangar_details remote']).toContain('api_key=***');
		expect(surfaces['hangar_list']).toContain('cannot connect to http://***@127.0.0.1');
		expect(surfaces['error of a call to the upstream whose start failed']).toContain('upstream \\"remote\\"');
		expect(surfaces['mcp-hangar status']).toContain('remote');
		expect(surfaces['log file (debug)']).toContain('args after --: --token *** --api-key=*** DB_PASSWORD=*** --secret ***');
		expect(surfaces['state dir: state.json']).toContain('"fx"');
	}, 90_000);
});
