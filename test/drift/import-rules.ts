/**
 * The import rules of source/, as data the drift tests check the code and
 * docs/architecture.md against: the layers of source/core/ from the bottom
 * up, the only modules that may import the MCP SDK, and what a module loads
 * when it is imported (its import closure).
 */
import fs from 'node:fs';
import path from 'node:path';

/** source/core/'s folders from the bottom up; each imports only the folders before it. */
export const layers = ['base', 'config', 'wire', 'link', 'engine', 'views', 'gateway', 'endpoints'] as const;

/** The MCP SDK's packages (v2): hangar's code imports these, never the v1 `@modelcontextprotocol/sdk`. */
export const sdkPackages = ['@modelcontextprotocol/client', '@modelcontextprotocol/server', '@modelcontextprotocol/core'] as const;

/** Whether `specifier` names a module of the MCP SDK, v2 or v1. */
export const isSdkSpecifier = (specifier: string): boolean => specifier === '@modelcontextprotocol/sdk' || specifier.startsWith('@modelcontextprotocol/');

/** The modules of source/core/ that may import the MCP SDK (paths under source/core/). */
export const sdkModules = [
	'link/connection.ts',
	'link/remote-transport.ts',
	// The OAuth client's discovery, registration, PKCE, code exchange and refresh: @modelcontextprotocol/client's auth helpers.
	'link/oauth-sdk.ts',
	'link/child-process-transport.ts',
	// The 2026-07-28 envelope keys and the negotiation options for a modern upstream.
	'link/modern-mode.ts',
	'wire/line-transport.ts',
	'gateway/pipeline.ts',
	'gateway/request-params.ts',
	// Which generation a request speaks: the SDK's own envelope classifier.
	'gateway/protocol-era.ts',
	'gateway/session.ts',
	'gateway/client-requests.ts',
	'gateway/tool-requests.ts',
	'gateway/catalog-requests.ts',
	'endpoints/supervisor-client.ts',
	'endpoints/http-session.ts',
	'endpoints/http-modern.ts',
	// Resource template matching is the SDK's UriTemplate (RFC 6570), so hangar matches a URI as the upstream's SDK would.
	'engine/routing/resource-uris.ts',
	// Which upstream tools MCP clients accept: the SDK's own Tool schema, as clients check tools/list.
	'engine/upstream/tool-check.ts',
];

export type SourceImport = {
	file: string;
	specifier: string;
	/** For a relative import: the imported file, relative to source/. */
	target?: string;
	/** `import type` / `export type`: compiled to nothing, loads nothing. */
	typeOnly?: boolean;
	/** `import(...)`: loaded when that code runs, not with the module. */
	dynamic?: boolean;
};

/** Every static and dynamic import of every .ts/.tsx file under `dir` (relative to `sourceRoot`). */
export function importsUnder(sourceRoot: string, dir: string): SourceImport[] {
	const found: SourceImport[] = [];
	const walk = (relative: string) => {
		for (const entry of fs.readdirSync(path.join(sourceRoot, relative), {withFileTypes: true})) {
			const child = path.posix.join(relative, entry.name);
			if (entry.isDirectory()) walk(child);
			else if (/\.tsx?$/.test(entry.name)) {
				const text = fs.readFileSync(path.join(sourceRoot, child), 'utf8');
				const statements: Array<{specifier: string; typeOnly: boolean; dynamic: boolean}> = [
					...[...text.matchAll(/^\s*(?:import|export)(\s+type)?\b[^'"]*?from\s*['"]([^'"]+)['"]/gm)].map(match => ({specifier: match[2]!, typeOnly: match[1] !== undefined, dynamic: false})),
					...[...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)].map(match => ({specifier: match[1]!, typeOnly: false, dynamic: false})),
					...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map(match => ({specifier: match[1]!, typeOnly: false, dynamic: true})),
				];
				for (const {specifier, typeOnly, dynamic} of statements) {
					const target = specifier.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(child), specifier)) : undefined;
					found.push({file: child, specifier, ...(target === undefined ? {} : {target}), typeOnly, dynamic});
				}
			}
		}
	};

	walk(dir);
	return found;
}

/**
 * Every module of source/ that importing `entry` (relative to source/) loads,
 * `entry` included: relative imports followed transitively, type-only ones
 * not (they compile to nothing), dynamic ones only with `dynamic` (they load
 * when their code runs).
 */
export function importClosure(sourceRoot: string, entry: string, options: {dynamic: boolean}): string[] {
	const byFile = new Map<string, SourceImport[]>();
	for (const found of importsUnder(sourceRoot, '.')) byFile.set(found.file, [...(byFile.get(found.file) ?? []), found]);
	const moduleFile = (target: string): string => {
		const base = target.replace(/\.js$/, '');
		const file = ['.ts', '.tsx'].map(extension => `${base}${extension}`).find(candidate => fs.existsSync(path.join(sourceRoot, candidate)));
		if (file === undefined) throw new Error(`${target} is not a module under ${sourceRoot}`);
		return file;
	};

	const seen = new Set<string>([entry]);
	const queue = [entry];
	while (queue.length > 0) {
		for (const {target, typeOnly, dynamic} of byFile.get(queue.shift()!) ?? []) {
			if (target === undefined || typeOnly === true || (dynamic === true && !options.dynamic)) continue;
			const file = moduleFile(target);
			if (seen.has(file)) continue;
			seen.add(file);
			queue.push(file);
		}
	}

	return [...seen];
}
