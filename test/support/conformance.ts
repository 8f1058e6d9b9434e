/**
 * Test support for the official MCP conformance suite
 * (@modelcontextprotocol/conformance): its CLI run as a real process, the
 * server scenarios it lists, and the project's fixture that
 * implements them (dist/demo/conformance-server.js) served over Streamable
 * HTTP on an ephemeral loopback port.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {createHash} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import {freePort, root, tempDir} from './hangar.js';

const cli = path.join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
export const conformanceServerPath = path.join(root, 'dist', 'demo', 'conformance-server.js');

/** The suite's reference server, vendored unchanged: test/fixtures/conformance-reference/README.md says from where. */
export const conformanceReferenceSource = path.join(root, 'test', 'fixtures', 'conformance-reference', 'everything-server.ts');

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

/** Every server scenario `conformance list --server ...args` names (with no args: active, pending, other revisions' and extensions'). */
export async function serverScenarios(args: string[] = []): Promise<string[]> {
	const listed = await conformance(['list', '--server', ...args]);
	if (listed.code !== 0) throw new Error(`conformance list --server exited with ${listed.code}:\n${listed.output}`);
	return [...listed.output.matchAll(/^\s+- ([\w-]+)/gm)].map(match => match[1]!);
}

/** The revision whose requirements hangar is held to: `conformance server --requirements 2025-11-25` runs its 33 scenarios. */
export const requirementsRevision = '2025-11-25';

/**
 * The suite's active server scenarios that its reference server
 * (examples/servers/typescript/everything-server.ts of the conformance
 * repository, run over HTTP with SDK 1.32.2) passes directly: all 31 of
 * them, measured on 2026-11-27 with @modelcontextprotocol/conformance
 * 0.2.0-alpha.12 against the reference server of the repository's newest
 * snapshot here (0.2.0-alpha.11; the alpha.12 tag is not in it), the copy
 * in test/fixtures/conformance-reference; conformance-all.test.ts
 * measures it again on every run. Each is among the 2025-11-25
 * requirements, so the runs through hangar cover it.
 */
export const referencePassesActive = [
	'server-initialize', 'server-session-lifecycle', 'logging-set-level', 'ping', 'completion-complete', 'tools-list',
	'tools-call-simple-text', 'tools-call-image', 'tools-call-audio', 'tools-call-embedded-resource', 'tools-call-mixed-content',
	'tools-call-with-logging', 'tools-call-error', 'tools-call-with-progress', 'tools-call-sampling', 'tools-call-elicitation',
	'elicitation-sep1034-defaults', 'server-sse-multiple-streams', 'elicitation-sep1330-enums', 'resources-list', 'resources-read-text',
	'resources-read-binary', 'resources-templates-read', 'resources-subscribe', 'resources-unsubscribe', 'prompts-list',
	'prompts-get-simple', 'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image', 'dns-rebinding-protection',
];

/**
 * The suite's server scenarios that are not run through hangar in front of
 * the project's fixture (conformance.test.ts), each with why: none of them
 * is active, and none is a 2025-11-25 requirement. conformance-all.test.ts
 * runs every one of them in front of the suite's reference server.
 */
export const notRunThroughHangar: Record<string, string> = {
	'server-stateless': '2026-07-28 stateless requests: issue 31',
	'sep-2164-resource-not-found': '2026-07-28 (empty resources/read contents): issue 31',
	caching: '2026-07-28 cache hints: issue 31',
	'http-header-validation': '2026-07-28 Mcp-* request headers (pending; the reference server fails it too): issue 31',
	'http-custom-header-server-validation': '2026-07-28 Mcp-Param-* headers (pending; the reference server fails it too): issue 31',
	'input-required-result-basic-elicitation': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-basic-sampling': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-basic-list-roots': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-request-state': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-multiple-input-requests': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-multi-round': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-missing-input-response': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-non-tool-request': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-result-type': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-unsupported-methods': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-tampered-state': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-capability-check': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-ignore-extra-params': '2026-07-28 multi-round-trip input_required results: issue 31',
	'input-required-result-validate-input': '2026-07-28 multi-round-trip input_required results: issue 31',
	'sep-2640-skills-directory': 'the skills extension (pending), which the fixture does not implement',
	'sep-2640-skills-enumeration': 'the skills extension (pending), which the fixture does not implement',
	'sep-2640-skills-manifest': 'the skills extension (pending), which the fixture does not implement',
	'tasks-lifecycle': 'the 2026 tasks extension (pending; the reference server fails it too); 2025-11-25 tasks are issue 25 item 2',
	'tasks-capability-negotiation': 'the 2026 tasks extension (pending; the reference server fails it too)',
	'tasks-wire-fields': 'the 2026 tasks extension (pending; the reference server fails it too)',
	'tasks-request-state-removal': 'the 2026 tasks extension (pending; the reference server fails it too)',
	'tasks-mrtr-input': 'the 2026 tasks extension (pending; the reference server fails it too)',
	'tasks-request-headers': 'the 2026 tasks extension (pending; the reference server fails it too)',
	'tasks-dispatch-and-envelope': 'the 2026 tasks extension (pending; the reference server fails it too)',
	'tasks-status-notifications': 'the 2026 tasks extension (pending; it checks nothing on a server without it)',
	'tasks-required-task-error': 'the 2026 tasks extension (pending; the reference server fails it too)',
	'tasks-mrtr-composition': 'the 2026 tasks extension (pending; the reference server fails it too)',
};

