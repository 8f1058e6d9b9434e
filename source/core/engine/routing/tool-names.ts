/**
 * Exposed tool and prompt names: `<namespace>__<name>` (the namespace is the
 * server name unless the config sets another, or `false` for none), valid
 * for `^[a-zA-Z0-9_-]{1,64}$` (the strictest rule clients apply). Characters outside that set become
 * `_`; a name that was changed or is too long gets a stable hash suffix of
 * the original, so the same upstream tool always gets the same exposed name
 * and two different tools never collide.
 */
import {createHash} from 'node:crypto';

export const separator = '__';
export const maxToolNameLength = 64;
const validName = /^[a-zA-Z0-9_-]{1,64}$/;

function shortHash(text: string): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

export function exposedToolName(server: string, tool: string): string {
	const plain = `${server}${separator}${tool}`;
	if (validName.test(plain)) return plain;
	const cleaned = `${server}${separator}${tool.replaceAll(/[^a-zA-Z0-9_-]/g, '_')}`;
	const suffix = `_${shortHash(plain)}`;
	return `${cleaned.slice(0, maxToolNameLength - suffix.length)}${suffix}`;
}

/**
 * The name clients see for a tool or prompt of an upstream with `namespace`:
 * `<namespace>__<name>`, or with `false` the upstream's own name (made valid
 * the same way when it is not).
 */
export function exposedName(namespace: string | false, name: string): string {
	if (namespace !== false) return exposedToolName(namespace, name);
	if (validName.test(name)) return name;
	const suffix = `_${shortHash(name)}`;
	return `${name.replaceAll(/[^a-zA-Z0-9_-]/g, '_').slice(0, maxToolNameLength - suffix.length)}${suffix}`;
}

/** How tool names are made, as a sentence for an unknown tool's error: `own` of the `total` servers have `"namespace": false`. */
export function toolNaming(own: number, total: number): string {
	if (own === 0) return 'Tool names are "<server>__<tool>"';
	if (own === total) return 'Tool names are the tools\' own (every server has "namespace": false)';
	return 'Tool names are "<server>__<tool>", or the tool\'s own name for a server with "namespace": false';
}
