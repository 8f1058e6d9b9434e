/**
 * Every path the peers bench (bench/peers.js) compares, each in front of its
 * own real upstream (lib/real-upstreams.js), each reached with the SDK
 * `Client`:
 *
 *   direct        client -> upstream (stdio)
 *   hop           client -> bench/hop.js -> upstream: the stdio floor
 *   twoHop        client -> bench/socket-hop.js -> bench/hop.js --listen SOCKET -> upstream: the floor of
 *                 any two-process path (a bridge piping bytes to a daemon that rewrites ids), the
 *                 shape of hangar's default --stdio
 *   supervisedHop client -> bench/supervised-hop.js -> upstream: the hop plus the least a supervisor adds
 *                 to each call (routing, a deadline, cancellation, metrics, history, an audit line): the
 *                 floor of "the hop's work plus what hangar must add" for --stdio --standalone
 *   supervisedTwoHop  client -> bench/socket-hop.js -> bench/supervised-hop.js --listen SOCKET -> upstream:
 *                 the default --stdio's shape with the least each of its processes can do (calls part only)
 *   hangar        client -> mcp-hangar --stdio (a bridge) -> mcp-hangar serve --linger (the daemon it starts) -> upstream
 *   hangarStandalone  client -> mcp-hangar --stdio --standalone -> upstream
 *   hangarAttached    (cold part only) a second `mcp-hangar --stdio` client, started while a first one's
 *                     daemon already serves the config: what every client after the first sees
 *   socketHop         (cold part only) client -> bench/socket-hop.js -> that running daemon: the floor of attaching
 *   httpHop       client -> bench/http-hop.js -> upstream: the HTTP floor
 *   hangarHttp    client -> mcp-hangar serve --http -> upstream (Streamable HTTP)
 *   mcpHub        client -> mcp-hub 4.2.1 -> upstream (legacy SSE: GET /mcp + POST /messages, all it serves)
 *   supergateway  client -> supergateway 4.0.0 --stateful -> upstream (Streamable HTTP)
 *   mcpProxy      client -> mcp-proxy 6.7.19 -> upstream (Streamable HTTP)
 *
 * The peers come from bench/peers/ (its own package, installed by
 * `npm run bench:peers`) and start with `node <their bin file>`, so the pid
 * the bench meters is the proxy itself. Everything listens on 127.0.0.1
 * (mcp-hub and supergateway through bench/peers/loopback.mjs). A session is
 * `{client, tool, callArgs, check, proxyPid, daemonPid?, upstreamPid, close()}`:
 * on the default --stdio path the proxy is two processes, the bridge
 * (`proxyPid`) and the daemon (`daemonPid`), and both are metered.
 */
import {spawn} from 'node:child_process';
import {setMaxListeners} from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {SSEClientTransport} from '@modelcontextprotocol/sdk/client/sse.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {callTool, connect, hangarBuild, hangarList, hangarNodeArgs, hopPath, root, tempDir, waitFor, writeHangarConfig} from './paths.js';
import {childrenOf, taggedEnv} from './processes.js';

export const peersDir = path.join(root, 'bench', 'peers');
export const httpHopPath = path.join(root, 'bench', 'http-hop.js');
const socketHopPath = path.join(root, 'bench', 'socket-hop.js');
const supervisedHopPath = path.join(root, 'bench', 'supervised-hop.js');
const loopbackShim = path.join(peersDir, 'loopback.mjs');
const peerBin = {
	mcpHub: path.join(peersDir, 'node_modules', 'mcp-hub', 'dist', 'cli.js'),
	supergateway: path.join(peersDir, 'node_modules', 'supergateway', 'dist', 'index.js'),
	mcpProxy: path.join(peersDir, 'node_modules', 'mcp-proxy', 'dist', 'bin', 'mcp-proxy.mjs'),
};

/** The peers' entry points that are missing (bench:peers installs them). */
export function missingPeers() {
	return Object.values(peerBin).filter(file => !fs.existsSync(file));
}

/** A free TCP port on 127.0.0.1 (closed again before the proxy takes it). */
export async function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const {port} = server.address();
			server.close(() => resolve(port));
		});
	});
}

/** All descendants of `pid` (children first). */
function descendantsOf(pid) {
	const out = [];
	for (const child of childrenOf(pid)) out.push(child, ...descendantsOf(child));
	return out;
}