/** A `conformance server --requirements 2025-11-25` run against `url`, with `baseline` as its expected failures. */
export async function requirementsRun(url: string, baseline: string, outputDir: string): Promise<{code: number | null; output: string; ran: string[]}> {
	const run = await conformance(['server', '--url', url, '--requirements', requirementsRevision, '--expected-failures', baseline, '--output-dir', outputDir]);
	return {...run, ran: scenariosRun(run.output)};
}

/** A `conformance server --suite all` run against `url` (every server scenario the release has, pending and 2026-07-28 ones included), with no baseline: the caller compares the sets. */
export async function suiteAllRun(url: string, outputDir: string): Promise<{code: number | null; output: string; ran: string[]; passed: string[]}> {
	const run = await conformance(['server', '--url', url, '--suite', 'all', '--output-dir', outputDir]);
	return {...run, ran: scenariosRun(run.output), passed: scenariosPassed(run.output)};
}

/** The scenarios a `conformance server` run reports as passed with no failed check (`✓ name: N passed, 0 failed`). */
export function scenariosPassed(output: string): string[] {
	return [...output.matchAll(/^✓ (\S+): \d+ passed, 0 failed$/gm)].map(match => match[1]!);
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

/**
 * The suite's reference server with its types stripped (TypeScript's
 * transpileModule, no type check), written under node_modules/.cache so its
 * imports resolve from hangar's node_modules; named by the source's hash and
 * written by rename, so concurrent runs share one file.
 */
function referenceServerScript(over: 'http' | 'stdio' = 'http'): string {
	let source = fs.readFileSync(conformanceReferenceSource, 'utf8');
	if (over === 'stdio') source = overStdio(source);
	const dir = path.join(root, 'node_modules', '.cache', 'hangar-conformance-reference');
	const file = path.join(dir, `everything-server-${over === 'stdio' ? 'stdio-' : ''}${createHash('sha256').update(source).digest('hex').slice(0, 16)}.mjs`);
	if (fs.existsSync(file)) return file;
	const {outputText} = ts.transpileModule(source, {compilerOptions: {module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022}});
	fs.mkdirSync(dir, {recursive: true});
	const partial = `${file}.${process.pid}.partial`;
	fs.writeFileSync(partial, outputText);
	fs.renameSync(partial, file);
	return file;
}

/**
 * The reference server's source with its start (`app.listen(PORT, ...)`, the
 * file's tail) replaced by its own `createMcpServer()` on the SDK's
 * `StdioServerTransport`, its console.log sent to stderr. The reference has
 * no stdio mode of its own: this is the same server over stdio, its 2025
 * path only (its 2026-07-28 path is hand-written Express code, HTTP only).
 */
function overStdio(source: string): string {
	const start = source.lastIndexOf('// Start server');
	if (start === -1 || !source.slice(start).includes('app.listen(PORT')) throw new Error(`${conformanceReferenceSource} no longer ends with "// Start server" and app.listen(PORT, ...): update overStdio in test/support/conformance.ts`);
	return `${source.slice(0, start)}// Over stdio (hangar's test support): its own McpServer on the SDK's stdio transport; stdout carries only protocol.
console.log = (...args: unknown[]) => console.error(...args);
const {StdioServerTransport} = await import('@modelcontextprotocol/sdk/server/stdio.js');
await createMcpServer().connect(new StdioServerTransport());
`;
}

/** The command line that runs the reference server over stdio (see overStdio), for a hangar config's `command` and `args`. */
export function conformanceReferenceStdio(): {command: string; args: string[]} {
	return {command: process.execPath, args: [referenceServerScript('stdio')]};
}

/** The suite's reference server over Streamable HTTP, resolved once it says it runs; stopped by stopConformanceFixtures. */
export async function serveConformanceReference(): Promise<ConformanceFixture> {
	// It takes its port from PORT and cannot report one it was given 0 for.
	const port = await freePort();
	const child = spawn(process.execPath, [referenceServerScript()], {env: {...process.env, PORT: String(port)}, stdio: ['ignore', 'pipe', 'pipe']});
	let stdout = '';
	let stderr = '';
	child.stderr!.on('data', (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	const exited = new Promise<number | null>(resolve => child.on('exit', resolve));
	await new Promise<void>((resolve, reject) => {
		child.stdout!.on('data', (chunk: Buffer) => {
			stdout += chunk.toString();
			if (stdout.includes(`running on http://localhost:${port}`)) resolve();
		});
		void exited.then(code => {
			reject(new Error(`the conformance reference server exited with ${code} before listening on port ${port}:\n${stdout}${stderr}`));
		});
	});
	const reference: ConformanceFixture = {
		child,
		url: `http://127.0.0.1:${port}/mcp`,
		stderr: () => stderr,
		exited,
		async stop() {
			if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
			return exited;
		},
	};
	running.push(reference);
	return reference;
}

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

/** Stops every server serveConformanceFixture or serveConformanceReference started (an afterEach hook). */
export async function stopConformanceFixtures(): Promise<void> {
	await Promise.all(running.splice(0).map(async fixture => fixture.stop()));
}
