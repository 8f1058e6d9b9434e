/**
 * Windsurf: ~/.codeium/windsurf/mcp_config.json, servers under `mcpServers`.
 * A remote server's address is `serverUrl` (hangar: `url`); `disabledTools`
 * lists tools Windsurf hides.
 */
import {pathsOf, singleGroup, stdioEntry, type ClientFormat} from '../client-format.js';
import {ignoredRule, stringRule} from '../server-entry.js';
import {literalVariables} from '../variables.js';

export const windsurf: ClientFormat = {
	id: 'windsurf',
	label: 'Windsurf',
	syntax: 'jsonc',
	locations: environment => [
		{client: 'windsurf', scope: 'user', file: pathsOf(environment).join(environment.home, '.codeium', 'windsurf', 'mcp_config.json')},
	],
	groups: (root, location) => singleGroup(root, location, ['mcpServers']),
	dialect: {
		keys: {
			serverUrl: stringRule('url'),
			disabledTools: ignoredRule('hangar has no per-server tool filter yet; every tool of the server is served'),
		},
		variables: literalVariables,
	},
	serversPath: () => ['mcpServers'],
	hangarEntry: stdioEntry,
};
