/**
 * Tracing off costs nothing to load (issue 29): the built hangar, run with
 * a module-load hook (`node --import`, `module.register`) that writes down
 * every module it loads, serves a tool call with no OTEL_* variable set and
 * loads no OpenTelemetry module at all; the same run with an OTLP endpoint
 * set loads the SDK, so the hook does see them when they load.
 */
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {describe, expect, it} from 'vitest';
import {cliPath, fixture, spawnEnv, tempDir, waitFor, writeConfig} from '../support/hangar.js';

/** The URLs of the modules a run of the built hangar loaded, after a tool call through it. */
async function modulesLoaded(otel: Record<string, string>): Promise<string[]> {
	const dir = tempDir('hangar-modules-');
	const list = path.join(dir, 'modules.txt');
	const hooks = path.join(dir, 'hooks.mjs');
	fs.writeFileSync(hooks, `import fs from 'node:fs';\nexport async function load(url, context, next) {\n\tfs.appendFileSync(${JSON.stringify(list)}, url + '\\n');\n\treturn next(url, context);\n}\n`);
	const register = path.join(dir, 'register.mjs');
	fs.writeFileSync(register, `import {register} from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
	const config = writeConfig(dir, {fx: fixture('normal', [], {lazy: false})});
	// Only this test's OTEL_* settings: none inherited from the shell running the tests.
	const env = Object.fromEntries(Object.entries(spawnEnv(otel)).filter(([key]) => !key.startsWith('OTEL_') || key in otel));
	const transport = new StdioClientTransport({command: process.execPath, args: ['--import', pathToFileURL(register).href, cliPath, '--stdio', '--standalone', '--config', config], env, stderr: 'pipe'});
	const client = new Client({name: 'modules-test', version: '1.0.0'});
	await client.connect(transport);
	try {
		await waitFor(async () => (await client.listTools()).tools.some(tool => tool.name === 'fx__echo'), 'fx to list its tools');
		const result = await client.callTool({name: 'fx__echo', arguments: {message: 'traced?'}});
		expect(result.isError).toBeFalsy();
	} finally {
		await client.close();
	}

	return fs.readFileSync(list, 'utf8').split('\n').filter(line => line !== '');
}

describe('tracing off', () => {
	it('loads no OpenTelemetry module when no OTEL_* variable asks for traces, and the SDK when one does', async () => {
		// `--stdio --standalone` runs from dist/bundle/ (scripts/bundle.js), where tracing.ts is a chunk of its own.
		const tracing = (url: string) => /\/(observe\/tracing|bundle\/tracing-[A-Z\d]+)\.js$/.test(url);
		const off = await modulesLoaded({});
		// The hook saw hangar's own modules and the MCP SDK's: it is on.
		expect(off.some(url => url.endsWith('/dist/bundle/quick-main.js'))).toBe(true);
		expect(off.some(url => url.includes('/node_modules/@modelcontextprotocol/'))).toBe(true);
		expect(off.filter(url => url.includes('@opentelemetry') || tracing(url))).toEqual([]);

		const on = await modulesLoaded({OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9'});
		expect(on.some(url => url.includes('@opentelemetry/sdk-trace'))).toBe(true);
		expect(on.some(tracing)).toBe(true);
	});
});
