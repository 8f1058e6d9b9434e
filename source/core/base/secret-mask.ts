/**
 * Masks secrets in message bodies before they reach a log: values under keys
 * that name a secret (token, password, api key, authorization, ...) and any
 * occurrence of a known secret (hangar's own bearer token) anywhere in a
 * string. Bodies are logged only at debug level, and only through this.
 */

const secretKey = /pass(?:word|wd|phrase)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key|session[-_]?key/i;

export const mask = '***';

/** A copy of `value` with secret-looking keys' values and every `secrets` string replaced by ***. */
export function maskSecrets(value: unknown, secrets: readonly string[] = []): unknown {
	if (typeof value === 'string') {
		let text = value;
		for (const secret of secrets) if (secret !== '') text = text.replaceAll(secret, mask);
		return text;
	}

	if (Array.isArray(value)) return value.map(item => maskSecrets(item, secrets));
	if (typeof value === 'object' && value !== null) {
		return Object.fromEntries(
			Object.entries(value).map(([key, inner]) => [key, secretKey.test(key) ? mask : maskSecrets(inner, secrets)]),
		);
	}

	return value;
}

/** `value` masked and serialized for a log line, cut to `maxChars`. */
export function maskedJson(value: unknown, secrets: readonly string[] = [], maxChars = 4000): string {
	const text = JSON.stringify(maskSecrets(value, secrets)) ?? String(value);
	return text.length > maxChars ? `${text.slice(0, maxChars)}… (${text.length} chars)` : text;
}
