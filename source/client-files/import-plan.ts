/**
 * What importing a set of client files into hangar's config would do, entry
 * by entry, decided before anything is written so `--dry-run` and the real
 * run print the same plan. The same upstream configured in two clients (the
 * same whole launch: command, arguments, env, envFile and cwd, or URL and
 * headers) is imported once; two entries that differ in any of these (two
 * tokens for one server) are two upstreams, each kept under its own name; one hangar already
 * has is not imported again; an entry that launches hangar itself is
 * skipped. Names are made valid and unique, never by overwriting a server
 * already in the config.
 */
import {launchesHangar, serverIdentity, type ClientFile, type ForeignServer, type HangarEntry} from './client-model.js';
import {freeServerName, validServerName} from './server-name.js';

export type ImportItem =
	| {kind: 'add'; server: ForeignServer; entry: HangarEntry; name: string; renamed: string | undefined}
	| {kind: 'duplicate'; server: ForeignServer; name: string; first: ForeignServer}
	| {kind: 'present'; server: ForeignServer; name: string}
	| {kind: 'hangar'; server: ForeignServer}
	| {kind: 'unusable'; server: ForeignServer; problem: string};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The identity of an entry as written in hangar's config (undefined when it is neither kind). */
export function existingIdentity(raw: unknown): string | undefined {
	if (!isRecord(raw)) return undefined;
	const {command, args, url} = raw;
	const strings = (value: unknown): Record<string, string> | undefined =>
		isRecord(value) ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, String(item)])) : undefined;
	const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
	if (typeof url === 'string') return serverIdentity({url, ...optional('headers', strings(raw.headers))});
	if (typeof command === 'string') {
		return serverIdentity({
			command,
			args: Array.isArray(args) ? args.map(String) : [],
			...optional('env', strings(raw.env)),
			...optional('envFile', text(raw.envFile)),
			...optional('cwd', text(raw.cwd)),
		});
	}

	return undefined;
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> => (value === undefined ? {} : ({[key]: value} as Record<K, V>));

/**
 * `validate` says why hangar would refuse an entry (undefined: it would not),
 * so one entry hangar cannot load never blocks the others.
 */
export function planImport(files: readonly ClientFile[], existing: Record<string, unknown>, validate: (entry: HangarEntry) => string | undefined = () => undefined): ImportItem[] {
	const names = new Set(Object.keys(existing));
	const known = new Map<string, {name: string; first: ForeignServer | undefined}>();
	for (const [name, raw] of Object.entries(existing)) {
		const identity = existingIdentity(raw);
		if (identity !== undefined && !known.has(identity)) known.set(identity, {name, first: undefined});
	}

	const items: ImportItem[] = [];
	for (const server of files.flatMap(file => file.servers)) {
		if (server.entry === undefined) {
			items.push({kind: 'unusable', server, problem: server.problem ?? 'it cannot be used'});
			continue;
		}

		if (launchesHangar(server.name, server.entry)) {
			items.push({kind: 'hangar', server});
			continue;
		}

		const refusal = validate(server.entry);
		if (refusal !== undefined) {
			items.push({kind: 'unusable', server, problem: refusal});
			continue;
		}

		const identity = serverIdentity(server.entry);
		const seen = known.get(identity);
		if (seen !== undefined) {
			items.push(seen.first === undefined ? {kind: 'present', server, name: seen.name} : {kind: 'duplicate', server, name: seen.name, first: seen.first});
			continue;
		}

		const valid = validServerName(server.name);
		const name = freeServerName(valid, candidate => names.has(candidate));
		const reasons = [
			...(valid === server.name ? [] : ['not a valid hangar name']),
			...(name === valid ? [] : [`"${valid}" is taken`]),
		];
		names.add(name);
		known.set(identity, {name, first: server});
		items.push({kind: 'add', server, entry: server.entry, name, renamed: reasons.length === 0 ? undefined : reasons.join(', ')});
	}

	return items;
}
