/**
 * Masks secrets before they reach anything a person, a client or a file
 * sees: logs at every level, status, management tools, the TUI, error
 * messages and the state files all pass their text through `maskText`.
 *
 * Two kinds of secrets are masked:
 * - by shape: URL userinfo (`https://user:pass@…`), values of query
 *   parameters, flags (`--token x`, `--api-key=x`), `KEY=value` pairs, JSON
 *   keys and HTTP auth schemes whose names look secret;
 * - by value: the secrets a config holds (see `launchSecrets`), registered
 *   once per process with `registerSecrets`, wherever they appear (an
 *   upstream that prints its own token on stderr, a URL inside an error
 *   from a library).
 *
 * Message bodies logged at debug level also have their secret-looking keys
 * masked (`maskSecrets`).
 */
import {maxNestingDepth, nestedTooDeep} from './nesting.js';
import {isRawJson} from './exact-json.js';

const secretKey = /pass(?:word|wd|phrase)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key|session[-_]?key/i;

/** Names of query parameters, flags and variables whose values are secrets (`api_key`, `--token`, `GITHUB_PAT`, `sig`). */
const secretName = /pass(?:word|wd|phrase)?|secret|token|api[-_]?key|apikey|access[-_]?key|authori[sz]ation|(?:^|[-_])auth(?:$|[-_])|cookie|credential|private[-_]?key|session[-_]?key|signature|^(?:key|sig|pat)$|_pat$/i;

/** Flags that name where a secret is, not the secret itself (`--token-file PATH`). */
const pointerName = /[-_](?:file|path|dir|env|var|source)$/i;

export const mask = '***';

/** Shortest config value replaced wherever it appears: shorter ones ("true", "1234") would mask ordinary words. */
export const minSecretLength = 6;

const knownSecrets = new Set<string>();
/** Longest first, so a secret that contains another is replaced whole. */
let knownList: string[] = [];

/** Values (from the config) that are masked wherever they appear, in this process, from now on. */
export function registerSecrets(values: Iterable<string>): void {
	let added = false;
	for (const value of values) {
		if (value.length < minSecretLength || knownSecrets.has(value)) continue;
		knownSecrets.add(value);
		added = true;
	}

	if (added) knownList = [...knownSecrets].sort((a, b) => b.length - a.length);
}

/** isSecretName's answers for the names seen last (the same few keys come with every call); emptied when full. */
const secretNameAnswers = new Map<string, boolean>();
const secretNameAnswersLimit = 1000;

export function isSecretName(name: string): boolean {
	let answer = secretNameAnswers.get(name);
	if (answer !== undefined) return answer;
	const bare = name.replace(/^-+/, '');
	answer = secretName.test(bare) && !pointerName.test(bare);
	if (name.length <= 64) {
		if (secretNameAnswers.size >= secretNameAnswersLimit) secretNameAnswers.clear();
		secretNameAnswers.set(name, answer);
	}

	return answer;
}

const userinfo = /\b([a-z][a-z\d+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;
const queryPair = /([?&;])([^=&#\s"'<>]+)=([^&#\s"'<>]*)/g;
const flagValue = /(^|[\s"'([])(--?[a-z\d][\w.-]*)(=|[ \t]+)("[^"]*"|'[^']*'|[^\s"')\]]+)/gi;
const assignment = /(^|[\s"'([,;:])([a-z_][\w.-]*)=("[^"]*"|'[^']*'|[^\s"'&;,)\]]+)/gi;
const jsonPair = /("([^"\\]*)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;
const authScheme = /\b(Bearer|Basic|Token)\s+[\w.~+/=-]{6,}/g;

/** `text` with every secret in it (by shape or by value) replaced by ***. */
export function maskText(text: string): string {
	let out = text;
	for (const secret of knownList) if (out.includes(secret)) out = out.replaceAll(secret, mask);
	// Cheap tests first: most log lines hold none of the characters a secret's shape needs.
	if (out.includes('://')) out = out.replace(userinfo, `$1${mask}@`);
	if (out.includes('=')) {
		out = out.replace(queryPair, (whole, separator: string, name: string, value: string) => (value !== '' && value !== mask && isSecretName(name) ? `${separator}${name}=${mask}` : whole));
		out = out.replace(assignment, (whole, before: string, name: string, value: string) => (value !== mask && isSecretName(name) ? `${before}${name}=${mask}` : whole));
	}

	if (out.includes('-')) {
		out = out.replace(flagValue, (whole, before: string, flag: string, separator: string, value: string) =>
			value !== mask && !value.startsWith('-') && isSecretName(flag) ? `${before}${flag}${separator}${mask}` : whole,
		);
	}

	if (out.includes('":')) out = out.replace(jsonPair, (whole, key: string, name: string) => (isSecretName(name) ? `${key}"${mask}"` : whole));
	if (/Bearer|Basic|Token/.test(out)) out = out.replace(authScheme, `$1 ${mask}`);
	return out;
}

/** Characters past a cut that are masked with the text before it: a secret that begins before the cut is masked whole. */
const maskMargin = 8192;

/**
 * `maskText(text)` cut to `limit` characters, saying so: an upstream's
 * error message may be megabytes, and whatever keeps it (the calls log, the
 * audit file, a span) keeps a bounded part. Masked before it is cut, so a
 * secret that crosses the cut is not left half shown.
 */
