#!/usr/bin/env node
/**
 * The client under test of `conformance client --suite auth`: hangar's
 * OAuth client, driven the way a person drives it. The suite runs this with
 * the scenario's MCP server URL as the last argument (and
 * MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_CONTEXT in the environment).
 *
 * 1. A config with one `url` upstream, `conf`, its `oauth` settings from the
 *    scenario's context (a pre-registered client, a client-credentials
 *    machine client, or a Client ID Metadata Document URL).
 * 2. `mcp-hangar auth conf` (the built CLI) signs in; $BROWSER is a script
 *    that fetches the authorization URL following redirects, as a browser
 *    whose person clicks "allow" would (the suite's authorization server
 *    redirects at once).
 * 3. `mcp-hangar --stdio --standalone` with an SDK client: tools/list and a
 *    call of the first tool. When a call comes back "needs sign-in" (a
 *    step-up), the person signs in again, up to a limit, and a new hangar
 *    calls again.
 *
 * Exits 0 when the call went through, 1 otherwise. Plain JavaScript so the
 * suite can start it with `node` (it runs dist/, so build first).
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'dist', 'cli.js');
const url = process.argv.at(-1);
const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';
const context = JSON.parse(process.env['MCP_CONFORMANCE_CONTEXT'] ?? '{}');
/** The suite's CIMD scenario checks for this client_id (its metadata document is not fetched). */
const cimdUrl = 'https://conformance-test.local/client-metadata.json';
/** How often a person signs in again for one call (the suite's scope-retry-limit wants at most 3 authorizations). */
const signInLimit = 3;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangar-conformance-auth-'));
const oauth = {};
if (typeof context.client_id === 'string') oauth.clientId = context.client_id;
if (typeof context.client_secret === 'string') {
	oauth.clientSecretEnv = 'CONFORMANCE_CLIENT_SECRET';
	fs.writeFileSync(path.join(dir, 'conf.env'), `CONFORMANCE_CLIENT_SECRET=${context.client_secret}\n`);
}

if (scenario.startsWith('auth/client-credentials')) oauth.grant = 'client_credentials';
if (scenario === 'auth/basic-cimd') oauth.clientMetadataUrl = cimdUrl;
const entry = {url, oauth, ...(fs.existsSync(path.join(dir, 'conf.env')) ? {envFile: 'conf.env'} : {})};
const config = path.join(dir, 'mcp-hangar.json');
fs.writeFileSync(config, JSON.stringify({hangar: {stateDir: path.join(dir, 'state')}, mcpServers: {conf: entry}}, null, 2));
const browser = path.join(dir, 'browser.mjs');
fs.writeFileSync(browser, `#!${process.execPath}\nawait fetch(process.argv[2], {redirect: 'follow'}).then(response => response.text()).catch(() => {});\n`);
fs.chmodSync(browser, 0o755);
const env = {...process.env, BROWSER: browser};

function signIn() {
	const run = spawnSync(process.execPath, [cli, 'auth', 'conf', '--config', config], {env, encoding: 'utf8', timeout: 100_000});
	process.stderr.write(`auth: exit ${run.status ?? run.error}\n${run.stdout}${run.stderr}`);
	return run.status === 0;
}

async function callOnce() {
	const transport = new StdioClientTransport({command: process.execPath, args: [cli, '--stdio', '--standalone', '--config', config], env, stderr: 'inherit'});
	const client = new Client({name: 'hangar-conformance-auth', version: '1.0.0'});
	await client.connect(transport);
	try {
		// A busy machine may list before the upstream is connected: wait until it is no longer starting.
		for (let tries = 0; tries < 600; tries++) {
			const listed = JSON.parse((await client.callTool({name: 'hangar_list', arguments: {}})).content[0].text);
			if (listed.upstreams.every(upstream => upstream.state !== 'starting')) break;
			await new Promise(resolve => setTimeout(resolve, 100));
		}

		const {tools} = await client.listTools();
		const tool = tools.find(candidate => candidate.name.startsWith('conf__'));
		if (tool === undefined) {
			// Listing failed upstream: hangar_list says why (needs-sign-in when a step-up needs the person).
			const listed = JSON.stringify((await client.callTool({name: 'hangar_list', arguments: {}})).content);
			return {ok: false, signIn: /needs-sign-in/.test(listed), why: `no tool of conf listed; hangar_list: ${listed}`};
		}

		const result = await client.callTool({name: tool.name, arguments: {}});
		const text = JSON.stringify(result.content);
		if (result.isError === true) return {ok: false, signIn: /needs sign-in/.test(text), why: text};
		return {ok: true};
	} catch (error) {
		return {ok: false, signIn: /needs sign-in/.test(String(error)), why: String(error)};
	} finally {
		await client.close();
	}
}

let signIns = 0;
let outcome = {ok: false, signIn: oauth.grant !== 'client_credentials', why: 'not run'};
try {
	for (;;) {
		if (outcome.signIn === true) {
			if (signIns === signInLimit) break;
			signIns += 1;
			if (!signIn()) break;
		}

		outcome = await callOnce();
		process.stderr.write(`call: ${outcome.ok ? 'ok' : outcome.why}\n`);
		if (outcome.ok || outcome.signIn !== true) break;
	}
} finally {
	fs.rmSync(dir, {recursive: true, force: true});
}

process.exit(outcome.ok ? 0 : 1);
