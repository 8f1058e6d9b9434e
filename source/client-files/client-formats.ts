/**
 * Every client hangar can import from and set up, by id, in the order they
 * are listed to people; and which one a file given by path belongs to.
 */
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import type {ClientFormat} from './client-format.js';
import type {ClientEnvironment, ClientId, ClientLocation} from './client-model.js';
import {claudeCode} from './clients/claude-code.js';
import {claudeDesktop} from './clients/claude-desktop.js';
import {cline} from './clients/cline.js';
import {codex} from './clients/codex.js';
import {cursor} from './clients/cursor.js';
import {gemini} from './clients/gemini.js';
import {vscode} from './clients/vscode.js';
import {windsurf} from './clients/windsurf.js';

export const clientFormats: readonly ClientFormat[] = [claudeDesktop, claudeCode, cursor, vscode, windsurf, cline, gemini, codex];

const formats = new Map<string, ClientFormat>(clientFormats.map(format => [format.id, format]));

export function clientFormat(id: ClientId): ClientFormat {
	return formats.get(id)!;
}

/** The format for a CLIENT argument, or undefined. */
export function findClientFormat(name: string): ClientFormat | undefined {
	return formats.get(name.toLowerCase());
}

/** This process's view of where clients keep their files (HOME, APPDATA and XDG_CONFIG_HOME decide; tests point them at a temp dir). */
export function currentEnvironment(): ClientEnvironment {
	return {home: os.homedir(), platform: process.platform, env: process.env, cwd: process.cwd()};
}

/** Which client wrote the file at `file`, from its name and place; undefined when nothing fits. */
export function locationOfFile(file: string, environment: ClientEnvironment): ClientLocation | undefined {
	const absolute = path.resolve(environment.cwd, file);
	for (const format of clientFormats) {
		const known = format.locations(environment).find(location => location.file === absolute);
		if (known !== undefined) return known;
	}

	const name = path.basename(absolute);
	const parent = path.basename(path.dirname(absolute));
	const byName: Array<[boolean, ClientId, 'user' | 'project']> = [
		[name === 'claude_desktop_config.json', 'claude-desktop', 'user'],
		[name === '.claude.json', 'claude-code', 'user'],
		[name === '.mcp.json', 'claude-code', 'project'],
		[name === 'mcp.json' && parent === '.cursor', 'cursor', 'project'],
		[name === 'mcp.json' && parent === '.vscode', 'vscode', 'project'],
		[name === 'mcp_config.json', 'windsurf', 'user'],
		[name === 'cline_mcp_settings.json', 'cline', 'user'],
		[name === 'settings.json' && parent === '.gemini', 'gemini', 'project'],
		[name.endsWith('.toml'), 'codex', 'user'],
	];
	const match = byName.find(([fits]) => fits);
	return match === undefined ? undefined : {client: match[1], scope: match[2], file: absolute};
}