function cmdline(pid) {
	try {
		return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
	} catch {
		return [];
	}
}

/** The upstream under `pid`: the descendant running the upstream's script (a shell or npm may sit between). */
export function upstreamUnder(pid, upstream) {
	return descendantsOf(pid).find(candidate => cmdline(candidate).includes(upstream.args[0]));
}

/** Starts a process of the bench (tagged); stdout and stderr go to `logFile` or are dropped. */
function startProcess(command, args, {env = {}, logFile, cwd} = {}) {
	const out = logFile === undefined ? 'ignore' : fs.openSync(logFile, 'a');
	const child = spawn(command, args, {env: taggedEnv(env), stdio: ['ignore', out, out], cwd});
	if (typeof out === 'number') fs.closeSync(out);
	const exited = new Promise(resolve => child.once('exit', (code, signal) => resolve({code, signal})));
	return {
		child,
		exited,
		async stop(graceMs = 1000) {
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
				await exited;
				clearTimeout(timer);
			}
		},
	};
}

async function listening(port) {
	return new Promise(resolve => {
		const probe = net.createConnection({port, host: '127.0.0.1'}, () => {
			probe.destroy();
			resolve(true);
		});
		probe.on('error', () => resolve(false));
	});
}

/** An SDK client over Streamable HTTP (or legacy SSE) to `url`; retries until the server answers initialize. */
export async function connectHttp(url, {sse = false, timeoutMs = 30_000, intervalMs = 5} = {}) {
	return waitFor(
		async () => {
			const transport = sse ? new SSEClientTransport(new URL(url)) : new StreamableHTTPClientTransport(new URL(url));
			const client = new Client({name: 'hangar-bench', version: '1.0.0'});
			try {
				await client.connect(transport);
			} catch (error) {
				await client.close().catch(() => {});
				throw error;
			}

			// The SDK's HTTP clients give every POST the same abort signal, and under load Node warns (on the
			// bench's stderr, thousands of times, costing the client's CPU) about the listeners piling up on it.
			if (transport._abortController !== undefined) setMaxListeners(0, transport._abortController.signal);
			return client;
		},
		`an MCP session at ${url}`,
		timeoutMs,
		intervalMs,
	);
}

/** Calls the upstream's tool through `client` until it answers right (a proxy may list it only once its upstream is up). */
export async function firstAnswer(client, tool, upstream, timeoutMs = 30_000) {
	return waitFor(
		async () => {
			const result = await callTool(client, tool, upstream.callArgs);
			if (!upstream.check(result)) throw new Error(`unexpected answer ${JSON.stringify(result).slice(0, 300)}`);
			return true;
		},
		`${tool} to answer`,
		timeoutMs,
		5,
	);
}

// One shared instance, as every peer runs it: under the default "auto", server-everything (which asks
// for roots at start-up) would run one instance per client session, a cost the "Several clients, one
// upstream" section of the README measures on its own; here the hop is what is measured.
function hangarConfig(upstream, name = 'up') {
	const dir = tempDir();
	const file = writeHangarConfig(dir, {[name]: {command: upstream.command, args: upstream.args, env: upstream.env, lazy: false, instances: 'shared'}});
	return {dir, file};
}

async function stdioHangar(upstream, extra) {
	const {dir, file} = hangarConfig(upstream);
	const startedAt = performance.now();
	const session = await connect(process.execPath, [...hangarNodeArgs, hangarBuild.cli, '--stdio', '--config', file, ...extra]);
	const daemonPid = () => {
		try {
			return JSON.parse(fs.readFileSync(path.join(dir, 'state', 'endpoint.json'), 'utf8')).pid;
		} catch {
			return undefined;
		}
	};

	try {
		await firstAnswer(session.client, `up__${upstream.tool}`, upstream);
	} catch (error) {
		await session.close();
		throw new Error(`${error.message}; hangar stderr: ${session.stderr()}`);
	}

	const answeredAt = performance.now();
	const daemon = extra.includes('--standalone') ? undefined : daemonPid();
	if (!extra.includes('--standalone') && daemon === undefined) throw new Error(`hangar --stdio did not start a daemon; stderr: ${session.stderr()}`);
	return {
		...session,
		tool: `up__${upstream.tool}`,
		proxyPid: session.pid,
		daemonPid: daemon,
		daemonSocket: path.join(dir, 'state', 'hangar.sock'),
		upstreamPid: upstreamUnder(daemon ?? session.pid, upstream),
		startedAt,
		answeredAt,
		async close() {
			await session.close();
			// The daemon lingers for its next client: not here.
			if (daemon !== undefined) {
				try {
					process.kill(daemon, 'SIGTERM');
				} catch {}

				await waitFor(() => {
					try {
						process.kill(daemon, 0);
						return false;
					} catch {
						return true;
					}
				}, `the daemon (pid ${daemon}) to exit`, 15_000, 20).catch(() => {
					try {
						process.kill(daemon, 'SIGKILL');
					} catch {}
				});
			}

			fs.rmSync(dir, {recursive: true, force: true});
		},
	};
}

