/**
 * `mcp-hangar setup CLIENT [--undo] [--dry-run]`: reports what setup would
 * change in a client's config, refuses while hangar's config lacks one of the
 * servers it would remove, and otherwise backs the file up and rewrites it
 * (see config-files/setup.ts). `--undo` restores the newest backup.
 *
 * Output contract: the report on stdout, refusals and errors on stderr;
 * exit 0 when done (or nothing to do), 1 when refused or failed, 2 for bad
 * usage.
 */
import fs from 'node:fs';
import {didYouMean} from '../core/base/closest-match.js';
import {clientFormats, currentEnvironment, findClientFormat} from '../client-files/client-formats.js';
import type {ClientEnvironment} from '../client-files/client-model.js';
import {editableConfigPath, entryProblem, openHangarConfig} from '../client-files/hangar-config-file.js';
import {hangarLaunch, selfCommand} from '../client-files/hangar-launch.js';
import {applySetup, planSetup, setupLocation, undoSetup} from '../client-files/setup.js';
import {displayPath, maskedOutput} from './server-summary.js';
import {commandLine, shellWord} from '../core/base/shell-words.js';
import {UsageError} from '../core/base/usage-error.js';

type Output = {out: (text: string) => void; err: (text: string) => void};

export type SetupOptions = {client: string; undo: boolean; dryRun: boolean; config: string | undefined; environment?: ClientEnvironment};

/** Why import would not copy this entry into hangar's config (undefined: it would). */
function refusalOf(entry: unknown): string | undefined {
	const problem = entryProblem(entry);
	return problem === undefined ? undefined : `import refuses it (${problem})`;
}

export function setupVerb(options: SetupOptions, unmasked: Output): number {
	const io = maskedOutput(unmasked);
	const environment = options.environment ?? currentEnvironment();
	const self = selfCommand(environment.env);
	const format = findClientFormat(options.client);
	if (format === undefined) {
		const ids = clientFormats.map(entry => entry.id);
		throw new UsageError(`"${options.client}" is not a client hangar can set up.${didYouMean(options.client, ids)} Clients: ${ids.join(', ')}`);
	}

	if (options.undo) {
		const location = setupLocation(format, environment);
		if (options.dryRun) throw new UsageError('--undo and --dry-run do not go together');
		const undone = undoSetup(location.file);
		if (undone === undefined) {
			io.err(`mcp-hangar: no backup of ${displayPath(location.file)} to restore: setup writes one (${displayPath(location.file)}.hangar-backup-<time>) before it changes the file.\n`);
			return 1;
		}

		io.out(
			undone.removedFile
				? `Removed ${displayPath(location.file)}: it did not exist before setup.\n`
				: `Restored ${displayPath(location.file)} from ${displayPath(undone.backup)} (the backup is removed; an older one, if any, is next).\n`,
		);
		io.out(`Restart ${format.label} (or reload its MCP servers) to use its own servers again.\n`);
		return 0;
	}

	const configPath = editableConfigPath(options.config);
	if (!fs.existsSync(configPath)) {
		io.err(`mcp-hangar: hangar's config ${displayPath(configPath)} does not exist yet. Run ${self} import ${format.id}${options.config === undefined ? '' : ` --config ${shellWord(configPath)}`} first, then setup again.\n`);
		return 1;
	}

	const config = openHangarConfig(configPath);
	const launch = hangarLaunch(configPath);
	const plan = planSetup(format, environment, config.servers, launch);
	const file = displayPath(plan.location.file);
	if (plan.alreadySetUp) {
		io.out(`${format.label} already launches hangar (${file}) with ${displayPath(configPath)}. Nothing changed.\n`);
		return 0;
	}

	if (plan.missing.length > 0) {
		// An entry import refuses cannot be fixed by importing again: say why, and where to fix it.
		const refusals = plan.missing.map(server => (server.entry === undefined ? `cannot be imported (${server.problem ?? 'unusable'})` : refusalOf(server.entry)));
		const lines = plan.missing.map((server, index) => {
			const refusal = refusals[index];
			return refusal === undefined ? `  ${server.name}` : `  ${server.name}: ${refusal}; fix or remove it in ${file}, then setup again`;
		});
		const importable = refusals.some(refusal => refusal === undefined);
		io.err(
			`mcp-hangar: setup ${format.id}: not changing ${file}: ${plan.missing.length} of its servers ${plan.missing.length === 1 ? 'is' : 'are'} not in hangar's config (${displayPath(configPath)}), and setup would remove ${plan.missing.length === 1 ? 'it' : 'them'} from ${format.label}:\n` +
				`${lines.join('\n')}\n` +
				(importable
					? `Run ${self} import ${format.id}${options.config === undefined ? '' : ` --config ${shellWord(configPath)}`} first (${self} import ${format.id} --dry-run shows what it would add), then setup again.\n`
					: ''),
		);
		return 1;
	}

	const names = plan.dropped.map(server => server.name);
	const command = commandLine(launch.command, launch.args);
	const what = names.length === 0 ? '(it had no servers of its own)' : `instead of its ${names.length === 1 ? 'server' : `${names.length} servers`} (${names.join(', ')}), all in hangar's config`;
	if (options.dryRun) {
		io.out(`Would back up ${file} and make ${format.label} launch hangar ${what}:\n  ${command}\nNothing was written.\n`);
	} else {
		const backup = applySetup(plan);
		io.out(`Backed up ${file} to ${displayPath(backup)}.\n${format.label} now launches hangar ${what}:\n  ${command}\n`);
		io.out(`Restart ${format.label} (or reload its MCP servers). To go back: ${self} setup ${format.id} --undo\n`);
	}

	for (const other of plan.untouched) {
		io.out(`Left as they are: the servers in ${displayPath(other.file)} (a project's file, shared with whoever uses the project).\n`);
	}

	return 0;
}
