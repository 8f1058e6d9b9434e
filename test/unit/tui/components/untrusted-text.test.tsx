/**
 * The output rule on every screen of the TUI (core/base/terminal-text.ts):
 * text hangar did not write (an upstream's tool descriptions, stderr and
 * errors, a client's name, a call's result) is shown escaped, never written
 * raw. A line break or a tab in a one-line field is shown as a space; a lone
 * carriage return is escaped (`\x0d`) as the CLI shows it, never turned into
 * a space, which would make `A\rB` look like `A B`.
 */
import {cleanup} from 'ink-testing-library';
import {afterEach, describe, expect, it} from 'vitest';
import {HangarError} from '../../../../source/core/base/errors.js';
import {client, entry, FakeSource, keys, now, open} from '../../../support/tui-harness.js';

/** Controls, an escape sequence, a line separator and a bidi override, each shown escaped. */
const controls = 'A\bB\rC\u2028D\u001B[2JE\u202EF\u0085G\fH\vI';
const controlsShown = String.raw`A\x08B\x0dC\u2028D\x1b[2JE\u202eF\u0085G\x0cH\x0bI`;
/** Line breaks and a tab, which a one-line field shows as spaces. */
const breaks = 'J\tK\r\nL\nM';
const breaksShown = 'J K L M';
const payload = `${controls} ${breaks}`;
const shown = `${controlsShown} ${breaksShown}`;

// Everything a terminal acts on or hides, besides the newlines between the frame's lines
// (the frame's own colours are taken out before this looks).
// eslint-disable-next-line no-control-regex
const raw = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u2028\u2029\p{Cf}]/u;
// eslint-disable-next-line no-control-regex
const colours = /\u001B\[[0-9;]*m/g;

/** The frame without hangar's colours, checked for anything raw. */
function checked(frame: string | undefined, where: string): string {
	const text = (frame ?? '').replace(colours, '');
	expect(raw.exec(text)?.[0], `a raw character on ${where}`).toBeUndefined();
	return text;
}

function evilSource(): FakeSource {
	const source = new FakeSource([
		entry('evil', {state: 'dead', ready: false, pid: null, upSeconds: null, idleSeconds: null, consecutiveFailures: 2, lastError: `upstream "evil": start failed: ${payload}`}),
		entry('calm'),
	]);
	source.clients = [client(1, {name: payload, version: null, calls: 1, lastCallAt: now - 1000, lastTool: payload})];
	source.config = {drift: `config drift ${payload}`, lastReload: null};
	source.logs['evil'] = [{at: now - 1000, source: 'stderr', text: `log ${payload}`}];
	source.moreDetails = {
		tools: [{name: 'evil_tool', exposedName: 'evil__evil_tool', title: null, description: `tool ${payload}`, inputSchema: {type: 'object'}, outputSchema: null, annotations: null, calls: 0, failures: 0, latencyMs: {p50: null, p95: null}, pinned: true, tokens: 20, history: null}],
		stderr: [{at: new Date(now - 2000).toISOString(), source: 'stderr', text: `stderr ${payload}`}],
		recentCalls: [{at: new Date(now - 1000).toISOString(), tool: 'evil_tool', ms: 3, ok: false, error: `call ${payload}`}],
	};
	source.calls.record({at: now - 500, client: payload, upstream: 'evil', tool: 'evil_tool', ms: 3, outcome: 'error', code: '-32000', error: `boom ${payload}`, args: {}, result: {content: [{type: 'text', text: `result ${payload}`}]}});
	return source;
}

afterEach(() => {
	cleanup();
});

describe('text hangar did not write, on every screen of the TUI', () => {
	it('is shown escaped in the list, the line under it, the header, the details, the log, the calls, a call and the clients', async () => {
		const ui = open(evilSource(), {columns: 260, rows: 60});
		let screen = checked(await ui.see('› evil'), 'the list');
		// The header's drift warning, the row's last error and the whole error under the table.
		expect(screen).toContain(`config drift ${shown}`);
		expect(screen).toContain(`start failed: ${shown}`);

		await ui.press(keys.enter);
		screen = checked(await ui.see('RECENT CALLS'), 'the details');
		for (const field of ['tool', 'stderr', 'call']) expect(screen, field).toContain(`${field} ${shown}`);
		expect(screen).toContain(`last error  upstream "evil": start failed: ${shown}`);

		await ui.press('l');
		screen = checked(await ui.see('LOG evil'), 'the log');
		expect(screen).toContain(`log ${shown}`);
		await ui.press(keys.escape);
		await ui.see('RECENT CALLS');
		await ui.press(keys.escape);
		await ui.see('NAME');

		await ui.press('t');
		screen = checked(await ui.see('live, newest first'), 'the calls');
		expect(screen).toContain(String.raw`A\x08B\x0dC`);
		await ui.press(keys.enter);
		screen = checked(await ui.see('CALL #1'), 'a call');
		expect(screen).toContain(`client ${shown}`);
		expect(screen).toContain(`boom ${shown}`);
		// The result is kept as JSON, whose escapes already show every control.
		expect(screen).toContain(String.raw`"text":"result A\bB\rC\u2028D\u001b[2JE\u202eF`);
		await ui.press(keys.escape);
		await ui.see('CALLS  1 of the last 1');
		await ui.press(keys.escape);
		await ui.see('NAME');

		await ui.press('c');
		screen = checked(await ui.see('CLIENTS'), 'the clients');
		expect(screen).toContain(shown);
	});

	it('is shown escaped in the message line: an action\'s outcome and an error with its hint', async () => {
		const source = evilSource();
		source.answer = async () => `done ${payload}`;
		const ui = open(source, {columns: 260, rows: 40});
		await ui.see('› evil');
		await ui.press('x');
		expect(checked(await ui.see('✓ done'), 'a success')).toContain(`done ${shown}`);
		source.answer = async () => {
			throw new HangarError({code: 'StartFailed', upstream: 'evil', operation: 'start', message: `failed ${payload}`, hint: `hint ${payload}`});
		};
		await ui.press('s');
		const screen = checked(await ui.see('✗ upstream'), 'an error');
		expect(screen).toContain(`failed ${shown}`);
		expect(screen).toContain(`hint ${shown}`);
	});
});
