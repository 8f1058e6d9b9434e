/**
 * Scenario 8, exposure: how much `tools/list` costs a client in each
 * `hangar.exposure` mode. `direct` lists every upstream tool as
 * `<server>__<tool>` plus the hangar_* management tools; `search` lists only
 * the management tools (clients find tools with hangar_find_tools and call
 * them with hangar_call).
 *
 * Two configs, each served once per mode by a fresh `mcp-hangar --stdio`:
 *
 * - `config.example.json` as shipped (its relative paths resolved from the
 *   repository root, a temporary state dir);
 * - a generated config of `upstreams` stdio upstreams cycling through
 *   server-everything, server-memory (each with its own memory file) and the
 *   fixture server.
 *
 * Before measuring, every upstream's live tool list must be known: hangar
 * starts the ones with nothing cached at launch, the bench starts the rest
 * (hangar_start, e.g. the example's flaky-demo, which only has a predefined
 * tool), and waits until every upstream's list is live and two hangar_list
 * readings 300 ms apart show the same tool counts (server-everything adds
 * tools after initialize and announces them with list_changed). The `direct`
 * run learns the lists; the `search` run uses the same state dir, so it
 * starts from the cached lists (which do not show in its tools/list anyway).
 *
 * Measured: the byte length (UTF-8) of the JSON `result` of `tools/list` as
 * hangar sent it (taken from the raw message, before the SDK client parses
 * it), the number of tools in it, and for reference how many upstream tools
 * hangar knows (the sum of hangar_list's `tools`).
 */
import fs from 'node:fs';
import path from 'node:path';
import {callTool, connectHangar, fixtureCommand, hangarList, root, serverEntry, tempDir, waitFor, writeHangarConfig} from '../lib/paths.js';
import {sleep, waitForNoTagged} from '../lib/processes.js';
import {round} from '../lib/stats.js';

