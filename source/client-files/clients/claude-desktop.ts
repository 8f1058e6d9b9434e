/**
 * Claude Desktop: `claude_desktop_config.json` in the app's settings folder
 * (macOS ~/Library/Application Support/Claude, Windows %APPDATA%\Claude,
 * Linux ~/.config/Claude). Servers under `mcpServers`, launched as written:
 * no variables, no remote servers (those are connectors in the app). The
 * file also holds app settings such as `globalShortcut`, left alone.
 */
import {appConfigRoot, pathsOf, singleGroup, stdioEntry, type ClientFormat} from '../client-format.js';
import {literalVariables} from '../variables.js';

export const claudeDesktop: ClientFormat = {
	id: 'claude-desktop',
	label: 'Claude Desktop',
	syntax: 'json',
	locations: environment => [
		{client: 'claude-desktop', scope: 'user', file: pathsOf(environment).join(appConfigRoot(environment), 'Claude', 'claude_desktop_config.json')},
	],
	groups: (root, location) => singleGroup(root, location, ['mcpServers']),
	dialect: {variables: literalVariables},
	serversPath: () => ['mcpServers'],
	hangarEntry: stdioEntry,
};
