/**
 * The import rules of source/, as data the drift tests check the code and
 * docs/architecture.md against: the layers of source/core/ from the bottom
 * up, and the only modules that may import the MCP SDK.
 */
import fs from 'node:fs';
import path from 'node:path';

/** source/core/'s folders from the bottom up; each imports only the folders before it. */
export const layers = ['base', 'config', 'wire', 'upstream', 'engine', 'gateway', 'endpoints'] as const;

/** The modules of source/core/ that may import @modelcontextprotocol/sdk (paths under source/core/). */
export const sdkModules = [
	'upstream/connection.ts',
	'upstream/child-process-transport.ts',
	'wire/line-transport.ts',
	'gateway/session.ts',
	'gateway/management-tools.ts',
	'gateway/catalog-requests.ts',
	'endpoints/supervisor-client.ts',
	'endpoints/http-endpoint.ts',
	// Resource template matching is the SDK's UriTemplate (RFC 6570), so hangar matches a URI as the upstream's SDK would.
	'engine/resource-uris.ts',
];

export type SourceImport = {file: string; specifier: string; /** For a relative import: the imported file, relative to source/. */ target?: string};

/** Every static and dynamic import of every .ts/.tsx file under `dir` (relative to `sourceRoot`). */
export function importsUnder(sourceRoot: string, dir: string): SourceImport[] {
	const found: SourceImport[] = [];
	const walk = (relative: string) => {
		for (const entry of fs.readdirSync(path.join(sourceRoot, relative), {withFileTypes: true})) {
			const child = path.posix.join(relative, entry.name);
			if (entry.isDirectory()) walk(child);
			else if (/\.tsx?$/.test(entry.name)) {
				const text = fs.readFileSync(path.join(sourceRoot, child), 'utf8');
				const specifiers = [
					...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm),
					...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
				].map(match => match[1]!);
				for (const specifier of specifiers) {
					const target = specifier.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(child), specifier)) : undefined;
					found.push({file: child, specifier, ...(target === undefined ? {} : {target})});
				}
			}
		}
	};

	walk(dir);
	return found;
}