/** A first `--stdio` client starts the daemon (untimed); then `argsOf` is spawned and timed to its first answer. */
async function attachedPath(upstream, argsOf) {
	const first = await stdioHangar(upstream, []);
	const dir = path.dirname(path.dirname(first.daemonSocket));
	try {
		const startedAt = performance.now();
		const session = await connect(process.execPath, [...hangarNodeArgs, ...argsOf(path.join(dir, 'mcp-hangar.json'), first.daemonSocket)]);
		try {
			await firstAnswer(session.client, `up__${upstream.tool}`, upstream);
		} catch (error) {
			await session.close();
			throw new Error(`${error.message}; stderr: ${session.stderr()}`);
		}

		return {
			...session,
			tool: `up__${upstream.tool}`,
			proxyPid: session.pid,
			attachedDaemonPid: first.daemonPid,
			upstreamPid: first.upstreamPid,
			startedAt,
			answeredAt: performance.now(),
			async close() {
				await session.close();
				await first.close();
			},
		};
	} catch (error) {
		await first.close();
		throw error;
	}
}

/**
 * The connectors: each starts its path in front of `upstream` and returns a
 * session once a first call has been answered. `startedAt` (performance.now()
 * when the first process of the path was spawned) and `answeredAt` are what
 * the cold start measures.
 */
