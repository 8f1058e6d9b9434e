/**
 * Reads one client file into the shared model: parses it in its syntax,
 * finds its server maps and converts every entry with the client's dialect.
 */
import fs from 'node:fs';
import path from 'node:path';
import {pastedGroups} from './client-format.js';
import {clientFormat} from './client-formats.js';
import type {ClientEnvironment, ClientFile, ClientLocation} from './client-model.js';
import {parseJson} from './json-text.js';
import {convertServer} from './server-entry.js';
import {parseToml} from './toml.js';

/** A client file that exists but cannot be read or parsed. */
export class ClientFileError extends Error {
	constructor(
		readonly file: string,
		problem: string,
	) {
		super(`${file}: ${problem}`);
		this.name = 'ClientFileError';
	}
}

export function parseClientText(text: string, syntax: 'json' | 'jsonc' | 'toml'): unknown {
	return syntax === 'toml' ? parseToml(text) : parseJson(text, {jsonc: syntax === 'jsonc'});
}

/** The file's servers; undefined when the file does not exist. Throws ClientFileError when it cannot be read or parsed. */
export function readClientFile(location: ClientLocation, environment: ClientEnvironment): ClientFile | undefined {
	let text: string;
	try {
		text = fs.readFileSync(location.file, 'utf8');
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
		throw new ClientFileError(location.file, `cannot read the file (${code ?? String(error)})`);
	}

	return clientFileFromText(location, text, environment);
}

export function clientFileFromText(location: ClientLocation, text: string, environment: ClientEnvironment): ClientFile {
	const format = clientFormat(location.client);
	let root: unknown;
	try {
		// An empty file is what some clients leave before their first server.
		// A file given by path that is empty is not a client's: undefined says so (pastedGroups).
		root = text.trim() === '' ? (location.lenient === true ? undefined : {}) : parseClientText(text, location.lenient === true && format.syntax === 'json' ? 'jsonc' : format.syntax);
	} catch (error) {
		throw new ClientFileError(location.file, `not valid ${format.syntax === 'toml' ? 'TOML' : 'JSON'}: ${(error as Error).message}`);
	}

	// A file no client names may be any of their shapes, or a README's bare snippet.
	const {groups, notes} = location.lenient === true ? pastedGroups(format, root, location) : format.groups(root, location);
	const servers = groups.flatMap(group =>
		Object.entries(group.servers).map(([name, raw]) =>
			convertServer(name, raw, format.dialect, {client: location.client, file: location.file, group, home: environment.home, platform: environment.platform}),
		),
	);
	return {location: {...location, file: path.resolve(location.file)}, servers, notes, hasServerMap: groups.length > 0};
}
