/**
 * The audit trail on a real supervisor as `serve` and `--stdio` build it
 * (createSupervisor): calls and people's actions in STATE_DIR/audit.jsonl,
 * owner-only, rotated by size, read back into the calls log by the next
 * run, and never holding an argument's value unless asked, masked then.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {silentLogger} from '../../source/core/base/logger.js';
import {parseConfig} from '../../source/core/config/read-config.js';
import {createSupervisor} from '../../source/core/endpoints/runtime.js';
import {AuditLog, auditFileName, readAuditActions, readAuditCalls, type AuditRecord} from '../../source/core/engine/observe/audit-log.js';
import {auditSignIn, signInAction} from '../../source/core/engine/observe/sign-in-audit.js';
import {actionLine} from '../../source/cli/actions-verb.js';
import type {Supervisor} from '../../source/core/engine/supervisor.js';
import {fastHangar, fixture, tempDir} from '../support/hangar.js';

const planted = 'sk-planted-0123456789abcdefSECRET';
const running: Supervisor[] = [];

afterEach(async () => {
	await Promise.all(running.splice(0).map(async supervisor => supervisor.shutdown('test finished')));
});

async function start(dir: string, hangar: Record<string, unknown> = {}): Promise<Supervisor> {
	const config = parseConfig({hangar: {...fastHangar, stateDir: path.join(dir, 'state'), ...hangar}, mcpServers: {fx: fixture('normal', [], {env: {FX_API_KEY: planted}})}}, path.join(dir, 'mcp-hangar.json'));
	const supervisor = await createSupervisor(config, silentLogger);
	running.push(supervisor);
	return supervisor;
}

async function stop(supervisor: Supervisor): Promise<void> {
	running.splice(running.indexOf(supervisor), 1);
	await supervisor.shutdown('test restart');
}

function records(dir: string, name = auditFileName): AuditRecord[] {
	return fs
		.readFileSync(path.join(dir, 'state', name), 'utf8')
		.split('\n')
		.filter(line => line !== '')
		.map(line => JSON.parse(line) as AuditRecord);
}

describe('audit trail', () => {
	it('records every call and person\'s action, owner-only, and the next run\'s calls log starts with them', async () => {
		const dir = tempDir();
		const first = await start(dir);
		await first.callByName('fx', 'echo', {message: `the key is ${planted}`}, {caller: 'claude-code'});
		await first.callByName('fx', 'fail', {message: 'no'});
		await first.act('fx', 'stop', 'a person in the TUI');
		await first.act('fx', 'quarantine', 'mcp-hangar quarantine');
		await expect(first.act('fx', 'start', 'mcp-hangar start')).rejects.toThrow();
		await stop(first);

		const file = path.join(dir, 'state', auditFileName);
		expect(fs.statSync(file).mode & 0o777).toBe(0o600);
		const text = fs.readFileSync(file, 'utf8');
		expect(text).not.toContain(planted);
		expect(text).not.toContain('the key is');
		const written = records(dir);
		const calls = written.filter(record => record.kind === 'call');
		expect(calls.map(call => [call.client, call.upstream, call.tool, call.outcome])).toEqual([
			['claude-code', 'fx', 'echo', 'ok'],
			['hangar', 'fx', 'fail', 'tool-error'],
		]);
		expect(calls[0]!.argsBytes).toBe(Buffer.byteLength(JSON.stringify({message: `the key is ${planted}`})));
		expect(calls[0]!.ms).toBeGreaterThan(0);
		expect(Date.parse(calls[0]!.time)).toBeGreaterThan(Date.now() - 60_000);
		const actions = written.filter(record => record.kind === 'action');
		expect(actions.map(action => [action.action, action.upstream, action.via, action.outcome])).toEqual([
			['stop', 'fx', 'a person in the TUI', 'done'],
			['quarantine', 'fx', 'mcp-hangar quarantine', 'done'],
			['start', 'fx', 'mcp-hangar start', 'refused'],
			// Hangar's own stop, last, with why.
			['shutdown', null, 'test restart', 'done'],
		]);
		expect(actions.at(-1)!.message).toBe(`stopped hangar (pid ${process.pid}) and its 1 upstream`);

		// A restart: the calls view and `logs --calls` (both read the calls log) show the earlier run's calls.
		const second = await start(dir);
		expect(second.calls.newest(10).map(entry => `${entry.client} ${entry.upstream}/${entry.tool} ${entry.outcome}`)).toEqual(['hangar fx/fail tool-error', 'claude-code fx/echo ok']);
		expect(second.calls.after(0)[0]!.args).not.toContain(planted);
		// Its config was never written to a file: the reload is refused, and the refusal is recorded with its reason.
		await second.reload('a person: mcp-hangar reload');
		await stop(second);
		expect(records(dir).at(-2)).toMatchObject({kind: 'action', action: 'reload', upstream: null, via: 'a person: mcp-hangar reload', outcome: 'refused', message: expect.stringContaining('mcp-hangar.json')});
	});

	it('writes arguments only with hangar.auditArguments, masked: secret-looking keys and the config\'s secret values', async () => {
		const dir = tempDir();
		const supervisor = await start(dir, {auditArguments: true});
		await supervisor.callByName('fx', 'echo', {message: `the key is ${planted}`, password: 'hunter2-hunter2'});
		await stop(supervisor);
		const text = fs.readFileSync(path.join(dir, 'state', auditFileName), 'utf8');
		expect(text).toContain('the key is');
		expect(text).not.toContain(planted);
		expect(text).not.toContain('hunter2');
	});

	it('rotates past hangar.auditMaxBytes, keeping hangar.auditFiles files', () => {
		const dir = tempDir();
		const state = path.join(dir, 'state');
		const audit = new AuditLog(state, () => ({maxBytes: 4096, files: 3, arguments: false}), silentLogger);
		const record = (index: number): AuditRecord => ({kind: 'call', time: new Date().toISOString(), client: 'c', session: null, upstream: 'fx', tool: `echo-${index}`, ms: 1, outcome: 'ok', code: null, error: null, argsBytes: 0});
		for (let index = 0; index < 100; index++) {
			audit.append(record(index));
			// Written together every 100 ms: here, one write each.
			audit.flush();
		}

		audit.close();
		const files = fs.readdirSync(state).filter(name => name.startsWith(auditFileName)).sort();
		expect(files).toEqual([auditFileName, `${auditFileName}.1`, `${auditFileName}.2`]);
		for (const name of files) expect(fs.statSync(path.join(state, name)).size).toBeLessThan(4096 + 200);
		for (const name of files) expect(fs.statSync(path.join(state, name)).mode & 0o777).toBe(0o600);
		// Newest in the current file, older ones in .1, the oldest gone.
		const tools = (name: string) => records(dir, name).map(item => (item as {tool: string}).tool);
		expect(tools(auditFileName).at(-1)).toBe('echo-99');
		expect(Number(tools(`${auditFileName}.1`).at(-1)!.slice(5)) + 1).toBe(Number(tools(auditFileName)[0]!.slice(5)));
		expect(tools(`${auditFileName}.2`)[0]).not.toBe('echo-0');
	});

	it('starts its first line on a line of its own when the file ends in a line an earlier run left cut (a full disk, a crash)', () => {
		const dir = tempDir();
		const state = path.join(dir, 'state');
		fs.mkdirSync(state, {recursive: true});
		fs.writeFileSync(path.join(state, auditFileName), '{"kind":"call","time":"2026-11-27T10:00:00.000Z","client":"c","ses');
		const audit = new AuditLog(state, () => ({maxBytes: 1 << 20, files: 2, arguments: false}), silentLogger);
		audit.append({kind: 'action', time: new Date().toISOString(), action: 'stop', upstream: 'fx', via: 'a person in the TUI', outcome: 'done', message: 'stopped "fx"'});
		audit.close();
		const lines = fs.readFileSync(path.join(state, auditFileName), 'utf8').split('\n');
		expect(lines).toHaveLength(3);
		expect(JSON.parse(lines[1]!)).toMatchObject({kind: 'action', action: 'stop', upstream: 'fx'});
		expect(readAuditActions(state, 10).map(action => action.message)).toEqual(['stopped "fx"']);
	});

	it('leaves rotation to the supervisor that holds the file: a sign-in line from mcp-hangar auth that crosses auditMaxBytes does not move the file from under it', () => {
		const dir = tempDir();
		const hangar = {stateDir: path.join(dir, 'state'), auditLog: true, auditMaxBytes: 4096, auditFiles: 3};
		const held = new AuditLog(hangar.stateDir, () => ({maxBytes: hangar.auditMaxBytes, files: hangar.auditFiles, arguments: false}), silentLogger);
		const call = (tool: string): AuditRecord => ({kind: 'call', time: new Date().toISOString(), client: 'c', session: null, upstream: 'fx', tool, ms: 1, outcome: 'ok', code: null, error: null, argsBytes: 0});
		// Just under the limit: the supervisor's own write does not rotate, the sign-in line would.
		while (fs.existsSync(path.join(hangar.stateDir, auditFileName)) === false || fs.statSync(path.join(hangar.stateDir, auditFileName)).size < 4096 - 300) {
			held.append(call('before'));
			held.flush();
		}

		auditSignIn(hangar, silentLogger, signInAction('remote', 'a person (mcp-hangar auth)', 'started', 'sign-in started'));
		held.append(call('after'));
		held.close();
		// What readers read (the current file and the one before) has the sign-in and, last, the supervisor's line after it.
		expect(readAuditCalls(hangar.stateDir, 100).at(-1)?.tool).toBe('after');
		expect(readAuditActions(hangar.stateDir, 10).map(action => action.outcome)).toEqual(['started']);
	});

	it('reads back a sign-in\'s steps written from another process (mcp-hangar auth), masked, beside the supervisor\'s lines, across a rotation', () => {
		const dir = tempDir();
		const hangar = {stateDir: path.join(dir, 'state'), auditLog: true, auditMaxBytes: 4096, auditFiles: 3};
		auditSignIn(hangar, silentLogger, signInAction('remote', 'a person (mcp-hangar auth)', 'started', 'sign-in started'));
		const file = path.join(hangar.stateDir, auditFileName);
		fs.appendFileSync(file, 'not json\n{"kind":"call","time":"2026-11-27T00:00:00.000Z","upstream":"fx","tool":"echo"}\n');
		fs.renameSync(file, `${file}.1`);
		auditSignIn(hangar, silentLogger, signInAction('remote', 'a person (mcp-hangar auth)', 'failed', `signing in failed: the server answered with ${planted}`));
		auditSignIn({...hangar, auditLog: false}, silentLogger, signInAction('remote', 'a person (mcp-hangar auth)', 'cancelled', 'not written'));
		const actions = readAuditActions(hangar.stateDir, 10);
		expect(actions.map(action => `${action.action} ${action.upstream} ${action.outcome}`)).toEqual(['sign-in remote started', 'sign-in remote failed']);
		expect(JSON.stringify(actions)).not.toContain(planted);
		expect(actionLine(actions[1]!)).toMatch(/^\S+Z {2}sign-in remote {2}failed {2}a person \(mcp-hangar auth\) {2}signing in failed: /);
		expect(fs.statSync(file).mode & 0o777).toBe(0o600);
	});

});