const everythingPath = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const memoryPath = path.join(root, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');

/** config.example.json with a temporary state dir and its relative paths resolved from the repository root. */
function exampleConfig(dir) {
	const example = JSON.parse(fs.readFileSync(path.join(root, 'config.example.json'), 'utf8'));
	// Shared: the exposure measured is hangar's whole tool set, which a per-client instance would cut to its own client's list.
	const servers = Object.fromEntries(Object.entries(example.mcpServers).map(([name, server]) => [name, {cwd: root, instances: 'shared', ...server}]));
	return {servers, hangar: example.hangar ?? {}};
}

/** `count` upstreams cycling through server-everything, server-memory and the fixture server. */
function generatedConfig(dir, count) {
	const kinds = [
		i => ({name: `everything-${i}`, server: serverEntry([process.execPath, [everythingPath, 'stdio']])}),
		i => ({name: `memory-${i}`, server: serverEntry([process.execPath, [memoryPath]], {env: {MEMORY_FILE_PATH: path.join(dir, `memory-${i}.jsonl`)}})}),
		i => ({name: `fixture-${i}`, server: serverEntry(fixtureCommand('normal', ['--tag', 'bench-exposure']))}),
	];
	const servers = {};
	const width = String(count).length;
	for (let i = 0; i < count; i++) {
		const {name, server} = kinds[i % kinds.length](String(i).padStart(width, '0'));
		// Started once at launch to learn its tools (nothing is cached yet), then stopped when idle.
		servers[name] = {...server, startTimeoutSeconds: 120, idleTimeoutSeconds: 3, instances: 'shared'};
	}

	return {servers, hangar: {}};
}

/** Resolves with the raw result of the next tools/list response the client receives. */
function rawToolsListResult(client) {
	const transport = client.transport;
	const original = transport.onmessage;
	return new Promise(resolve => {
		transport.onmessage = (message, extra) => {
			if (message.result !== undefined && Array.isArray(message.result.tools)) {
				transport.onmessage = original;
				resolve(message.result);
			}

			original?.(message, extra);
		};
	});
}

/**
 * Waits until hangar knows every upstream's tool list and the counts hold
 * still. With `learn`, lists must be live (upstreams with only predefined or
 * cached tools are started once); without, a cached list counts as known.
 */
async function waitForTools(client, expected, learn, timeoutMs) {
	const started = new Set();
	let previous;
	return waitFor(
		async () => {
			const list = await hangarList(client);
			if (list.length !== expected) throw new Error(`hangar_list shows ${list.length} upstreams, expected ${expected}`);
			for (const entry of list) {
				// An upstream with only predefined (or cached) tools is started once so its live list is known.
				if (learn && entry.toolsSource !== 'live' && entry.state === 'cold' && !started.has(entry.name)) {
					started.add(entry.name);
					await callTool(client, 'hangar_start', {server: entry.name});
				}
			}

			const known = learn ? ['live'] : ['live', 'cache'];
			const settled = list.every(entry => known.includes(entry.toolsSource) && entry.state !== 'starting');
			const counts = JSON.stringify(list.map(entry => [entry.name, entry.tools]));
			const steady = settled && counts === previous;
			previous = settled ? counts : undefined;
			if (!steady) {
				await sleep(300);
				return false;
			}

			return list;
		},
		`every upstream's ${learn ? 'live ' : ''}tool list (${expected} upstreams)`,
		timeoutMs,
		50,
	);
}

async function measureMode(dir, {servers, hangar}, mode, timeoutMs) {
	const file = writeHangarConfig(dir, servers, {...hangar, exposure: mode});
	const session = await connectHangar(file);
	try {
		const count = Object.keys(servers).length;
		let list;
		try {
			list = await waitForTools(session.client, count, mode === 'direct', timeoutMs);
		} catch (error) {
			throw new Error(`${error.message}; hangar stderr: ${session.stderr().slice(-2000)}`);
		}

		const raw = rawToolsListResult(session.client);
		const parsed = await session.client.listTools();
		const result = await raw;
		if (result.tools.length !== parsed.tools.length) throw new Error('the raw tools/list result and the parsed one differ');
		const management = result.tools.filter(tool => tool.name.startsWith('hangar_')).length;
		return {
			tools: result.tools.length,
			managementTools: management,
			upstreamTools: result.tools.length - management,
			bytes: Buffer.byteLength(JSON.stringify(result), 'utf8'),
			toolsKnown: list.reduce((sum, entry) => sum + entry.tools, 0),
		};
	} finally {
		await session.close();
		await waitForNoTagged(20_000);
	}
}

async function measureConfig(label, build, timeoutMs) {
	const dir = tempDir('hangar-bench-exposure-');
	try {
		const config = build(dir);
		const direct = await measureMode(dir, config, 'direct', timeoutMs);
		const search = await measureMode(dir, config, 'search', timeoutMs);
		return {
			config: label,
			upstreams: Object.keys(config.servers).length,
			toolsKnown: direct.toolsKnown,
			direct,
			search,
			searchOverDirect: round(search.bytes / direct.bytes, 4),
		};
	} finally {
		fs.rmSync(dir, {recursive: true, force: true});
	}
}

export async function exposure({upstreams, timeoutMs}) {
	const configs = [
		await measureConfig('config.example.json', exampleConfig, timeoutMs),
		await measureConfig(`${upstreams} generated upstreams`, dir => generatedConfig(dir, upstreams), timeoutMs),
	];
	return {unit: 'bytes of the JSON result of tools/list', configs};
}

/** Rows for the printed table. */
export function exposureRows(scenario) {
	const label = '8 exposure';
	if (scenario.status !== 'ok') return [[label, scenario.status, String(scenario.error ?? scenario.reason).split('\n')[0], '', '']];
	const rows = [];
	for (const config of scenario.result.configs) {
		const name = `${config.config} (${config.upstreams} upstreams, ${config.toolsKnown} tools)`;
		for (const mode of ['direct', 'search']) {
			rows.push([label, `${name}, ${mode}: tools / bytes`, `${config[mode].tools} / ${config[mode].bytes}`, '', '']);
		}

		rows.push([label, `${name}: search / direct bytes`, `${round(config.searchOverDirect * 100, 1)}%`, '', '']);
	}

	return rows;
}
