/**
 * Gemini CLI: ~/.gemini/settings.json and a project's `.gemini/settings.json`,
 * servers under `mcpServers`. `url` is an SSE server and `httpUrl` a
 * Streamable HTTP one; `timeout` is in milliseconds; strings expand `$VAR`
 * and `${VAR}`. `includeTools` and `excludeTools` are hangar's own keys;
 * `trust` has no hangar equivalent.
 */
import {pathsOf, singleGroup, stdioEntry, type ClientFormat} from '../client-format.js';
import {ignoredRule, oauthRule, timeoutRule, type KeyRule} from '../server-entry.js';
import {shellVariables} from '../variables.js';

const urlAs =
	(type: 'sse' | 'streamable-http'): KeyRule =>
	(value, draft, key) => {
		if (typeof value !== 'string' || value === '') {
			draft.problems.push(`"${key}" is not a non-empty string`);
			return;
		}

		draft.entry.url = value;
		draft.entry.type = type;
	};

export const gemini: ClientFormat = {
	id: 'gemini',
	label: 'Gemini CLI',
	syntax: 'jsonc',
	locations: environment => {
		const paths = pathsOf(environment);
		return [
			{client: 'gemini', scope: 'user', file: paths.join(environment.home, '.gemini', 'settings.json')},
			{client: 'gemini', scope: 'project', file: paths.join(environment.cwd, '.gemini', 'settings.json')},
		];
	},
	groups: (root, location) => singleGroup(root, location, ['mcpServers']),
	dialect: {
		keys: {
			url: urlAs('sse'),
			httpUrl: urlAs('streamable-http'),
			timeout: timeoutRule('callTimeoutSeconds', 'milliseconds'),
			trust: ignoredRule('hangar does not confirm calls; the client decides'),
			authProviderType: ignoredRule('hangar signs in to a server that asks for OAuth itself (mcp-hangar auth NAME)'),
			oauth: oauthRule,
		},
		variables: shellVariables,
	},
	serversPath: () => ['mcpServers'],
	hangarEntry: stdioEntry,
};