export const connectors = {
	// A second `--stdio` client while the daemon a first client started runs: only the second is timed and
	// metered (proxyPid, the bridge alone); `daemonPid` is the running daemon, reported on its own.
	async hangarAttached(upstream) {
		return attachedPath(upstream, file => [hangarBuild.cli, '--stdio', '--config', file]);
	},

	// The same running daemon reached by a bare node process piping stdio to its socket: the attach floor.
	async socketHop(upstream) {
		return attachedPath(upstream, (_file, socket) => [socketHopPath, socket]);
	},


	async direct(upstream) {
		const startedAt = performance.now();
		const session = await connect(upstream.command, upstream.args, {env: upstream.env});
		await firstAnswer(session.client, upstream.tool, upstream);
		return {...session, tool: upstream.tool, upstreamPid: session.pid, startedAt, answeredAt: performance.now()};
	},

	async hop(upstream) {
		const startedAt = performance.now();
		const session = await connect(process.execPath, [hopPath, upstream.command, ...upstream.args], {env: upstream.env});
		await firstAnswer(session.client, upstream.tool, upstream);
		return {...session, tool: upstream.tool, proxyPid: session.pid, upstreamPid: upstreamUnder(session.pid, upstream), startedAt, answeredAt: performance.now()};
	},

	// A bare node process piping its stdio to a Unix socket, where the hop listens: two processes, each
	// doing the least its place can (the bridge not even reading the lines), the floor of the default --stdio.
	async twoHop(upstream) {
		return twoProcesses(upstream, upstream.tool, socket => [hopPath, '--listen', socket, upstream.command, ...upstream.args]);
	},

	// The same with the supervised hop listening: the default --stdio's shape, each process doing the least
	// its place can, the daemon's least being what a supervisor adds to a call.
	async supervisedTwoHop(upstream) {
		return twoProcesses(upstream, `up__${upstream.tool}`, (socket, dir) => [supervisedHopPath, '--listen', socket, path.join(dir, 'audit.jsonl'), 'up', upstream.command, ...upstream.args]);
	},

	async supervisedHop(upstream) {
		const dir = tempDir('hangar-bench-supervised-hop-');
		const startedAt = performance.now();
		const session = await connect(process.execPath, [supervisedHopPath, path.join(dir, 'audit.jsonl'), 'up', upstream.command, ...upstream.args], {env: upstream.env});
		const tool = `up__${upstream.tool}`;
		try {
			await firstAnswer(session.client, tool, upstream);
		} catch (error) {
			await session.close();
			fs.rmSync(dir, {recursive: true, force: true});
			throw error;
		}

		return {
			...session,
			tool,
			proxyPid: session.pid,
			upstreamPid: upstreamUnder(session.pid, upstream),
			startedAt,
			answeredAt: performance.now(),
			async close() {
				await session.close();
				fs.rmSync(dir, {recursive: true, force: true});
			},
		};
	},

	// `--stdio` as a client starts it: a bridge, which starts `serve --linger` (the daemon) when none runs for the config.
	async hangar(upstream) {
		return stdioHangar(upstream, []);
	},

	// `--stdio --standalone`: one process, the supervisor embedded.
	async hangarStandalone(upstream) {
		return stdioHangar(upstream, ['--standalone']);
	},

	async httpHop(upstream) {
		const startedAt = performance.now();
		const child = spawn(process.execPath, [httpHopPath, '0', upstream.command, ...upstream.args], {env: taggedEnv(upstream.env), stdio: ['ignore', 'pipe', 'ignore']});
		const port = await new Promise((resolve, reject) => {
			let text = '';
			child.stdout.on('data', chunk => {
				text += chunk;
				const match = /listening (\d+)/.exec(text);
				if (match !== null) resolve(Number(match[1]));
			});
			child.once('exit', code => reject(new Error(`bench/http-hop.js exited with ${code}`)));
		});
		return httpSession({startedAt, upstream, tool: upstream.tool, url: `http://127.0.0.1:${port}/mcp`, proc: wrap(child)});
	},

	async hangarHttp(upstream) {
		const {dir, file} = hangarConfig(upstream);
		const port = await freePort();
		const startedAt = performance.now();
		const proc = startProcess(process.execPath, [...hangarNodeArgs, hangarBuild.cli, 'serve', '--http', '--host', '127.0.0.1', '--port', String(port), '--config', file], {
			logFile: path.join(dir, 'serve.log'),
		});
		return httpSession({startedAt, upstream, tool: `up__${upstream.tool}`, url: `http://127.0.0.1:${port}/mcp`, proc, dir, port});
	},

	async mcpHub(upstream) {
		const dir = tempDir('hangar-bench-mcp-hub-');
		const file = path.join(dir, 'mcp-hub.json');
		fs.writeFileSync(file, JSON.stringify({mcpServers: {up: {command: upstream.command, args: upstream.args, env: upstream.env}}}));
		const port = await freePort();
		const startedAt = performance.now();
		// HOME: mcp-hub keeps a workspace cache and its logs under it. Its output is thousands of lines per disconnect: to a file.
		const proc = startProcess(process.execPath, ['--import', loopbackShim, peerBin.mcpHub, '--port', String(port), '--config', file], {
			env: {HOME: dir, XDG_STATE_HOME: path.join(dir, 'state'), XDG_DATA_HOME: path.join(dir, 'data'), XDG_CONFIG_HOME: path.join(dir, 'config')},
			logFile: path.join(dir, 'mcp-hub.log'),
			cwd: dir,
		});
		return httpSession({startedAt, upstream, tool: `up__${upstream.tool}`, url: `http://127.0.0.1:${port}/mcp`, proc, dir, port, sse: true});
	},

	async supergateway(upstream) {
		const dir = tempDir('hangar-bench-supergateway-');
		const port = await freePort();
		const command = [upstream.command, ...upstream.args].map(part => `'${part}'`).join(' ');
		const startedAt = performance.now();
		const proc = startProcess(
			process.execPath,
			['--import', loopbackShim, peerBin.supergateway, '--stdio', command, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(port), '--logLevel', 'none'],
			{env: upstream.env, logFile: path.join(dir, 'supergateway.log')},
		);
		return httpSession({startedAt, upstream, tool: upstream.tool, url: `http://127.0.0.1:${port}/mcp`, proc, dir, port});
	},

	async mcpProxy(upstream) {
		const dir = tempDir('hangar-bench-mcp-proxy-');
		const port = await freePort();
		const startedAt = performance.now();
		const proc = startProcess(process.execPath, [peerBin.mcpProxy, '--host', '127.0.0.1', '--port', String(port), '--server', 'stream', '--', upstream.command, ...upstream.args], {
			env: upstream.env,
			logFile: path.join(dir, 'mcp-proxy.log'),
		});
		return httpSession({startedAt, upstream, tool: upstream.tool, url: `http://127.0.0.1:${port}/mcp`, proc, dir, port});
	},
};

