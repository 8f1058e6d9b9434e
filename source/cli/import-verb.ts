/**
 * `mcp-hangar import [CLIENT|all|FILE] [--dry-run]`: finds other clients'
 * config files, prints what would be imported from each and why (renamed,
 * already there, a duplicate, unusable, keys dropped), and with a CLIENT,
 * `all` or a FILE writes the new servers into hangar's config.
 *
 * Output contract: the report on stdout, problems on stderr; exit 0 when
 * every file could be read, 1 when one could not, 2 for bad usage.
 */
import fs from 'node:fs';
import path from 'node:path';
import {didYouMean} from '../core/base/closest-match.js';
import {clientFormat, clientFormats, currentEnvironment, findClientFormat, locationOfFile} from '../client-files/client-formats.js';
import type {ClientEnvironment, ClientFile, ClientLocation, ForeignServer} from '../client-files/client-model.js';
import {editableConfigPath, entryProblem, openHangarConfig, saveHangarConfig, withServer} from '../client-files/hangar-config-file.js';
import {planImport, type ImportItem} from '../client-files/import-plan.js';
import {selfCommand} from '../client-files/hangar-launch.js';
import {shellWord} from '../core/base/shell-words.js';
import {ClientFileError, readClientFile} from '../client-files/read-client-file.js';
import {displayPath, maskedOutput, summarizeEntry} from './server-summary.js';
import {UsageError} from '../core/base/usage-error.js';

type Output = {out: (text: string) => void; err: (text: string) => void};

export type ImportOptions = {source: string | undefined; dryRun: boolean; config: string | undefined; environment?: ClientEnvironment};

/** The files a source argument names: every client's, one client's, or one file. */
function sourceLocations(source: string | undefined, environment: ClientEnvironment): {locations: ClientLocation[]; explicit: boolean} {
	if (source === undefined || source === 'all') return {locations: onePerFile(clientFormats.flatMap(format => format.locations(environment))), explicit: false};
	const format = findClientFormat(source);
	if (format !== undefined) return {locations: onePerFile(format.locations(environment)), explicit: true};
	const looksLikePath = source.includes('/') || source.includes('\\') || source.includes('.') || fs.existsSync(path.resolve(environment.cwd, source));
	if (!looksLikePath) {
		throw new UsageError(
			`"${source}" is neither a client nor a file.${didYouMean(source, clientFormats.map(entry => entry.id))} Clients: ${clientFormats.map(entry => entry.id).join(', ')}; or give a file's path`,
		);
	}

	const file = path.resolve(environment.cwd, source);
	if (!fs.existsSync(file)) throw new UsageError(`${file} does not exist`);
	return {locations: [locationOfFile(file, environment) ?? guessLocation(file)], explicit: true};
}

/**
 * Each file once: a project's file can be a user's file too (Cursor's
 * `.cursor/mcp.json` when the project is the home directory). The first
 * location, the user's, is kept.
 */
function onePerFile(locations: ClientLocation[]): ClientLocation[] {
	const seen = new Set<string>();
	return locations.filter(location => {
		let key = path.resolve(location.file);
		try {
			key = fs.realpathSync(key);
		} catch {
			// Not there (yet): its path as written identifies it.
		}

		if (seen.has(key)) return false;
		seen.add(key);
		return true;
	});
}

/**
 * A file by path whose name no client uses: VS Code's shape when it has
 * "servers", else the common "mcpServers" one (read as Claude Code reads
 * it). Such a file is often pasted from docs or another client, so it is
 * read leniently (comments, trailing commas), as hangar's own config error
 * promises when it sends a person here.
 */
function guessLocation(file: string): ClientLocation {
	let text = '';
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch {
		// readClientFile reports it.
	}

	const vscodeShape = /"servers"\s*:/.test(text) && !/"mcpServers"\s*:/.test(text);
	return {client: vscodeShape ? 'vscode' : 'claude-code', scope: 'user', file, lenient: true};
}

function itemLine(item: ImportItem): string[] {
	const {server} = item;
	switch (item.kind) {
		case 'add': {
			return [
				`  + ${item.name.padEnd(24)} ${summarizeEntry(item.entry)}`,
				...(item.renamed === undefined ? [] : [`      renamed from "${server.name}" (${item.renamed})`]),
				...server.notes.map(note => `      ${note}`),
			];
		}

		case 'present': {
			return [`  = ${server.name.padEnd(24)} already in hangar's config as "${item.name}"`];
		}

		case 'duplicate': {
			const where = `${clientFormat(item.first.client).label}, ${displayPath(item.first.file)}`;
			return [`  = ${server.name.padEnd(24)} same server as "${item.name}" (${where}): imported once`];
		}

		case 'hangar': {
			return [`  - ${server.name.padEnd(24)} skipped: it launches hangar itself`];
		}

		case 'unusable': {
			return [`  ! ${server.name.padEnd(24)} not imported: ${item.problem}; fix it in ${displayPath(server.file)} and import again`, ...server.notes.map(note => `      ${note}`)];
		}
	}
}

function groupLabel(server: ForeignServer): string {
	return server.group.path[0] === 'projects' ? ` (project ${server.group.projectDir ?? server.group.path[1]})` : '';
}

