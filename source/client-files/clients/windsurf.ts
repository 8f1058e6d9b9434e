/**
 * Windsurf: ~/.codeium/windsurf/mcp_config.json, servers under `mcpServers`.
 * A remote server's address is `serverUrl` (hangar: `url`); `disabledTools`
 * lists tools Windsurf hides: hangar's `excludeTools`.
 */
import {pathsOf, singleGroup, stdioEntry, type ClientFormat} from '../client-format.js';
import {stringRule} from '../server-entry.js';
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
		},
		variables: literalVariables,
	},
	serversPath: () => ['mcpServers'],
	hangarEntry: stdioEntry,
};
