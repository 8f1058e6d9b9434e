/**
 * The engine's hints send people to keys, tools and commands by name
 * (engine/refusals.ts, `surfaces`). This checks that table against what
 * exists: the TUI's keymap, the management tools and the CLI's commands, so
 * a hint cannot go stale when one of them changes.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {verbNames} from '../../source/cli/help.js';
import {bindings} from '../../source/tui/components/keymap.js';
import {managementTools} from '../../source/core/gateway/management-tools.js';
import {surfaces, where, whereBrief, type SurfaceAction} from '../../source/core/engine/refusals.js';
import {root} from '../support/hangar.js';

const actions = Object.keys(surfaces) as SurfaceAction[];

describe('the surfaces hints name', () => {
	it('has a TUI key and at least one other surface for every action', () => {
		expect(actions.length).toBeGreaterThan(2);
		for (const action of actions) {
			expect(surfaces[action].key, action).toBeDefined();
			expect(surfaces[action].tool ?? surfaces[action].cli, action).toBeDefined();
		}
	});

	it('names keys the keymap binds to that command', () => {
		for (const action of actions) {
			const {label, action: keyAction} = surfaces[action].key!;
			const binding = bindings.find(candidate => candidate.action === keyAction && candidate.contexts.includes('main'));
			expect(binding, `a binding for "${keyAction}" on the main screen`).toBeDefined();
			expect(binding!.keys.map(key => key.label), `key for ${action}`).toContain(label);
		}
	});

	it('names management tools that exist', () => {
		const tools = new Set(managementTools.map(tool => tool.name));
		for (const action of actions) {
			const {tool} = surfaces[action];
			if (tool !== undefined) expect(tools.has(tool), `${action}: ${tool}`).toBe(true);
		}
	});

	it('names CLI commands the CLI has', () => {
		for (const action of actions) {
			const {cli} = surfaces[action];
			if (cli !== undefined) expect(verbNames, `${action}: mcp-hangar ${cli}`).toContain(cli);
		}
	});

	it('writes every hint from the table', () => {
		expect(where('start', 'fx')).toBe('key s in mcp-hangar tui, or the hangar_start tool {"server": "fx"}');
		expect(where('approve', 'fx')).toBe('key u in mcp-hangar tui, or mcp-hangar approve fx');
		expect(whereBrief('start')).toBe('key s, or hangar_start');
		// A shell user (the CLI's session) is sent to commands where there is one.
		expect(where('start', 'fx', 'cli')).toBe('key s in mcp-hangar tui, or mcp-hangar start fx');
		expect(where('approve', 'fx', 'cli')).toBe('key u in mcp-hangar tui, or mcp-hangar approve fx');
		expect(whereBrief('start', 'cli', 'fx')).toBe('key s, or mcp-hangar start fx');
		const engine = ['upstream/upstream.ts', 'supervisor.ts', 'routing/router.ts', 'upstream/call-path.ts', 'upstream/tool-list.ts', 'upstream/upstream-health.ts'].map(file =>
			fs.readFileSync(path.join(root, 'source', 'core', 'engine', file), 'utf8'),
		);
		for (const text of engine) expect(text).not.toMatch(/key [a-z] in mcp-hangar tui|mcp-hangar approve|hangar_start tool/);
	});
});
