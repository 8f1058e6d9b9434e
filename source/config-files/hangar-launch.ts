/**
 * The command line a client should use to launch hangar's stdio endpoint.
 * Clients launched from a desktop (Claude Desktop from the Dock, say) do not
 * see the PATH of a shell, so the command is always absolute: the
 * `mcp-hangar` on PATH when it is this very installation (its path survives
 * upgrades), else this Node binary and this installation's dist/cli.js.
 */
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import {fileURLToPath} from 'node:url';
import {commandLine, shellWord} from '../shell-words.js';
import type {HangarLaunch} from './client-format.js';

/** dist/cli.js of the running installation. */
export function installedCliPath(): string {
	return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli.js');
}

function realpath(file: string): string | undefined {
	try {
		return fs.realpathSync(file);
	} catch {
		return undefined;
	}
}

/** The first executable `name` on `searchPath`, as an absolute path. */
export function onPath(name: string, searchPath: string | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
	const extensions = platform === 'win32' ? ['.cmd', '.exe', ''] : [''];
	for (const dir of (searchPath ?? '').split(path.delimiter)) {
		if (dir === '' || !path.isAbsolute(dir)) continue;
		for (const extension of extensions) {
			const candidate = path.join(dir, name + extension);
			try {
				fs.accessSync(candidate, fs.constants.X_OK);
				if (fs.statSync(candidate).isFile()) return candidate;
			} catch {
				// Not here.
			}
		}
	}

	return undefined;
}

export function hangarLaunch(configPath: string, env: Record<string, string | undefined> = process.env): HangarLaunch {
	const cli = installedCliPath();
	const args = ['--stdio', '--config', path.resolve(configPath)];
	const bin = onPath('mcp-hangar', env['PATH']);
	if (bin !== undefined && realpath(bin) === realpath(cli)) return {command: bin, args};
	return {command: process.execPath, args: [cli, ...args]};
}

/** How a person types hangar in a shell: `mcp-hangar` when that is this installation on PATH, else node and this dist/cli.js. */
export function selfCommand(env: Record<string, string | undefined> = process.env): string {
	const cached = selfCommands.get(env['PATH']);
	if (cached !== undefined) return cached;
	const cli = installedCliPath();
	const bin = onPath('mcp-hangar', env['PATH']);
	const self = bin !== undefined && realpath(bin) === realpath(cli) ? 'mcp-hangar' : `node ${shellWord(cli)}`;
	selfCommands.set(env['PATH'], self);
	return self;
}

const selfCommands = new Map<string | undefined, string>();

const launchLines = new Map<string, string>();

/** The command line a client should launch for `configPath`, ready to copy (looked up once per config). */
export function launchCommandLine(configPath: string): string {
	let line = launchLines.get(configPath);
	if (line === undefined) {
		const launch = hangarLaunch(configPath);
		line = commandLine(launch.command, launch.args);
		launchLines.set(configPath, line);
	}

	return line;
}