export function maskTextWithin(text: string, limit: number): string {
	const head = text.length > limit + maskMargin ? text.slice(0, limit + maskMargin) : text;
	const masked = maskText(head);
	if (masked.length <= limit && head === text) return masked;
	return `${masked.slice(0, limit)}… (cut at ${limit} characters)`;
}

/** An upstream's arguments with every secret value masked (`--token x`, `--token=x`, `API_KEY=x`, URLs with userinfo). */
export function maskArgs(args: readonly string[]): string[] {
	const out: string[] = [];
	for (let index = 0; index < args.length; index++) {
		const arg = args[index]!;
		const flag = /^(--?[a-z\d][\w.-]*)=/i.exec(arg);
		const pair = /^([a-z_][\w.-]*)=/i.exec(arg);
		if (flag !== null && isSecretName(flag[1]!)) {
			out.push(`${flag[1]}=${mask}`);
		} else if (pair !== null && isSecretName(pair[1]!)) {
			out.push(`${pair[1]}=${mask}`);
		} else if (/^--?[a-z\d][\w.-]*$/i.test(arg) && isSecretName(arg) && index + 1 < args.length && !args[index + 1]!.startsWith('-')) {
			out.push(arg, mask);
			index += 1;
		} else {
			out.push(maskText(arg));
		}
	}

	return out;
}

/** The shape of a launch this module needs (config/read-config.ts's StdioLaunch and RemoteLaunch). */
export type LaunchSecrets = {args?: readonly string[]; env?: Readonly<Record<string, string>>; url?: string; headers?: Readonly<Record<string, string>>};

/**
 * The secret values one upstream's launch holds, to be masked wherever they
 * appear: URL userinfo and secret-looking query values, argument values after
 * secret-looking flags or in secret-looking `KEY=value` pairs, values of env
 * variables and headers with secret-looking names (and the credentials of an
 * `Authorization: Bearer …` header).
 */
export function launchSecrets(launch: LaunchSecrets): string[] {
	const found: string[] = [];
	if (launch.url !== undefined) {
		try {
			const url = new URL(launch.url);
			const password = decodeURIComponent(url.password);
			const username = decodeURIComponent(url.username);
			if (password !== '') found.push(password, url.password);
			// A lone user name in a URL is usually a token (https://TOKEN@host).
			else if (username !== '') found.push(username, url.username);
			for (const [name, value] of url.searchParams) if (isSecretName(name)) found.push(value);
		} catch {}
	}

	const args = launch.args ?? [];
	for (let index = 0; index < args.length; index++) {
		const arg = args[index]!;
		const pair = /^(--?[a-z\d][\w.-]*|[a-z_][\w.-]*)=(.*)$/is.exec(arg);
		if (pair !== null && isSecretName(pair[1]!)) found.push(pair[2]!);
		else if (/^--?[a-z\d][\w.-]*$/i.test(arg) && isSecretName(arg) && index + 1 < args.length && !args[index + 1]!.startsWith('-')) found.push(args[index + 1]!);
	}

	for (const [name, value] of Object.entries(launch.env ?? {})) if (isSecretName(name)) found.push(value);
	for (const [name, value] of Object.entries(launch.headers ?? {})) {
		if (!isSecretName(name)) continue;
		found.push(value);
		const credentials = /^\s*\S+\s+(\S+)\s*$/.exec(value);
		if (credentials !== null) found.push(credentials[1]!);
	}

	return found.filter(value => value.length >= minSecretLength);
}

/**
 * A copy of `value` with secret-looking keys' values and every `secrets` string replaced by ***,
 * and what is nested deeper than `maxNestingDepth` by `nestedTooDeep`.
 */
export function maskSecrets(value: unknown, secrets: readonly string[] = [], depth = 0): unknown {
	if (depth > maxNestingDepth) return nestedTooDeep;
	if (typeof value === 'string') {
		let text = value;
		for (const secret of secrets) if (secret !== '') text = text.replaceAll(secret, mask);
		return text;
	}

	if (Array.isArray(value)) return value.map(item => maskSecrets(item, secrets, depth + 1));
	// A number kept as its text (base/exact-json.ts) is a leaf.
	if (typeof value === 'object' && value !== null && !isRawJson(value)) {
		return Object.fromEntries(
			Object.entries(value).map(([key, inner]) => [key, secretKey.test(key) ? mask : maskSecrets(inner, secrets, depth + 1)]),
		);
	}

	return value;
}

/**
 * A copy of `value` with `maskText` applied to every string in it (keys and structure untouched),
 * except that what is nested deeper than `maxNestingDepth` is replaced by `nestedTooDeep`.
 */
export function maskStrings<T>(value: T, depth = 0): T {
	if (depth > maxNestingDepth) return nestedTooDeep as T;
	if (typeof value === 'string') return maskText(value) as T;
	if (Array.isArray(value)) return value.map(item => maskStrings(item as unknown, depth + 1)) as T;
	if (typeof value === 'object' && value !== null && !isRawJson(value)) {
		return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, maskStrings(inner as unknown, depth + 1)])) as T;
	}

	return value;
}

/** `value` masked and serialized for a log line, cut to `maxChars`. */
export function maskedJson(value: unknown, secrets: readonly string[] = [], maxChars = 4000): string {
	const text = JSON.stringify(maskSecrets(value, secrets)) ?? String(value);
	return text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length} chars)` : text;
}
