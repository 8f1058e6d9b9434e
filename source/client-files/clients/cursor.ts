/**
 * Cursor: ~/.cursor/mcp.json for the user, `.cursor/mcp.json` in a project.
 * Servers under `mcpServers`, with `${env:VAR}`, `${userHome}` and
 * `${workspaceFolder}` in strings, and an optional `envFile`.
 */
import {pathsOf, singleGroup, stdioEntry, type ClientFormat} from '../client-format.js';
import {editorVariables} from '../variables.js';

export const cursor: ClientFormat = {
	id: 'cursor',
	label: 'Cursor',
	syntax: 'jsonc',
	locations: environment => {
		const paths = pathsOf(environment);
		return [
			{client: 'cursor', scope: 'user', file: paths.join(environment.home, '.cursor', 'mcp.json')},
			{client: 'cursor', scope: 'project', file: paths.join(environment.cwd, '.cursor', 'mcp.json')},
		];
	},
	groups: (root, location) => singleGroup(root, location, ['mcpServers']),
	dialect: {variables: editorVariables},
	serversPath: () => ['mcpServers'],
	hangarEntry: stdioEntry,
};
