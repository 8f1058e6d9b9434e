/**
 * `mcp-hangar setup CLIENT [--undo] [--dry-run]`: reports what setup would
 * change in a client's config, refuses while hangar's config lacks one of the
 * servers it would remove, and otherwise backs the file up and rewrites it
 * (see client-files/setup.ts), with any other user file the client runs
 * servers from beside it. `--undo` restores the newest setup's backups.
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
import {applySetup, planSetup, setupFiles, setupLocation, undoSetup} from '../client-files/setup.js';
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
		if (options.dryRun) throw new UsageError('--undo and --dry-run do not go together');
		const undone = undoSetup(setupFiles(format, environment));
		if (undone.length === 0) {
			const file = displayPath(setupLocation(format, environment).file);
			io.err(`mcp-hangar: no backup of ${file} to restore: setup writes one (${file}.hangar-backup-<time>) before it changes the file.\n`);
			return 1;
		}

		for (const {file, backup, removedFile} of undone) {
			io.out(
				removedFile
					? `Removed ${displayPath(file)}: it did not exist before setup.\n`
					: `Restored ${displayPath(file)} from ${displayPath(backup)} (the backup is removed; an older one, if any, is next).\n`,
			);
		}

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
	const files = [file, ...plan.others.map(other => displayPath(other.location.file))].join(' and ');
	if (plan.alreadySetUp) {
		io.out(`${format.label} already launches hangar (${file}) with ${displayPath(configPath)}. Nothing changed.\n`);
		return 0;
	}

	if (plan.missing.length > 0) {
		// An entry import refuses cannot be fixed by importing again: say why, and where to fix it.
		const refusals = plan.missing.map(server => (server.entry === undefined ? `cannot be imported (${server.problem ?? 'unusable'})` : refusalOf(server.entry)));
		const lines = plan.missing.map((server, index) => {
			const refusal = refusals[index];
			return refusal === undefined ? `  ${server.name}` : `  ${server.name}: ${refusal}; fix or remove it in ${displayPath(server.file)}, then setup again`;
		});
		const importable = refusals.some(refusal => refusal === undefined);
		io.err(
			`mcp-hangar: setup ${format.id}: not changing ${files}: ${plan.missing.length} of its servers ${plan.missing.length === 1 ? 'is' : 'are'} not in hangar's config (${displayPath(configPath)}), and setup would remove ${plan.missing.length === 1 ? 'it' : 'them'} from ${format.label}:\n` +
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
	// The servers of a file the client runs beside the one that gets hangar's entry (VS Code's settings.json): removed too, said by file.
	const alsoFrom = plan.others.map(other => {
		const own = plan.dropped.filter(server => server.file === other.location.file).map(server => server.name);
		return `  ${displayPath(other.location.file)}: ${own.join(', ')} (${format.label} runs them beside ${file}'s)\n`;
	});
	const removed = alsoFrom.length === 0 ? '' : `${options.dryRun ? 'It would also remove the servers of' : 'Also removed the servers of'}:\n${alsoFrom.join('')}`;
	if (options.dryRun) {
		io.out(`Would back up ${files}${plan.others.length === 0 ? '' : ','} and make ${format.label} launch hangar ${what}:\n  ${command}\n${removed}Nothing was written.\n`);
	} else {
		const backups = applySetup(plan);
		for (const backup of backups) io.out(`Backed up ${displayPath(backup.file)} to ${displayPath(backup.backup)}.\n`);
		io.out(`${format.label} now launches hangar ${what}:\n  ${command}\n${removed}`);
		io.out(`Restart ${format.label} (or reload its MCP servers). To go back: ${self} setup ${format.id} --undo\n`);
	}

	for (const other of plan.untouched) {
		io.out(`Left as they are: the servers in ${displayPath(other.file)} (a project's file, shared with whoever uses the project).\n`);
	}

	return 0;
}
