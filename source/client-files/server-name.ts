/**
 * Server names other clients allow but hangar cannot use. A hangar name
 * becomes the tool prefix `<server>__<tool>`, so it is 1-32 letters, digits,
 * "-" and single "_" (see serverNamePattern in the config). Other clients
 * write `github.com/owner/repo` (Cline), `My Server` (VS Code) or
 * `@scope/pkg`: the last path segment is the part a person recognises.
 */
import {serverNameMaxLength, serverNamePattern} from '../core/config/read-config.js';

export function isValidServerName(name: string): boolean {
	return serverNamePattern.test(name) && name.length <= serverNameMaxLength && !name.endsWith('_');
}

/** A valid hangar name as close to `name` as possible (the same name when it is valid). */
export function validServerName(name: string): string {
	if (isValidServerName(name)) return name;
	const segments = name.split(/[/\\]+/).filter(segment => /[A-Za-z0-9]/.test(segment));
	const base = segments.at(-1) ?? name;
	const cleaned = base
		.replaceAll(/[^A-Za-z0-9_-]+/g, '-')
		.replaceAll(/_{2,}/g, '_')
		.replaceAll(/-{2,}/g, '-')
		.replace(/^[^A-Za-z0-9]+/, '');
	return trimEnd(cleaned.slice(0, serverNameMaxLength)) || 'server';
}

function trimEnd(name: string): string {
	return name.replace(/[-_]+$/, '');
}

/** `name`, or `name-2`, `name-3`, … (cut to fit), whichever is not taken. */
export function freeServerName(name: string, taken: (candidate: string) => boolean): string {
	if (!taken(name)) return name;
	for (let n = 2; ; n++) {
		const suffix = `-${n}`;
		const candidate = `${trimEnd(name.slice(0, serverNameMaxLength - suffix.length))}${suffix}`;
		if (!taken(candidate)) return candidate;
	}
}