function wrap(child) {
	const exited = new Promise(resolve => child.once('exit', (code, signal) => resolve({code, signal})));
	return {
		child,
		exited,
		async stop(graceMs = 1000) {
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
				await exited;
				clearTimeout(timer);
			}
		},
	};
}

async function httpSession({startedAt, upstream, tool, url, proc, dir, port, sse = false}) {
	let client;
	try {
		if (port !== undefined) {
			await waitFor(
				async () => {
					if (proc.child.exitCode !== null) throw new Error(`exited with ${proc.child.exitCode}`);
					return listening(port);
				},
				`${url} to listen`,
				30_000,
				5,
			);
		}

		client = await connectHttp(url, {sse});
		await firstAnswer(client, tool, upstream);
	} catch (error) {
		await client?.close().catch(() => {});
		await proc.stop(1000);
		const log = dir === undefined ? '' : fs.readdirSync(dir).filter(name => name.endsWith('.log')).map(name => fs.readFileSync(path.join(dir, name), 'utf8').slice(-2000)).join('\n');
		if (dir !== undefined) fs.rmSync(dir, {recursive: true, force: true});
		throw new Error(`${error.message}${log === '' ? '' : `; its log ends: ${log}`}`);
	}

	const answeredAt = performance.now();
	return {
		client,
		tool,
		url,
		proxyPid: proc.child.pid,
		upstreamPid: upstreamUnder(proc.child.pid, upstream),
		startedAt,
		answeredAt,
		async close() {
			await client.close().catch(() => {});
			await proc.stop();
			if (dir !== undefined) fs.rmSync(dir, {recursive: true, force: true});
		},
	};
}

/** A client -> bench/socket-hop.js -> a hop listening on a socket (`daemonArgs(socket, dir)`) -> upstream. */
async function twoProcesses(upstream, tool, daemonArgs) {
	const dir = tempDir('hangar-bench-two-hop-');
	const socket = path.join(dir, 'hop.sock');
	const startedAt = performance.now();
	const daemon = spawn(process.execPath, daemonArgs(socket, dir), {env: taggedEnv(upstream.env), stdio: ['ignore', 'pipe', 'ignore']});
	const stopDaemon = async () => {
		if (daemon.exitCode === null && daemon.signalCode === null) {
			daemon.kill('SIGKILL');
			await new Promise(resolve => daemon.once('exit', resolve));
		}

		fs.rmSync(dir, {recursive: true, force: true});
	};

	let session;
	try {
		await new Promise((resolve, reject) => {
			let text = '';
			daemon.stdout.on('data', chunk => {
				text += chunk;
				if (text.includes('listening')) resolve();
			});
			daemon.once('exit', code => reject(new Error(`${path.basename(daemonArgs(socket, dir)[0])} --listen exited with ${code}`)));
		});
		session = await connect(process.execPath, [socketHopPath, socket]);
		await firstAnswer(session.client, tool, upstream);
	} catch (error) {
		await session?.close();
		await stopDaemon();
		throw error;
	}

	return {
		...session,
		tool,
		proxyPid: session.pid,
		daemonPid: daemon.pid,
		upstreamPid: upstreamUnder(daemon.pid, upstream),
		startedAt,
		answeredAt: performance.now(),
		async close() {
			await session.close();
			// The hop exits with its upstream once the piping process closes the socket.
			const timer = setTimeout(() => daemon.kill('SIGKILL'), 3000);
			if (daemon.exitCode === null && daemon.signalCode === null) await new Promise(resolve => daemon.once('exit', resolve));
			clearTimeout(timer);
			await stopDaemon();
		},
	};
}

/** The paths in the order the tables show them. */
export const stdioPaths = ['direct', 'hop', 'twoHop', 'supervisedHop', 'supervisedTwoHop', 'hangar', 'hangarStandalone'];
export const httpPaths = ['httpHop', 'hangarHttp', 'mcpHub', 'supergateway', 'mcpProxy'];
export const allPaths = [...stdioPaths, ...httpPaths];
/** Measured in the cold part only: starting while a supervisor already runs. */
export const attachPaths = ['hangarAttached', 'socketHop'];

/** Hangar's list check for the aggregation: every upstream's entry (used to know they are all up). */
export {hangarList};
