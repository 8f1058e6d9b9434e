/**
 * Test support for the official MCP conformance suite
 * (@modelcontextprotocol/conformance): its CLI run as a real process, the
 * server scenarios it lists, and the project's fixture that
 * implements them (dist/demo/conformance-server.js) served over Streamable
 * HTTP on an ephemeral loopback port.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import path from 'node:path';
import {root, tempDir} from './hangar.js';

const cli = path.join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
export const conformanceServerPath = path.join(root, 'dist', 'demo', 'conformance-server.js');

/** Runs the conformance CLI with `args` in a temp directory; resolves with its exit code and stdout+stderr. */
export async function conformance(args: string[]): Promise<{code: number | null; output: string}> {
	const child = spawn(process.execPath, [cli, ...args], {cwd: tempDir('hangar-conformance-'), stdio: ['ignore', 'pipe', 'pipe']});
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => {
		output += chunk.toString();
	});
	child.stderr.on('data', (chunk: Buffer) => {
		output += chunk.toString();
	});
	const code = await new Promise<number | null>(resolve => child.on('exit', resolve));
	return {code, output};
}

/** Every server scenario `conformance list --server` names, active and pending. */
export async function serverScenarios(): Promise<string[]> {
	const listed = await conformance(['list', '--server']);
	if (listed.code !== 0) throw new Error(`conformance list --server exited with ${listed.code}:\n${listed.output}`);
	return [...listed.output.matchAll(/^\s+- ([\w-]+)/gm)].map(match => match[1]!);
}

/** The scenarios a `conformance server` run says it ran, in order. */
export function scenariosRun(output: string): string[] {
	return [...output.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map(match => match[1]!);
}

export type ConformanceFixture = {
	child: ChildProcess;
	/** e.g. http://127.0.0.1:41234/mcp */
	url: string;
	stderr: () => string;
	exited: Promise<number | null>;
	/** SIGTERM unless it has exited; resolves with its exit code. */
	stop: () => Promise<number | null>;
};

const running: ConformanceFixture[] = [];

/** `node conformance-server.js --http --port 0`, resolved once it prints the URL it listens on. */
export async function serveConformanceFixture(): Promise<ConformanceFixture> {
	const child = spawn(process.execPath, [conformanceServerPath, '--http', '--port', '0'], {stdio: ['pipe', 'pipe', 'pipe']});
	let stderr = '';
	let stdout = '';
	child.stdout!.on('data', (chunk: Buffer) => {
		stdout += chunk.toString();
	});
	const exited = new Promise<number | null>(resolve => child.on('exit', resolve));
	const url = await new Promise<string>((resolve, reject) => {
		child.stderr!.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
			const found = /^listening on (http:\/\/\S+)$/m.exec(stderr)?.[1];
			if (found !== undefined) resolve(found);
		});
		void exited.then(code => {
			reject(new Error(`conformance-server.js --http exited with ${code} before listening:\n${stderr}`));
		});
	});
	const fixture: ConformanceFixture = {
		child,
		url,
		stderr: () => stderr,
		exited,
		async stop() {
			if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
			const code = await exited;
			if (stdout !== '') throw new Error(`conformance-server.js --http wrote to stdout: ${stdout.slice(0, 500)}`);
			return code;
		},
	};
	running.push(fixture);
	return fixture;
}

/** Stops every fixture serveConformanceFixture started (an afterEach hook). */
export async function stopConformanceFixtures(): Promise<void> {
	await Promise.all(running.splice(0).map(async fixture => fixture.stop()));
}
