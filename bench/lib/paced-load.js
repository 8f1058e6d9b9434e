/**
 * A paced load on a running supervisor (the TUI or `mcp-hangar serve`):
 * a raw client on its socket (STATE_DIR/hangar.sock) that initializes like an
 * MCP client and then sends tools/call lines at a fixed rate, whatever the
 * answers do (open loop: a slow supervisor gets a queue, not a lighter load).
 * Calls go out every `tickMs`, as many as are due by then, in one write.
 *
 * Raw lines rather than an SDK client behind a `--stdio` bridge: on two cores
 * every process the load adds competes with the process being measured, and
 * this is the cheapest client that still looks like one to the supervisor.
 */
import net from 'node:net';
import {cpuMs, sleep} from './processes.js';
import {nsToMs, round, summarize} from './stats.js';

function connectTo(socketPath) {
	return new Promise((resolve, reject) => {
		const socket = net.createConnection(socketPath, () => resolve(socket));
		socket.once('error', reject);
	});
}

/**
 * Opens a session on `socketPath`, sends `rate` calls of `tool` per second
 * for `durationMs` (after `rampMs` at the same rate that is not counted), and
 * resolves once every answer is in (or `settleMs` after the last call).
 * `meter` names processes (role -> pid) whose CPU is read over exactly the
 * counted window, as percent of one core; the bench's own (the client's) is
 * always read. Throws when a call failed or went unanswered.
 */
export async function pacedLoad(socketPath, {tool, args = {message: 'load'}, rate = 1000, durationMs, rampMs = 1000, tickMs = 2, settleMs = 5000, meter = {}}) {
	const socket = await connectTo(socketPath);
	socket.setEncoding('utf8');
	socket.setNoDelay(true);
	const sentAt = new Map();
	const latencies = [];
	let answered = 0;
	let errors = 0;
	let firstError;
	let counting = false;
	let countedAnswers = 0;
	let initialized;
	const initializedPromise = new Promise(resolve => {
		initialized = resolve;
	});
	let rest = '';
	socket.on('data', chunk => {
		const lines = (rest + chunk).split('\n');
		rest = lines.pop();
		for (const line of lines) {
			if (line === '') continue;
			const message = JSON.parse(line);
			if (message.id === 'init') {
				initialized(message);
				continue;
			}

			const began = sentAt.get(message.id);
			if (began === undefined) continue;
			sentAt.delete(message.id);
			answered += 1;
			if (counting) {
				countedAnswers += 1;
				latencies.push(nsToMs(process.hrtime.bigint() - began));
			}

			if (message.error !== undefined || message.result?.isError === true) {
				errors += 1;
				firstError ??= JSON.stringify(message.error ?? message.result);
			}
		}
	});

	try {
		socket.write(`${JSON.stringify({jsonrpc: '2.0', id: 'init', method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'hangar-bench-load', version: '1.0.0'}}})}\n`);
		const init = await Promise.race([initializedPromise, sleep(10_000).then(() => undefined)]);
		if (init === undefined || init.error !== undefined) throw new Error(`initialize on ${socketPath} failed: ${JSON.stringify(init?.error ?? 'no answer in 10 s')}`);
		socket.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');

		const params = JSON.stringify({name: tool, arguments: args});
		let sent = 0;
		let countedSent = 0;
		let windowBegan;
		let windowMs;
		let cpuBefore;
		let cpu;
		const readCpu = () => ({client: process.cpuUsage(), ...Object.fromEntries(Object.entries(meter).map(([role, pid]) => [role, cpuMs(pid)]))});
		const began = performance.now();
		const end = began + rampMs + durationMs;
		await new Promise(resolve => {
			const tick = () => {
				const now = performance.now();
				if (windowBegan === undefined && now >= began + rampMs) {
					windowBegan = now;
					counting = true;
					cpuBefore = readCpu();
				}

				if (now >= end) {
					counting = false;
					windowMs = now - windowBegan;
					const after = readCpu();
					const client = process.cpuUsage(cpuBefore.client);
					const percent = ms => round((ms / windowMs) * 100, 2);
					cpu = {client: {cpuMs: round((client.user + client.system) / 1000, 0), percent: percent((client.user + client.system) / 1000)}};
					for (const role of Object.keys(meter)) cpu[role] = {cpuMs: after[role] - cpuBefore[role], percent: percent(after[role] - cpuBefore[role])};
					resolve();
					return;
				}

				const due = Math.floor(((now - began) * rate) / 1000);
				let lines = '';
				for (; sent < due; sent++) {
					const id = sent + 1;
					sentAt.set(id, process.hrtime.bigint());
					lines += `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}\n`;
					if (counting) countedSent += 1;
				}

				if (lines !== '') socket.write(lines);
				setTimeout(tick, tickMs);
			};

			tick();
		});

		const deadline = performance.now() + settleMs;
		while (sentAt.size > 0 && performance.now() < deadline) await sleep(20);
		if (errors > 0 || sentAt.size > 0) throw new Error(`paced load on ${socketPath}: ${errors} calls failed, ${sentAt.size} unanswered (first error: ${firstError})`);
		const answeredPerSecond = round((countedAnswers / windowMs) * 1000, 0);
		return {
			rate,
			tickMs,
			windowMs: round(windowMs, 0),
			sent,
			answered,
			unanswered: sentAt.size,
			errors,
			// Calls sent and answers received per second within the counted window.
			sentPerSecond: round((countedSent / windowMs) * 1000, 0),
			answeredPerSecond,
			latencyMs: summarize(latencies),
			// CPU per role over the counted window, and per answered call (µs).
			cpu: Object.fromEntries(Object.entries(cpu).map(([role, used]) => [role, {...used, usPerCall: round((used.cpuMs * 1000) / countedAnswers, 1)}])),
		};
	} finally {
		socket.destroy();
	}
}
