/**
 * Why a daemon a bridge started did not serve, as the bridge says it
 * ("could not serve: ..."): the daemon's own last line of the log they
 * share, never the bridge's line about starting it. A real process stands in
 * for the daemon: it writes what it is told to the log (its stdout), waits
 * for the bridge's line, and exits without serving.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {bridgeScope, daemonLogFile, startDaemon} from '../../source/core/endpoints/daemon.js';
import {stdioLogger} from '../../source/core/endpoints/stdio.js';
import {tempDir, waitFor} from '../support/hangar.js';

/** A "daemon" that writes `ownLine` (if any), then exits with code 3 once a bridge has logged. */
function fakeDaemon(dir: string, ownLine: string | undefined): string {
	const script = path.join(dir, 'fake-daemon.cjs');
	fs.writeFileSync(
		script,
		`const fs = require('node:fs');
const log = process.argv[process.argv.indexOf('--log-file') + 1];
${ownLine === undefined ? '' : `process.stdout.write(${JSON.stringify(`${ownLine}\n`)});`}
const wait = () => (fs.readFileSync(log, 'utf8').includes('[${bridgeScope}]') ? process.exit(3) : setTimeout(wait, 10));
wait();
`,
	);
	return script;
}

async function problemOf(ownLine: string | undefined): Promise<{problem: string | undefined; logFile: string}> {
	const dir = tempDir();
	const stateDir = path.join(dir, 'state');
	const configPath = path.join(dir, 'config.json');
	fs.writeFileSync(configPath, '{"mcpServers": {}}');
	const daemon = startDaemon({path: configPath, hangar: {stateDir}}, {cli: fakeDaemon(dir, ownLine)});
	if (ownLine !== undefined) await waitFor(() => fs.readFileSync(daemonLogFile(stateDir), 'utf8').includes(ownLine), 'the daemon\'s line');
	// The bridge's line, written as the bridge writes it, after the daemon's own.
	stdioLogger({configPath, stateDir}).child(bridgeScope).info(`no supervisor for ${stateDir} (none running); started one (pid ${daemon.pid}, mcp-hangar serve --linger, log ${daemon.logFile})`);
	expect(await daemon.exited).toBe(3);
	return {problem: daemon.problem(), logFile: daemonLogFile(stateDir)};
}

describe('why a started daemon did not serve', () => {
	it('quotes the daemon\'s own last line, not the bridge\'s that came after it', async () => {
		const {problem, logFile} = await problemOf('2026-11-28T12:00:00.000Z error [hangar] cannot take the state dir: it is read-only');
		expect(problem).toBe(`2026-11-28T12:00:00.000Z error [hangar] cannot take the state dir: it is read-only (exit code 3, log ${logFile})`);
	});

	it('says the daemon logged nothing of its own rather than quote the bridge', async () => {
		const {problem, logFile} = await problemOf(undefined);
		expect(problem).toBe(`it exited with code 3 and logged nothing of its own; see ${logFile}`);
		expect(fs.readFileSync(logFile, 'utf8')).toContain(`[${bridgeScope}] no supervisor for`);
	});
});