function report(files: readonly ClientFile[], items: readonly ImportItem[], io: Output): void {
	for (const file of files) {
		const format = clientFormat(file.location.client);
		const count = file.servers.length;
		io.out(`${format.label}, ${displayPath(file.location.file)}: ${count} server${count === 1 ? '' : 's'}\n`);
		for (const note of file.notes) io.out(`  note: ${note}\n`);
		const labels = new Set<string>();
		for (const item of items.filter(entry => file.servers.includes(entry.server))) {
			const label = groupLabel(item.server);
			if (label !== '' && !labels.has(label)) {
				labels.add(label);
				io.out(` ${label.trim()}:\n`);
			}

			for (const line of itemLine(item)) io.out(`${line}\n`);
		}
	}
}

/** Why an import added nothing, by what became of the servers found. */
function nothingAdded(items: readonly ImportItem[]): string {
	if (items.length === 0) return 'no servers found';
	const count = (kinds: Array<ImportItem['kind']>) => items.filter(item => kinds.includes(item.kind)).length;
	const parts: Array<[number, string]> = [
		[count(['present', 'duplicate']), 'already in it'],
		[count(['unusable']), 'not importable (see above)'],
		[count(['hangar']), 'launching hangar itself'],
	];
	return `of the ${items.length} server${items.length === 1 ? '' : 's'} found, ${parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`).join(', ')}`;
}

export function importVerb(options: ImportOptions, unmasked: Output): number {
	const io = maskedOutput(unmasked);
	const environment = options.environment ?? currentEnvironment();
	const self = selfCommand(environment.env);
	const {locations, explicit} = sourceLocations(options.source, environment);
	const files: ClientFile[] = [];
	let failed = false;
	for (const location of locations) {
		try {
			const file = readClientFile(location, environment);
			if (file !== undefined) files.push(file);
		} catch (error) {
			if (!(error instanceof ClientFileError)) throw error;
			failed = true;
			io.err(`mcp-hangar: cannot import from ${clientFormat(location.client).label}: ${error.message}. Fix the file (the client itself may report the same), or import another client.\n`);
		}
	}

	if (files.length === 0) {
		if (failed) return 1;
		const looked = locations.map(location => `  ${clientFormat(location.client).label}: ${displayPath(location.file)}`).join('\n');
		if (explicit) {
			io.err(`mcp-hangar: no ${clientFormat(locations[0]!.client).label} config found. Looked for:\n${looked}\n`);
			return 1;
		}

		io.out(`No MCP client config found. Looked for:\n${looked}\nAdd servers by hand with ${self} add NAME -- COMMAND [ARGS...].\n`);
		return 0;
	}

	// A file given by path (no client's) that holds no servers in any form hangar reads is not "0 servers, nothing to add": it is not such a file.
	const shapeless = files.find(file => file.location.lenient === true && !file.hasServerMap);
	if (shapeless !== undefined) {
		const why = shapeless.notes.length === 0 ? '' : ` (${shapeless.notes.join('; ')})`;
		io.err(
			`mcp-hangar: ${displayPath(shapeless.location.file)} holds no MCP servers in a form hangar knows${why}. ` +
				`Expected {"mcpServers": {"NAME": {"command": "npx", "args": [...]}}} (or {"NAME": {"url": ...}} entries), VS Code's {"servers": {...}}, ` +
				`or a README's bare {"NAME": {"command": ...}}. Nothing was written.\n`,
		);
		return 1;
	}

	const configPath = editableConfigPath(options.config);
	const config = openHangarConfig(configPath);
	const items = planImport(files, config.servers, entry => entryProblem(entry));
	report(files, items, io);
	const added = items.filter((item): item is Extract<ImportItem, {kind: 'add'}> => item.kind === 'add');
	const target = `${displayPath(configPath)}${config.exists ? '' : ' (a new file)'}`;
	io.out('\n');

	if (options.source === undefined || options.dryRun) {
		io.out(`${added.length} server${added.length === 1 ? '' : 's'} would be added to ${target}. Nothing was written.\n`);
		if (options.source === undefined && added.length > 0) {
			const found = [...new Set(files.map(file => file.location.client))];
			io.out(`To import: ${self} import all${options.config === undefined ? '' : ` --config ${shellWord(configPath)}`}, or one client: ${found.map(id => `${self} import ${id}`).join(', ')}.\n`);
		}

		return failed ? 1 : 0;
	}

	if (added.length === 0) {
		io.out(`Nothing to add to ${target}: ${nothingAdded(items)}.\n`);
		return failed ? 1 : 0;
	}

	let text = config.text;
	for (const item of added) text = withServer(text, item.name, item.entry);
	saveHangarConfig(config, text);
	io.out(`Added ${added.length} server${added.length === 1 ? '' : 's'} to ${target}: ${added.map(item => item.name).join(', ')}.\n`);
	// A file no client names (given by path) was only read in a client's format: setting up that client would rewrite its own file.
	const guessed = new Set(files.filter(file => file.location.lenient === true).map(file => file.location.file));
	const clients = [...new Set(added.filter(item => !guessed.has(item.server.file)).map(item => item.server.client))];
	const configFlag = `--config ${shellWord(configPath)}`;
	const next =
		clients.length === 0
			? `Then point your client at hangar: ${self} setup CLIENT ${configFlag} (CLIENT: ${clientFormats.map(format => format.id).join(', ')}).`
			: `Then point a client at hangar: ${clients.map(id => `${self} setup ${id} ${configFlag}`).join(', ')}.`;
	io.out(`Check it: ${self} --check-config ${configFlag}\n${next}\n`);
	return failed ? 1 : 0;
}
