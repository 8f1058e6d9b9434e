/**
 * The terminal UI's screens and keys, rendered with ink-testing-library from
 * plain data: a fake `HangarSource` made of StatusEntry / UpstreamDetails
 * values stands in for the supervisor, which the screens never see
 * (test/support/tui-harness.tsx).
 */
import {cleanup} from 'ink-testing-library';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {launchCommandLine} from '../../../../source/client-files/hangar-launch.js';
import {bindings} from '../../../../source/tui/components/keymap.js';
import type {ClientView} from '../../../../source/core/engine/clients/clients.js';
import {HangarError} from '../../../../source/core/base/errors.js';
import type {LogLine} from '../../../../source/core/link/log-buffer.js';
import type {StatusEntry} from '../../../../source/core/views/views.js';
import {waitFor} from '../../../support/hangar.js';
import {at, client, entry, FakeSource, keys, now, open, rowOf, threeUpstreams} from '../../../support/tui-harness.js';

afterEach(() => {
	cleanup();
});

describe('the main screen', () => {
	it('moves ages and the uptime with the clock alone, and still shows what changed with them', async () => {
		const source = new FakeSource(threeUpstreams());
		let clockNow = now;
		const read = source.read.bind(source);
		source.read = focus => ({...read(focus), now: clockNow});
		const ui = open(source);
		await ui.see('1h02m');
		expect(rowOf(ui.lines(), 'alpha')).toContain('1m00s/5s');
		// Only the clock moves: alpha is 15 s older, and so is hangar.
		clockNow = now + 15_000;
		source.change(current => {
			current.entries = current.entries.map(candidate => (candidate.name === 'alpha' ? {...candidate, upSeconds: 75, idleSeconds: 20} : candidate));
		});
		await ui.see('1m15s/20s');
		// Then something besides the clock: the row shows it, and the ages stay as new as the last read.
		source.change(current => {
			current.entries = current.entries.map(candidate => (candidate.name === 'alpha' ? {...candidate, calls: 1300} : candidate));
		});
		await ui.see(' 1300 ');
		expect(rowOf(ui.lines(), 'alpha')).toContain('1m15s/20s');
		ui.unmount();
	});

	it('shows the config, uptime, attached clients and counts by state in the header', async () => {
		const ui = open(new FakeSource(threeUpstreams()));
		const screen = await ui.see('mcp-hangar');
		expect(screen).toContain('/home/me/.config/mcp-hangar/config.json');
		expect(screen).toContain('clients 0');
		expect(screen).toContain('up 1h02m');
		expect(screen).toMatch(/3 upstreams:\s+1 dead\s+1 ready\s+1 cold/);
		// What the definitions cost each client, and what search exposure would save (estimates from the engine).
		expect(screen).toContain('~1200 tokens to each client (search exposure would save ~800)');
		// The log's path when there is room for it beside the rest.
		const wide = open(new FakeSource(threeUpstreams()), {columns: 200, rows: 30});
		expect(await wide.see('log /home/me/')).toContain('log /home/me/.local/state/mcp-hangar/hangar.log');
	});

	it('shows a notice about how hangar runs in the header', async () => {
		const source = new FakeSource(threeUpstreams());
		source.notice = 'demo traffic: gamma/echo at 2/s';
		const ui = open(source);
		await ui.see(/1 cold\s+demo traffic: gamma\/echo at 2\/s/);
	});

	it('says in the header when the config file on disk differs from what runs', async () => {
		const source = new FakeSource(threeUpstreams());
		source.config = {drift: '/home/me/.config/mcp-hangar/config.json does not validate; the running config stays', lastReload: null};
		const ui = open(source);
		await ui.see(/1 cold\s+⚠ \/home\/me\/\.config\/mcp-hangar\/config\.json does not validate/);
	});

	it('at 80 columns, says whole how old an attached screen is and why, ahead of the counts', async () => {
		const source = new FakeSource(threeUpstreams());
		source.owner = 'hangar pid 24704 (mcp-hangar serve)';
		source.configPath = '/tmp/fh3/c.json';
		source.stale = {seconds: 7, why: 'hangar pid 24704 (mcp-hangar serve) stopped; reconnecting…'};
		const ui = open(source, {columns: 80, rows: 24});
		await ui.see('⚠ 7s old: hangar pid 24704 (mcp-hangar serve) stopped; reconnecting…');
		expect(ui.lines().every(line => line.length <= 80)).toBe(true);
		// Wide, the counts come first, as before.
		const wide = open(source, {columns: 200, rows: 24});
		await wide.see(/3 upstreams:.*⚠ 7s old: hangar pid 24704 \(mcp-hangar serve\) stopped; reconnecting…/);
	});

	it('says in the header when another supervisor runs the same config', async () => {
		const source = new FakeSource(threeUpstreams());
		source.config = {drift: null, lastReload: null, others: 'another supervisor (pid 4242, mcp-hangar serve --linger, state dir /home/me/.local/state/mcp-hangar) runs this config'};
		const ui = open(source, {columns: 200, rows: 30});
		await ui.see(/1 cold\s+⚠ another supervisor \(pid 4242, mcp-hangar serve --linger/);
	});

	it('lists upstreams trouble first, with every column when the terminal is wide', async () => {
		const source = new FakeSource(threeUpstreams().map(candidate => (candidate.name === 'alpha' ? {...candidate, contextTokens: 850} : candidate)));
		const ui = open(source, {columns: 200, rows: 30});
		await ui.see('gamma');
		const lines = ui.lines();
		const header = lines.find(line => line.includes('NAME'));
		expect(header).toBeDefined();
		for (const title of ['NAME', 'STATE', 'BRK', 'PID', 'UP/IDLE', 'TOOLS', '~TOKENS', 'CALLS', 'FAILED', 'P50/P95', 'RESTARTS', 'LAST ERROR']) expect(header).toContain(title);
		const names = lines.filter(line => /^[› ] (alpha|beta|gamma) /.test(line)).map(line => line.slice(2).split(' ')[0]);
		expect(names).toEqual(['gamma', 'alpha', 'beta']);
		expect(rowOf(lines, 'gamma')).toMatch(/gamma\s+dead\s+○\s+-\s+-\s+3\s+-\s+12\s+7\s+-?.*4\s+start failed: the process exited/);
		// UP/IDLE to the second under an hour, as the details say it.
		expect(rowOf(lines, 'alpha')).toMatch(/alpha\s+ready\s+●\s+4005\s+1m00s\/5s\s+3\s+850\s+1234\s+0\s+3\.2ms\/41ms\s+0/);
		expect(rowOf(lines, 'beta')).toMatch(/beta\s+cold\s+●\s+-\s+-\s+3\s+-\s+0\s+0\s+-\s+0/);
	});

	// A broken upstream says why at every width: its error keeps its room before latency and pid, and the
	// line under the table has it whole. No line is wider than the terminal (a row never wraps).
	for (const columns of [60, 80, 120, 200]) {
		it(`shows a broken upstream's error at ${columns} columns, and no row wraps`, async () => {
			const broken = entry('sequential-thinking', {state: 'dead', pid: null, upSeconds: null, idleSeconds: null, consecutiveFailures: 2, restarts: 2, lastError: 'upstream "sequential-thinking": start failed: the process exited with code 4 during initialization'});
			const ui = open(new FakeSource([broken, entry('memory')]), {columns, rows: 24});
			await ui.see('sequential-thinking');
			const lines = ui.lines();
			for (const line of lines) expect([...line].length).toBeLessThanOrEqual(columns);
			const header = lines.find(line => line.includes('NAME')) ?? '';
			expect(header).toMatch(/NAME\s+STATE/);
			expect(header).toContain('LAST ERROR');
			// Its row names it (whole from 60 columns; below, the name gives way to the error) and shows the start of the error.
			const name = columns >= 60 ? 'sequential-thinking' : 'sequential-thin…';
			expect(rowOf(lines, name)).toMatch(/^› sequential-thin\S*\s+dead\s+.*start failed/);
			// The reason line has the whole error, wrapped.
			expect(ui.frame().replaceAll(/\s+/g, ' ')).toContain('⚠ sequential-thinking is dead (2 failures in a row): start failed: the process exited with code 4 during initialization');
			expect(lines).toHaveLength(23);
		});
	}

	it('at 80 columns gives failures and the error their room before latency, breaker and pid', async () => {
		const ui = open(new FakeSource(threeUpstreams()), {columns: 80, rows: 30});
		await ui.see('gamma');
		const header = ui.lines().find(line => line.includes('NAME'))?.trimEnd() ?? '';
		expect(header).toMatch(/NAME\s+STATE\s+BRK\s+FAILED\s+LAST ERROR$/);
		expect(header).not.toContain('P50/P95');
		expect(header).not.toContain('PID');
		expect(rowOf(ui.lines(), 'gamma')).toMatch(/gamma\s+dead\s+○\s+7\s+start failed: the process exited/);
		for (const line of ui.lines()) expect([...line].length).toBeLessThanOrEqual(80);
		expect(ui.lines()).toHaveLength(29);
	});

	it('attached at 80 columns, keeps the config name (cut from the left) and the client count on the first line', async () => {
		const source = new FakeSource(threeUpstreams());
		source.owner = 'hangar pid 41234 (mcp-hangar serve)';
		source.clients = [client(1)];
		const ui = open(source, {columns: 80, rows: 24});
		await ui.see('clients 1');
		const [first = '', second = ''] = ui.lines();
		expect(first).toMatch(/^mcp-hangar {2}\/home\/me\/\.config\/mcp-hangar\/config\.json +clients 1 {2}up 1h02m$/);
		expect(second).toMatch(/^attached to pid 41234 {2}3 upstreams:/);
		for (const line of ui.lines()) expect([...line].length).toBeLessThanOrEqual(80);
	});

	it('attached on a wide terminal, names the whole owner on the first line', async () => {
		const source = new FakeSource(threeUpstreams());
		source.owner = 'hangar pid 41234 (mcp-hangar serve)';
		const ui = open(source, {columns: 140, rows: 24});
		await ui.see('clients 0');
		expect(ui.lines()[0]).toMatch(/^mcp-hangar {2}attached to hangar pid 41234 \(mcp-hangar serve\) {2}\/home\/me\/\.config\/mcp-hangar\/config\.json +clients 0 {2}up 1h02m$/);
	});

	it('attached at 80 columns with a long config path, cuts the path from the left', async () => {
		const source = new FakeSource(threeUpstreams());
		source.owner = 'hangar pid 41234 (mcp-hangar serve)';
		source.configPath = '/home/someone-with-a-long-name/projects/work/.config/mcp-hangar/config.json';
		const ui = open(source, {columns: 80, rows: 24});
		await ui.see('clients 0');
		expect(ui.lines()[0]).toMatch(/^mcp-hangar {2}…[^ ]*\/\.config\/mcp-hangar\/config\.json +clients 0 {2}up 1h02m$/);
	});

	it('keeps TOOLS at 140 columns when names are long', async () => {
		const ui = open(new FakeSource([entry('a-very-long-upstream-name-indeed', {lastError: 'start failed: the process exited with code 4'}), entry('another-long-upstream-name')]), {columns: 140, rows: 20});
		await ui.see('another-lo');
		const header = ui.lines().find(line => line.includes('NAME')) ?? '';
		expect(header).toContain('TOOLS');
		expect(header).toContain('LAST ERROR');
	});

	it('cuts a name past 20 characters in the middle, keeping the columns aligned', async () => {
		const ui = open(new FakeSource([entry('a-very-long-upstream-name-indeed'), entry('short')]), {columns: 120, rows: 20});
		await ui.see('short');
		const row = ui.lines().find(line => line.includes('a-very-lo…')) ?? '';
		expect(row).toContain('a-very-lo…ame-indeed ');
		expect(row.indexOf('ready')).toBe(ui.lines().find(line => line.includes('short'))!.indexOf('ready'));
	});

	it('keeps long names that share their start apart at every width, and whole when the terminal is wide', async () => {
		const names = ['00', '05', '10', '15', '20', '25'].map(n => `a-very-long-upstream-name-num${n}`);
		for (const columns of [50, 60, 80, 140, 200]) {
			const ui = open(new FakeSource([...names.map(name => entry(name)), entry('srv1')]), {columns, rows: 20});
			await ui.see('srv1');
			const shown = ui.lines().filter(line => line.slice(2).startsWith('a-very')).map(line => line.slice(2).split(/\s{2,}/)[0]);
			expect(shown, `${columns} columns`).toHaveLength(names.length);
			expect(new Set(shown).size, `${columns} columns: ${shown.join(', ')}`).toBe(names.length);
			if (columns >= 200) expect(shown).toEqual(names);
			for (const line of ui.lines()) expect([...line].length, `${columns} columns`).toBeLessThanOrEqual(columns);
			ui.unmount();
		}
	});

	it('uses a compact layout under 60 columns', async () => {
		const ui = open(new FakeSource(threeUpstreams()), {columns: 50, rows: 20});
		await ui.see('gamma');
		const header = ui.lines().find(line => line.includes('NAME')) ?? '';
		expect(header).toMatch(/NAME\s+STATE\s+FAILED\s+RST$/);
		expect(rowOf(ui.lines(), 'gamma')).toMatch(/gamma\s+dead\s+7\s+4$/);
		expect(ui.frame()).toMatch(/3 total\s+1 dead\s+1 ready\s+1 cold/);
		for (const line of ui.lines()) expect([...line].length).toBeLessThanOrEqual(50);
		expect(ui.lines()).toHaveLength(19);
		// The footer keeps the way to the rest of the keys and the way out.
		expect(ui.lines().at(-1)).toMatch(/^\? help .*q quit$/);
	});

	it('packs the detail view into a narrow terminal', async () => {
		const ui = open(new FakeSource(threeUpstreams()), {columns: 50, rows: 30});
		await ui.press(keys.enter);
		const screen = await ui.see('TOOLS (2');
		expect(screen).toMatch(/^gamma {2}dead {2}since \S+ \(\S+ ago\)$/m);
		expect(screen).toMatch(/^breaker open {2}pid - {2}restarts 4$/m);
		for (const line of ui.lines()) expect([...line].length).toBeLessThanOrEqual(50);
	});

	it('shows a per-client server whose instances serve by its instances\' state, not cold, at 80 columns', async () => {
		const instance = (n: number, state: StatusEntry['state']) => ({name: `everything#${n}`, client: `socket#${n}`, state, breaker: 'closed' as const, pid: 5000 + n, calls: 1, failures: 0, inFlight: 0, restarts: 0, upSeconds: 10, idleSeconds: 2, lastError: null});
		const cold = {state: 'cold' as const, ready: false, pid: null, upSeconds: null, idleSeconds: null};
		const source = new FakeSource([
			entry('everything', {...cold, instances: [instance(1, 'ready')]}),
			entry('mixed', {...cold, instances: [instance(1, 'ready'), instance(2, 'dead'), instance(3, 'cold')]}),
			entry('waiting', {...cold, instances: []}),
			entry('memory'),
		]);
		const ui = open(source, {columns: 80, rows: 24});
		await ui.see('everything');
		expect(rowOf(ui.lines(), 'everything')).toMatch(/^. everything\s+ready ×1\s/);
		// Instances in different states: the most urgent, of how many run (a cold one runs nothing); trouble sorts first.
		expect(rowOf(ui.lines(), 'mixed')).toMatch(/^. mixed\s+dead 1\/2\s/);
		expect(ui.lines().findIndex(line => line.includes('mixed'))).toBeLessThan(ui.lines().findIndex(line => line.includes('memory')));
		expect(rowOf(ui.lines(), 'waiting')).toMatch(/^. waiting\s+cold\s/);
		expect(ui.frame()).toMatch(/4 upstreams:\s+1 dead\s+2 ready\s+1 cold/);
		// The filter by state goes by what is shown.
		await ui.press('/', 'r', 'e', 'a', 'd', 'y');
		await ui.see('2 of 4 match');
	});

	it('says what each failure count counts: failed calls, and the breaker\'s failures in a row of any kind', async () => {
		// Six failed starts and not one call: the two counts are of different things.
		const ui = open(new FakeSource([entry('sick', {state: 'dead', ready: false, pid: null, breaker: 'open', upSeconds: null, idleSeconds: null, calls: 0, failures: 0, consecutiveFailures: 6})]));
		await ui.press(keys.enter);
		const screen = (await ui.see('TOOLS (2')).replaceAll(/\s+/g, ' ');
		expect(screen).toContain('calls 0 failed calls 0 failures in a row 6');
		expect(screen).not.toContain('consecutive/total');
	});

	it('shows the keys of the current screen in the footer, from the keymap', async () => {
		const ui = open(new FakeSource(threeUpstreams()));
		const screen = await ui.see('Enter details');
		const footer = screen.split('\n').at(-1) ?? '';
		for (const binding of bindings.filter(candidate => candidate.contexts.includes('main') && candidate.hint !== undefined && candidate.hintWhen === undefined && candidate.action !== 'interrupt')) {
			expect(footer).toContain(binding.hint);
		}
	});
});

describe('selection', () => {
	it('says on the title line which rows a scrolled list shows, within the width', async () => {
		const names = Array.from({length: 30}, (_, index) => `up${String(index).padStart(2, '0')}`);
		const ui = open(new FakeSource(names.map(name => entry(name))), {columns: 80, rows: 24});
		await ui.see('› up00');
		const title = (): string => ui.lines().find(line => line.includes('NAME')) ?? '';
		expect(title()).toMatch(/NAME .*\s rows 1-\d+ of 30$/);
		await ui.press('j'.repeat(20));
		await ui.see('› up20');
		expect(title()).toMatch(/ rows \d+-\d+ of 30$/);
		expect(title()).not.toContain('rows 1-');
		expect(ui.lines().every(line => line.length <= 80)).toBe(true);
		// Every row in view: no note.
		const few = open(new FakeSource(names.slice(0, 3).map(name => entry(name))), {columns: 80, rows: 24});
		await few.see('› up00');
		expect(few.frame()).not.toMatch(/rows \d/);
	});

	it('scrolls the list only as far as the selection needs, and after a resize shows the top again when the selection fits with it', async () => {
		// Names as long as the name column gets: at 60 columns the rows note has to find room beside LAST ERROR.
		const names = Array.from({length: 30}, (_, index) => `up${String(index).padStart(2, '0')}-with-a-long-name`);
		const ui = open(new FakeSource(names.map(name => entry(name))), {columns: 80, rows: 24});
		const title = (): string => ui.lines().find(line => line.includes('NAME')) ?? '';
		await ui.see('› up00-');
		const room = Number(/rows 1-(\d+) of 30/.exec(title())?.[1]);
		// Mid-list, with the top rows still in view: nothing scrolls.
		await ui.press('j'.repeat(9));
		await ui.see('› up09-');
		expect(title()).toContain(`rows 1-${room} of 30`);
		// Down past the window's last row but one: it moves one row at a time.
		await ui.press('j'.repeat(room - 9 - 1));
		await ui.see(`› up${room - 1}-`);
		expect(title()).toContain(`rows 2-${room + 1} of 30`);
		// Back up: the window stays until the selection reaches its top.
		await ui.press('k'.repeat(room - 9 - 1));
		await ui.see('› up09-');
		expect(title()).toContain(`rows 2-${room + 1} of 30`);
		// Smaller (60x15): the selection stays in view and the window still says which rows it shows.
		ui.resize({columns: 60, rows: 15});
		await ui.see(/rows \d+-\d+(?: of |\/)30/);
		expect(ui.frame()).toContain('› up09-');
		for (const line of ui.lines()) expect([...line].length).toBeLessThanOrEqual(60);
		// Back to 80x24: from the top again, the selection mid-list.
		ui.resize({columns: 80, rows: 24});
		await ui.see(`rows 1-${room} of 30`);
		expect(ui.frame()).toContain('  up00-');
		expect(ui.frame()).toContain('› up09-');
	});

	it('moves with j/k and the arrows and follows the upstream by name when rows re-sort', async () => {
		const source = new FakeSource(threeUpstreams());
		const ui = open(source);
		await ui.see('› gamma');
		await ui.press('j');
		await ui.see('› alpha');
		await ui.press(keys.down);
		await ui.see('› beta');
		await ui.press('k', keys.up);
		await ui.see('› gamma');
		await ui.press('j', 'j');
		await ui.see('› beta');
		// beta crashes: it moves to the top, and the selection moves with it.
		source.change(s => {
			s.entries = s.entries.map(candidate => (candidate.name === 'beta' ? {...candidate, state: 'dead'} : candidate));
		});
		await ui.see(/› beta\s+dead/);
		const names = ui.lines().filter(line => /^[› ] (alpha|beta|gamma) /.test(line)).map(line => line.slice(2).split(' ')[0]);
		expect(names).toEqual(['beta', 'gamma', 'alpha']);
	});

	it('takes several keys arriving in one read one by one', async () => {
		const source = new FakeSource(threeUpstreams());
		const ui = open(source);
		await ui.see('› gamma');
		// What `tmux send-keys j j` or fast typing delivers: one read, two keys.
		await ui.press('jj');
		await ui.see('› beta');
		await ui.press('kk');
		await ui.see('› gamma');
		// A command letter after "/" in the same read is text, not a command.
		await ui.press('/dead');
		await ui.see('/ dead▏  1 of 3 match');
		// Four Backspaces sent together erase four characters; none is stored as text.
		await ui.press('\u007F\u007F\u007F\u007F');
		await ui.see('/ ▏  3 of 3 match');
		// Other control characters are dropped; Enter in the same read keeps the filter.
		await ui.press('be\u0001ta\r');
		await ui.see('/ beta  1 of 3 match  (Esc clears it)');
		expect(ui.frame()).toContain('› beta');
		await ui.press('xr');
		await waitFor(() => source.commands.length === 2, 'both commands sent');
		expect(source.commands).toEqual([
			{name: 'beta', action: 'stop'},
			{name: 'beta', action: 'restart'},
		]);
	});

	it('keeps the upstream selected through a filter, once it was the one shown selected', async () => {
		const source = new FakeSource(threeUpstreams());
		const ui = open(source);
		await ui.see('› gamma');
		// The filter hides gamma: the marker moves to beta, which is what a person now sees selected.
		await ui.press('/', 'b', 'e', 't', 'a', keys.enter);
		await ui.see('› beta');
		// Clearing the filter keeps it, and x acts on it.
		await ui.press(keys.escape);
		await ui.gone('match');
		expect(ui.frame()).toContain('› beta');
		await ui.press('x');
		await ui.see('stop done on "beta"');
		expect(source.commands).toEqual([{name: 'beta', action: 'stop'}]);
		// A filter that still lists the selected upstream leaves the selection alone.
		await ui.press('/', 'a');
		await ui.see('3 of 3 match');
		expect(ui.frame()).toContain('› beta');
	});

	it("asks the renderer's cost of the last frame before timing the next", async () => {
		const source = new FakeSource(threeUpstreams());
		let asked = 0;
		const ui = open(source, {columns: 140, rows: 30}, {outputMs: () => ++asked && 0});
		source.change(s => {
			s.entries = s.entries.map(candidate => ({...candidate, calls: candidate.calls + 1}));
		});
		await waitFor(() => asked > 0 && ui.frame().includes('1235'), 'the frame after the change');
	});

	it('re-reads at most once per frame however many events arrive', async () => {
		const source = new FakeSource(threeUpstreams());
		const ui = open(source);
		await ui.see('gamma');
		const before = source.reads;
		for (let i = 0; i < 5000; i++) source.change(() => {});
		source.change(s => {
			s.entries = s.entries.map(candidate => ({...candidate, calls: candidate.calls + 1}));
		});
		await ui.see(/alpha.*1235/);
		expect(source.reads - before).toBeLessThanOrEqual(3);
	});
});

describe('the detail view', () => {
	it('opens with Enter on the selected upstream and shows tools, history, calls and stderr; Esc goes back', async () => {
		const ui = open(new FakeSource(threeUpstreams()), {columns: 140, rows: 40});
		await ui.see('› gamma');
		await ui.press('j', keys.enter);
		const screen = await ui.see('TOOLS (2');
		expect(screen).toMatch(/alpha\s+ready/);
		expect(screen).toContain('launch  node alpha-server.js --stdio');
		expect(screen).toMatch(/search_docs\s+9 calls\s+1 failed\s+4\.0ms\/30ms/);
		expect(screen).toMatch(/echo\s+3 calls\s+0 failed.*pinned/);
		expect(screen).toMatch(/starting → ready\s+started\s+started in 300 ms/);
		expect(screen).toMatch(/cold → starting\s+start\s+lazy is false: started at launch/);
		expect(screen).toMatch(/search_docs\s+120ms\s+error\s+call timed out after 10 s/);
		expect(screen).toContain('listening on stdio');
		expect(screen).toContain('Esc back');
		await ui.press(keys.escape);
		await ui.see('NAME');
		expect(ui.frame()).toContain('› alpha');
	});

	it('says where the tool list comes from: live while running, from its last run when not', async () => {
		const source = new FakeSource(threeUpstreams());
		const ui = open(source);
		await ui.press('j', keys.enter);
		await ui.see('launch  node alpha-server.js');
		expect(ui.frame()).toContain('tools 3 (live)');
		await ui.press(keys.escape);
		await ui.see('NAME');
		// beta is cold, and its list came from the process it ran before.
		await ui.press('j', keys.enter);
		await ui.see('launch  node beta-server.js');
		expect(ui.frame()).toContain('tools 3 (from its last run)');
		expect(ui.frame()).not.toContain('(live)');
	});

	it('shows a dual-era upstream\'s era twin, its state and pid, while it runs', async () => {
		const upstreams = threeUpstreams();
		const twin = {name: 'alpha@2026-07-28', state: 'ready', breaker: 'closed', pid: 4242, calls: 7, failures: 0, inFlight: 0, restarts: 0, upSeconds: 5, idleSeconds: 1, lastError: null} as const;
		upstreams[0] = {...upstreams[0]!, era: {era: 'dual', protocolVersion: '2025-11-25', learnedAt: at(120)}, eraTwin: twin};
		const ui = open(new FakeSource(upstreams));
		await ui.press('j', keys.enter);
		await ui.see('launch  node alpha-server.js');
		expect(ui.frame()).toContain('era  2025-11-25 and 2026-07-28 (dual-era: 2026-07-28 clients get its era twin, learned 2m00s ago)');
		expect(ui.frame()).toMatch(/era twin {2}alpha@2026-07-28 {2}ready {2}pid 4242 {2}calls 7/);
	});

	it('shows the protocol generation an upstream speaks once its first start probed it, and nothing before', async () => {
		const upstreams = threeUpstreams();
		upstreams[0] = {...upstreams[0]!, era: {era: 'modern', protocolVersion: '2026-07-28', learnedAt: at(120)}};
		const ui = open(new FakeSource(upstreams));
		await ui.press('j', keys.enter);
		await ui.see('launch  node alpha-server.js');
		expect(ui.frame()).toContain('era  2026-07-28 (modern, learned 2m00s ago)');
		await ui.press(keys.escape);
		await ui.see('NAME');
		await ui.press('j', keys.enter);
		await ui.see('launch  node beta-server.js');
		expect(ui.frame()).not.toContain('era  ');
	});

	it('gives every section it shows at least one row in a small terminal (50x20)', async () => {
		const source = new FakeSource(threeUpstreams());
		const ui = open(source, {columns: 50, rows: 20});
		await ui.press(keys.enter);
		await ui.see('TOOLS (2');
		const lines = ui.lines();
		expect(lines).toHaveLength(19);
		for (const line of lines) expect([...line].length).toBeLessThanOrEqual(50);
		const titles = ['HISTORY', 'TOOLS', 'STATE HISTORY', 'RECENT CALLS', 'STDERR'];
		// The focused section's title is marked "▸ ".
		const startsWith = (line: string, title: string): boolean => line.replace(/^▸ /, '').startsWith(title);
		const shown = titles.filter(title => lines.some(line => startsWith(line, title)));
		expect(shown.length).toBeGreaterThanOrEqual(2);
		for (const title of shown) {
			const index = lines.findIndex(line => startsWith(line, title));
			// The next line is one of the section's rows, not only "… N more" or the next title.
			expect(lines[index + 1], `the row under ${title}`).toMatch(/^ {2}(?!…)\S/);
		}

		// Sections that do not fit (at 50x20 some never do) are named on one line, not shown as titles over nothing.
		const hidden = titles.filter(title => !shown.includes(title));
		expect(hidden.length, 'sections left out at 50x20').toBeGreaterThan(0);
		expect(ui.frame()).toContain(`… ${hidden.length} more section${hidden.length === 1 ? '' : 's'}: Tab or enlarge (`);
	});

	it('lists the prompts, resources and templates an upstream serves, and the name clashes it is part of', async () => {
		const source = new FakeSource(threeUpstreams());
		source.moreDetails = {
			prompts: [
				{name: 'summarize', exposedName: 'alpha__summarize', description: 'Summarize a page', arguments: ['url']},
				{name: 'greet', exposedName: null, description: null, arguments: []},
			],
			resources: [{uri: 'docs://index', exposedUri: 'hangar://alpha/docs://index', name: 'index', description: null, mimeType: 'text/plain'}],
			resourceTemplates: [{uriTemplate: 'docs://page/{id}', exposedUriTemplate: 'docs://page/{id}', name: 'page', description: null}],
			clashes: [{kind: 'prompt', name: 'greet', owner: 'beta', shadowed: ['alpha']}],
		};
		const ui = open(source, {columns: 140, rows: 44});
		await ui.press('j', keys.enter);
		const screen = await ui.see('PROMPTS AND RESOURCES (2 prompts, 1 resources, 1 templates)');
		expect(screen).toMatch(/prompt\s+alpha__summarize\s+\(url\)\s+Summarize a page/);
		expect(screen).toMatch(/prompt\s+greet\s+\(name kept by another server\)/);
		expect(screen).toMatch(/resource\s+hangar:\/\/alpha\/docs:\/\/index\s+index/);
		expect(screen).toMatch(/template\s+docs:\/\/page\/\{id\}\s+page/);
		expect(screen).toMatch(/name clash\s+prompt greet\s+kept by beta; not exposed for this server/);
	});

	it('shows the tools its filter keeps out, each with the rule that does', async () => {
		const source = new FakeSource(threeUpstreams());
		source.moreDetails = {filteredTools: [{name: 'delete_all', rule: 'excludeTools "delete_*"'}, {name: 'admin', rule: 'includeTools ["search_*","echo"] (it matches none of them)'}]};
		const ui = open(source, {columns: 140, rows: 44});
		await ui.press('j', keys.enter);
		const screen = await ui.see('TOOLS (2, most called first; 2 filtered out by its config entry)');
		expect(screen).toContain('filtered out 2');
		expect(screen).toMatch(/delete_all\s+filtered out by excludeTools "delete_\*"/);
		expect(screen).toMatch(/admin\s+filtered out by includeTools \["search_\*","echo"\] \(it matches none of them\)/);
	});

	it('says "not listed yet" for an upstream that never listed its tools, not stale', async () => {
		const source = new FakeSource(threeUpstreams());
		source.moreDetails = {server: {...source.entries.find(candidate => candidate.name === 'alpha')!, tools: 0, toolsSource: 'none', stale: false, lastVerifiedAt: null}, tools: []};
		const ui = open(source, {columns: 140, rows: 44});
		await ui.press('j', keys.enter);
		const screen = await ui.see('tools not listed yet');
		expect(screen).toContain('not listed yet: it has not run since it was configured');
		expect(screen).not.toContain('stale');
	});

	it('cuts its sections to the rows it has, saying how many more there are', async () => {
		const source = new FakeSource(threeUpstreams());
		const ui = open(source, {columns: 100, rows: 16});
		await ui.press(keys.enter);
		const screen = await ui.see('STDERR');
		expect(screen).toMatch(/… \d+ more/);
		expect(ui.lines()).toHaveLength(15);
	});
});

describe('the filter', () => {
	it('narrows the list by name, state or tool name; Enter keeps it, Esc clears it', async () => {
		const ui = open(new FakeSource(threeUpstreams()));
		await ui.see('gamma');
		await ui.press('/');
		await ui.see('/ ▏');
		await ui.press('s', 'e', 'a', 'r', 'c', 'h');
		await ui.see('1 of 3 match');
		expect(ui.frame()).not.toMatch(/^[› ] gamma/m);
		expect(ui.frame()).toContain('› alpha');
		await ui.press(keys.enter);
		await ui.see('(Esc clears it)');
		// Keys are commands again, not text.
		await ui.press(keys.escape);
		await ui.gone('match');
		expect(ui.frame()).toContain('gamma');

		await ui.press('/', 'd', 'e', 'a', 'd');
		await ui.see('1 of 3 match');
		expect(ui.frame()).toContain('› gamma');
		await ui.press(keys.backspace, keys.backspace, keys.backspace, keys.backspace, 'b', 'e', 't', 'a');
		await ui.see('› beta');
		await ui.press(keys.escape);
		await ui.gone('match');
		expect(ui.frame()).toContain('alpha');
	});

	it('says so when nothing matches', async () => {
		const ui = open(new FakeSource(threeUpstreams()));
		await ui.press('/', 'z', 'z', 'z', 'q');
		await ui.see('No upstream matches "zzzq"');
	});
});

describe('signing in', () => {
	const needsSignIn = (): StatusEntry[] => [
		entry('alpha'),
		entry('linear', {state: 'needs-sign-in', ready: false, pid: null, transport: 'remote', lastError: 'upstream "linear": it needs sign-in'}),
	];

	it('hints a in the footer only while the selected upstream needs sign-in', async () => {
		const ui = open(new FakeSource(needsSignIn()), {columns: 80, rows: 24});
		await ui.see('linear');
		// Trouble first: the upstream that needs sign-in is listed, and selected, first.
		await ui.see('a sign in');
		await ui.press('j');
		await ui.gone('a sign in');
	});

	it('starts the sign-in of the selected upstream with a and shows the whole URL to open at 80 columns', async () => {
		const source = new FakeSource(needsSignIn());
		const ui = open(source, {columns: 80, rows: 24});
		await ui.see('a sign in');
		await ui.press('a');
		await ui.see('open this URL in a browser (there is no display)');
		expect(source.signIns).toEqual(['linear']);
		expect(source.commands).toEqual([]);
		const lines = ui.lines();
		const first = lines.findIndex(line => line.startsWith('https://auth.example/'));
		const url = lines.slice(first).join('').split(/\s/)[0] ?? '';
		expect(url.slice(0, url.indexOf('end') + 3)).toBe((await source.signInAnswer('linear')).url);
	});

	it('replaces the URL with the failure and its reason, escaped, when the sign-in fails after the URL was shown; an older failure does not', async () => {
		const source = new FakeSource(needsSignIn());
		const ui = open(source, {columns: 80, rows: 24});
		await ui.see('a sign in');
		await ui.press('a');
		await ui.see('open this URL in a browser');
		// A failure of another (older) attempt leaves the URL shown.
		source.change(s => {
			s.entries = s.entries.map(row => (row.name === 'linear' ? {...row, lastError: 'an older attempt failed', signIn: {state: 'failed', startedAt: '2026-11-22T07:00:00.000Z', via: 'a person in the TUI', at: '2026-11-22T07:05:00.000Z', reason: 'old'}} : row));
		});
		await ui.see('an older attempt failed');
		expect(ui.lines().join('\n')).toContain('open this URL in a browser');
		source.change(s => {
			s.entries = s.entries.map(row =>
				row.name === 'linear'
					? {
							...row,
							lastError: 'sign-in failed: the browser did not come back within 300 s',
							signIn: {state: 'failed', startedAt: '2026-11-22T08:00:00.000Z', via: 'a person in the TUI', at: '2026-11-22T08:05:00.000Z', reason: 'the browser did not come back within 300 s \u001B]52;c;cHduZWQ=\u0007'},
						}
					: row,
			);
		});
		await ui.see('Signing in to "linear" failed: the browser did not come back within 300 s');
		await ui.gone('open this URL in a browser');
		await ui.gone('https://auth.example/');
		await ui.see('Press a to start the sign-in again');
		expect(ui.lines().join('\n')).not.toContain('\u001B]52');
	});

	it('shows why the supervisor refused to start a sign-in, with its hint', async () => {
		const source = new FakeSource(needsSignIn());
		source.signInAnswer = async name => {
			throw new HangarError({code: 'UpstreamUnavailable', upstream: name, operation: 'sign-in', message: 'it is not a remote server that signs in with OAuth', hint: 'A person signs in in a terminal: mcp-hangar auth linear.'});
		};

		const ui = open(source, {columns: 80, rows: 24});
		await ui.see('a sign in');
		await ui.press('a');
		await ui.see('not a remote server');
		await ui.see('mcp-hangar auth linear');
	});
});

describe('commands', () => {
	it('shows "starting x…" at once and the result when the command settles', async () => {
		const source = new FakeSource(threeUpstreams());
		let finish: (text: string) => void = () => {};
		source.answer = async () => new Promise(resolve => {
			finish = resolve;
		});
		const ui = open(source);
		await ui.see('› gamma');
		await ui.press('s');
		await ui.see('starting gamma…');
		// Keys stay live while the command runs.
		await ui.press('j');
		await ui.see('› alpha');
		finish('started "gamma" (ready, pid 4242, 3 tools)');
		await ui.see('✓ started "gamma" (ready, pid 4242, 3 tools)');
		expect(source.commands).toEqual([{name: 'gamma', action: 'start'}]);
	});

	it('sends x, r and u to the selected upstream', async () => {
		const source = new FakeSource(threeUpstreams());
		const ui = open(source);
		await ui.see('› gamma');
		await ui.press('j', 'x');
		await ui.see('stop done on "alpha"');
		await ui.press('r');
		await ui.see('restart done on "alpha"');
		// A quarantine persists and hides the upstream: u asks first, and n leaves it as it was.
		await ui.press('u');
		await ui.see('Quarantine "alpha"? It is stopped, its tools are hidden');
		await ui.press('n');
		await ui.see('not quarantined: "alpha" is left as it was');
		expect(source.commands.map(call => call.action)).toEqual(['stop', 'restart']);
		await ui.press('u');
		await ui.see('Quarantine "alpha"?');
		await ui.press('y');
		await ui.see('quarantine done on "alpha"');
		expect(source.commands).toEqual([
			{name: 'alpha', action: 'stop'},
			{name: 'alpha', action: 'restart'},
			{name: 'alpha', action: 'quarantine'},
		]);
	});

	it('asks the whole quarantine question for a long name at 80 columns, not cut before "(y/n)"', async () => {
		const name = 'a-really-long-upstream-name-that';
		const ui = open(new FakeSource([entry(name)]), {columns: 80, rows: 24});
		await ui.see(`› ${name.slice(0, 9)}`);
		await ui.press('u');
		await ui.see('Quarantine "');
		expect(ui.frame().replace(/\s+/g, ' ')).toContain(`Quarantine "${name}"? It is stopped, its tools are hidden and its calls refused until a person lifts it, also after a restart of hangar. (y/n)`);
		expect(ui.lines().every(line => line.length <= 80)).toBe(true);
	});

	it('shows an error in the message line with its hint apart', async () => {
		const source = new FakeSource(threeUpstreams());
		source.answer = async () => {
			throw new HangarError({code: 'StartFailed', upstream: 'gamma', operation: 'start', message: 'the process exited with code 4 during initialize', hint: 'Check its stderr with l.'});
		};
		const ui = open(source);
		await ui.press('s');
		const screen = await ui.see('✗ upstream "gamma": start failed: the process exited with code 4 during initialize.');
		expect(screen).toMatch(/\n\s+Check its stderr with l\.\n/);
	});

	it('clears a success after a while; an error stays until the next action', async () => {
		const source = new FakeSource(threeUpstreams());
		const ui = open(source, undefined, {messageMs: 150});
		await ui.see('› gamma');
		await ui.press('x');
		await ui.see('✓ stop done on "gamma"');
		await ui.gone('stop done');

		source.answer = async () => {
			throw new HangarError({code: 'StartFailed', upstream: 'gamma', operation: 'start', message: 'the process exited with code 4', hint: 'Check its stderr with l.'});
		};
		await ui.press('s');
		await ui.see('✗ upstream "gamma": start failed');
		await new Promise(resolve => {
			setTimeout(resolve, 600);
		});
		expect(ui.frame()).toContain('✗ upstream "gamma": start failed');
		// The next action replaces it.
		source.answer = async call => `${call.action} done on "${call.name}"`;
		await ui.press('r');
		await ui.see('✓ restart done on "gamma"');
		expect(ui.frame()).not.toContain('✗');
	});

	it('asks before lifting a quarantine: n leaves it, y approves', async () => {
		const source = new FakeSource([entry('alpha'), entry('quarry', {state: 'quarantined', admin: 'quarantined', pid: null, quarantineReason: 'quarantined by a person (TUI)'})]);
		const ui = open(source);
		await ui.see('quarry');
		await ui.press('/', 'q', 'u', 'a', 'r', keys.enter);
		await ui.see('› quarry');
		await ui.press('u');
		// The question says what approving pins, as the source (the core) words it.
		await ui.see(`Lift the quarantine of "quarry" and pin ${source.approvalPins('quarry')}? (y/n)`);
		expect(ui.frame()).toContain('y yes');
		// Other keys do nothing while the question is open.
		await ui.press('s', 'x');
		await ui.press('n');
		await ui.see('left "quarry" quarantined');
		expect(source.commands).toEqual([]);
		await ui.press('u');
		await ui.see('(y/n)');
		await ui.press('y');
		await ui.see('approve done on "quarry"');
		expect(source.commands).toEqual([{name: 'quarry', action: 'approve'}]);
	});
});

describe('logs and help', () => {
	it('l shows the upstream\'s log full screen, following the tail until scrolled back', async () => {
		const source = new FakeSource(threeUpstreams());
		source.logs['gamma'] = Array.from({length: 100}, (_, i) => ({at: now - (100 - i) * 1000, source: i % 10 === 0 ? 'hangar' : 'stderr', text: `line ${i}`}) as LogLine);
		const ui = open(source, {columns: 100, rows: 20});
		await ui.press('l');
		const screen = await ui.see('line 99');
		expect(screen).toContain('LOG gamma');
		expect(screen).toContain('following new lines');
		expect(screen).not.toContain('line 80');
		await ui.press('k', 'k');
		await ui.see('2 lines back');
		expect(ui.frame()).not.toContain('line 99');
		expect(ui.frame()).toContain('line 97');
		await ui.press('j', 'j');
		await ui.see('following new lines');
		source.change(s => {
			s.logs['gamma'] = [...(s.logs['gamma'] ?? []), {at: now, source: 'stderr', text: 'a fresh line'}];
		});
		await ui.see('a fresh line');
		await ui.press(keys.escape);
		await ui.see('NAME');
	});

	it('l scrolled back stays on the same lines while new ones arrive, also when the bounded buffer drops old ones', async () => {
		const source = new FakeSource(threeUpstreams());
		const line = (i: number): LogLine => ({at: now, source: 'stderr', text: `line ${i}`});
		source.logs['gamma'] = Array.from({length: 100}, (_, i) => line(i));
		const ui = open(source, {columns: 100, rows: 20});
		await ui.press('l');
		await ui.see('line 99');
		const bottom = (): string | undefined => ui.lines().filter(text => /line \d+$/.test(text)).at(-1)?.replace(/^.* line /, 'line ');
		await ui.press('kkkkk');
		await ui.see('5 lines back');
		expect(bottom()).toBe('line 94');

		// Three new lines: the view does not move; they are three more lines below it.
		source.change(s => {
			s.logs['gamma'] = [...(s.logs['gamma'] ?? []), line(100), line(101), line(102)];
		});
		await ui.see('8 lines back');
		expect(bottom()).toBe('line 94');

		// The buffer is full: each new line drops the oldest. Still the same lines.
		source.change(s => {
			s.logs['gamma'] = [...(s.logs['gamma'] ?? []).slice(20), ...Array.from({length: 20}, (_, i) => line(103 + i))];
			s.logsDropped['gamma'] = 20;
		});
		await ui.see('28 lines back');
		expect(bottom()).toBe('line 94');

		// The lines it showed have fallen off the front: it shows the oldest lines left.
		source.change(s => {
			s.logs['gamma'] = Array.from({length: 50}, (_, i) => line(200 + i));
			s.logsDropped['gamma'] = 200;
		});
		await ui.see(/line 200$/m);
		expect(ui.frame()).not.toContain('line 94');
		expect(ui.frame()).toMatch(/\d+ lines back \(↓ to follow\)/);

		// Down to the newest line follows again.
		await ui.press(keys.pageDown, keys.pageDown, keys.pageDown, keys.pageDown, keys.pageDown);
		await ui.see('following new lines');
		expect(bottom()).toBe('line 249');
		source.change(s => {
			s.logs['gamma'] = [...(s.logs['gamma'] ?? []).slice(1), line(250)];
			s.logsDropped['gamma'] = 201;
		});
		await ui.see('line 250');
	});

	it('? wraps long descriptions instead of cutting them', async () => {
		// At 120 columns each key's description fits on its line, the y/n of u included.
		const wide = open(new FakeSource(threeUpstreams()), {columns: 120, rows: 100});
		await wide.press('?');
		await wide.see('HELP');
		const quarantine = bindings.find(binding => binding.action === 'quarantine')?.description ?? '';
		expect(quarantine).toContain('y/n');
		expect(wide.lines().some(text => text.trimEnd().endsWith(quarantine))).toBe(true);

		// Narrower, descriptions wrap under themselves: nothing is cut.
		const narrow = open(new FakeSource(threeUpstreams()), {columns: 80, rows: 100});
		await narrow.press('?');
		await narrow.see('HELP');
		for (const text of narrow.lines()) {
			expect([...text].length).toBeLessThanOrEqual(80);
			expect(text.trimEnd()).not.toMatch(/…$/);
		}

		const squeezed = narrow.frame().replaceAll(/\s+/g, ' ');
		for (const binding of bindings) expect(squeezed).toContain(binding.description);
	});

	it('? lists every binding of the keymap and Esc closes it', async () => {
		const ui = open(new FakeSource(threeUpstreams()), {columns: 160, rows: 80});
		await ui.press('?');
		const screen = await ui.see('HELP');
		for (const binding of bindings) expect(screen).toContain(binding.description);
		expect(screen).toContain('/home/me/.local/state/mcp-hangar/hangar.log');
		await ui.press(keys.escape);
		await ui.see('NAME');
		await ui.press('?');
		await ui.see('HELP');
		await ui.press('?');
		await ui.see('NAME');
	});
});

describe('the clients view', () => {
	const twoClients = (): ClientView[] => [
		client(1, {calls: 1234, lastCallAt: now - 3000, lastTool: 'alpha__search_docs'}),
		client(2, {name: null, version: null, protocolVersion: null, connectedAt: now - 7000}),
	];

	it('c lists the attached clients oldest first: name and version, transport, protocol version, label, connected since, calls, last call; Esc goes back', async () => {
		const source = new FakeSource(threeUpstreams());
		source.clients = [
			...twoClients(),
			client(3, {name: 'modern-client', version: '2.0.0', protocolVersion: '2026-07-28', label: 'socket 2026-07-28 client #1', connectedAt: now - 5000}),
			// A 2026-07-28 client's connection whose identity went idle: it says so, not that it never initialized.
			client(4, {name: null, version: null, protocolVersion: '2026-07-28', connectedAt: now - 5000}),
			// A 2026-07-28 client whose requests carry no clientInfo.
			client(5, {name: null, version: null, protocolVersion: '2026-07-28', modern: true, label: 'socket 2026-07-28 client #2', connectedAt: now - 5000}),
		];
		const ui = open(source);
		await ui.see('clients 5');
		await ui.press('c');
		const screen = await ui.see('CLIENTS');
		expect(screen).toContain('5 attached, oldest first');
		expect(ui.lines().find(line => line.includes('CLIENT '))?.trimEnd()).toMatch(/^ {2}CLIENT\s+TRANSPORT\s+PROTOCOL\s+LABEL\s+CONNECTED\s+CALLS\s+LAST CALL$/);
		const rows = ui.lines().filter(line => line.includes('socket'));
		expect(rows[0]).toMatch(/^ {2}e2e-client 1\.2\.0\s+socket\s+2025-11-25\s+socket#1\s+5m00s\s+1234\s+3s ago {2}alpha__search_docs$/);
		expect(rows[1]).toMatch(/^ {2}\(not initialized\)\s+socket\s+-\s+socket#2\s+7s\s+0\s+-$/);
		expect(rows[2]).toMatch(/^ {2}modern-client 2\.0\.0\s+socket\s+2026-07-28\s+socket 20…\s+5s\s+0\s+-$/);
		expect(rows[3]).toMatch(/^ {2}\(no recent request\)\s+socket\s+2026-07-28\s+socket#4\s+5s\s+0\s+-$/);
		expect(rows[4]).toMatch(/^ {2}\(no clientInfo\)\s+socket\s+2026-07-28\s+socket 20…\s+5s\s+0\s+-$/);
		expect(ui.lines().at(-1)).toMatch(/^\? help .*Esc back .*q quit$/);

		// Live: a client leaves, the other calls.
		source.change(s => {
			s.clients = [client(2, {name: 'later', version: '0.1', connectedAt: now - 7000, calls: 1, lastCallAt: now, lastTool: 'echo'})];
		});
		await ui.see(/later 0\.1\s+socket\s+2025-11-25\s+socket#2\s+7s\s+1\s+0s ago {2}echo/);
		expect(ui.frame()).toContain('clients 1');
		expect(ui.frame()).not.toContain('e2e-client');
		await ui.press(keys.escape);
		await ui.see('NAME');
	});

	it('says how to attach a client when none is', async () => {
		const ui = open(new FakeSource(threeUpstreams()));
		await ui.press('c');
		const screen = await ui.see('No MCP client is attached.');
		expect(screen).toContain('CLIENTS  none attached');
		// The command a client should launch, absolute (a client may not see a shell's PATH), whole and ready to copy.
		const command = launchCommandLine('/home/me/.config/mcp-hangar/config.json');
		// With the state dir this environment resolves pinned, since the config does not set one (see hangar-launch.ts).
		expect(command).toMatch(/^\S*node\S* \S+cli\.js --stdio --config \/home\/me\/\.config\/mcp-hangar\/config\.json --state-dir \S+$/);
		expect(screen.replaceAll(/\n\s*/g, ' ')).toContain(command);
		expect(screen).not.toContain('TRANSPORT');
	});

	it('gives up the protocol version, the label and connection age first when narrow, and under 60 columns shows client, calls and last call', async () => {
		const source = new FakeSource(threeUpstreams());
		source.clients = twoClients();
		const ui = open(source, {columns: 70, rows: 20});
		await ui.press('c');
		await ui.see('CLIENTS');
		expect(ui.lines().find(line => line.includes('CLIENT '))?.trimEnd()).toMatch(/^ {2}CLIENT\s+TRANSPORT\s+CALLS\s+LAST CALL$/);
		expect(ui.frame()).toMatch(/^ {2}e2e-client 1\.2\.0\s+socket\s+1234\s+3s ago {2}alpha__search_docs/m);
		for (const line of ui.lines()) expect([...line].length).toBeLessThanOrEqual(70);

		const narrow = open(source, {columns: 50, rows: 20});
		await narrow.press('c');
		await narrow.see('CLIENTS');
		expect(narrow.lines().find(line => line.includes('CLIENT '))?.trimEnd()).toMatch(/^ {2}CLIENT\s+CALLS\s+LAST CALL$/);
		expect(narrow.frame()).toMatch(/^ {2}e2e-client 1\.2\.0\s+1234\s+3s ago {2}alpha__searc…$/m);
		for (const line of narrow.lines()) expect([...line].length).toBeLessThanOrEqual(50);
		expect(narrow.lines()).toHaveLength(19);
	});

	it('scrolls when there are more clients than rows', async () => {
		const source = new FakeSource(threeUpstreams());
		source.clients = Array.from({length: 30}, (_, index) => client(index + 1, {name: `client-${index + 1}`}));
		const ui = open(source, {columns: 100, rows: 16});
		await ui.press('c');
		await ui.see(/rows 1-\d+ of 30/);
		expect(ui.frame()).not.toContain('client-30 ');
		await ui.press(keys.pageDown);
		await ui.see('rows 11-19 of 30');
		// Not past the last client.
		await ui.press(keys.pageDown, keys.pageDown);
		await ui.see('rows 22-30 of 30');
		expect(ui.frame()).toContain('client-30 ');
		await ui.press('k');
		await ui.see('rows 21-29 of 30');
		expect(ui.lines()).toHaveLength(15);
	});

	it('on the list, a client\'s calls alone draw nothing new; on the clients view they show', async () => {
		const source = new FakeSource(threeUpstreams());
		const connect = (id: number): void => {
			source.change(s => {
				s.clients = [...s.clients, client(id)];
			});
		};

		const ui = open(source);
		connect(1);
		// Settled: a change was drawn after the first frame's effects.
		await ui.see('clients 1');
		const frames = ui.frames.length;
		const reads = source.reads;
		for (let i = 1; i <= 1000; i++) {
			source.change(s => {
				s.clients = [client(1, {calls: i, lastCallAt: now, lastTool: 'alpha__echo'})];
			});
		}

		await waitFor(() => source.reads > reads, 'the snapshot re-read');
		// Something shown changes: one frame for it, none for the calls before it.
		connect(2);
		await ui.see('clients 2');
		expect(ui.frames.length - frames).toBe(1);

		await ui.press('c');
		await ui.see(/e2e-client 1\.2\.0\s+socket\s+2025-11-25\s+socket#1\s+5m00s\s+1000\s+0s ago {2}alpha__echo/);
		source.change(s => {
			s.clients = s.clients.map(candidate => (candidate.id === 1 ? {...candidate, calls: 1001} : candidate));
		});
		await ui.see(/socket#1\s+5m00s\s+1001/);
	});
});

describe('quitting', () => {
	it('q quits at once without attached clients, showing how many upstreams it stops', async () => {
		const onQuit = vi.fn();
		const ui = open(new FakeSource(threeUpstreams()), undefined, {onQuit});
		await ui.press('q');
		await ui.see('stopping 1 upstream…');
		await waitFor(() => onQuit.mock.calls.length === 1, 'onQuit');
		expect(ui.frame()).toContain('Ctrl-C kill now');
	});

	it('q goes by the clients attached now, not by the last frame: one that just left does not hold the quit', async () => {
		const onQuit = vi.fn();
		const source = new FakeSource(threeUpstreams());
		source.clients = [client(1)];
		const ui = open(source, undefined, {onQuit});
		await ui.see('clients 1');
		// It leaves without an event reaching the screen yet (a frame can be up to a second late under load).
		source.clients = [];
		await ui.press('q');
		await ui.see('stopping 1 upstream…');
		await waitFor(() => onQuit.mock.calls.length === 1, 'onQuit');
	});

	it('q asks first when clients are attached', async () => {
		const onQuit = vi.fn();
		const source = new FakeSource(threeUpstreams());
		source.clients = [client(1), client(2)];
		const ui = open(source, undefined, {onQuit});
		await ui.see('clients 2');
		await ui.press('q');
		await ui.see('2 clients are attached. Quit and stop every upstream anyway? (y/n)');
		await ui.press(keys.escape);
		await ui.gone('(y/n)');
		// Saying no says so.
		await ui.see('✓ not quitting: hangar and its upstreams keep running');
		expect(onQuit).not.toHaveBeenCalled();
		await ui.press('q');
		await ui.see('(y/n)');
		await ui.press('n');
		await ui.see('not quitting');
		expect(onQuit).not.toHaveBeenCalled();
		await ui.press('q');
		await ui.see('(y/n)');
		await ui.press('y');
		await ui.see('stopping 1 upstream…');
		await waitFor(() => onQuit.mock.calls.length === 1, 'onQuit');
	});

	it('Ctrl-C quits the same way, and a second Ctrl-C while stopping forces it', async () => {
		const onQuit = vi.fn();
		const onForceQuit = vi.fn();
		const ui = open(new FakeSource(threeUpstreams()), undefined, {onQuit, onForceQuit});
		await ui.press(keys.ctrlC);
		await ui.see('stopping 1 upstream…');
		await waitFor(() => onQuit.mock.calls.length === 1, 'onQuit');
		await ui.press(keys.ctrlC);
		await waitFor(() => onForceQuit.mock.calls.length === 1, 'onForceQuit');
	});
});

describe('the calls view', () => {
	/** Logs `n` calls through the real calls log: alpha's echo every time, beta's search failing every third. */
	function logCalls(source: FakeSource, n: number, from = 1): void {
		source.change(s => {
			for (let i = from; i < from + n; i++) {
				const failed = i % 3 === 0;
				s.calls.record({
					at: now - (1000 - i) * 100,
					client: i % 2 === 0 ? 'claude-code' : 'cursor',
					upstream: failed ? 'beta' : 'alpha',
					tool: failed ? 'search' : 'echo',
					ms: i,
					outcome: failed ? 'error' : 'ok',
					code: failed ? 'UpstreamTimeout' : null,
					error: failed ? 'upstream "beta": tools/call "search" failed: no answer within 2 s' : null,
					args: {message: `call ${i}`, apiKey: 'sk-live-123456'},
					result: failed ? undefined : {content: [{type: 'text', text: `call ${i} with secret-value-42`}]},
					secrets: ['secret-value-42'],
				});
			}
		});
	}

	it('t lists every call across upstreams, newest first: time, client, upstream, tool, latency, result or error code', async () => {
		const source = new FakeSource(threeUpstreams());
		logCalls(source, 6);
		const ui = open(source, {columns: 140, rows: 20});
		await ui.see('t calls');
		await ui.press('t');
		await ui.see('live, newest first');
		const header = ui.lines().find(line => line.includes('UPSTREAM'))?.trimEnd();
		expect(header).toMatch(/TIME\s+CLIENT\s+UPSTREAM\s+TOOL\s+LATENCY\s+RESULT\s+ERROR$/);
		const rows = ui.lines().filter(line => /^[› ] \d\d:\d\d:\d\d /.test(line));
		expect(rows).toHaveLength(6);
		expect(rows[0]).toMatch(/^› \d\d:\d\d:\d\d\s+claude-code\s+beta\s+search\s+6\.0ms\s+UpstreamTimeout\s+upstream "beta": tools\/call "search" failed/);
		expect(rows[1]).toMatch(/cursor\s+alpha\s+echo\s+5\.0ms\s+ok/);
		// Live: a new call comes in on top, selected.
		logCalls(source, 1, 7);
		await ui.see(/› \d\d:\d\d:\d\d\s+cursor\s+alpha\s+echo\s+7\.0ms/);
		await ui.press(keys.escape);
		await ui.see('NAME');
	});

	it('keeps whose call it was at 80 columns: CLIENT stays, latency gives way first', async () => {
		const source = new FakeSource(threeUpstreams());
		logCalls(source, 6);
		const ui = open(source, {columns: 80, rows: 20});
		await ui.press('t');
		await ui.see('live, newest first');
		const header = ui.lines().find(line => line.includes('UPSTREAM'))?.trimEnd();
		expect(header).toMatch(/TIME\s+CLIENT\s+UPSTREAM\s+TOOL\s+(LATENCY\s+)?RESULT/);
		const rows = ui.lines().filter(line => /^[› ] \d\d:\d\d:\d\d /.test(line));
		expect(rows[0]).toMatch(/^› \d\d:\d\d:\d\d\s+claude-code\s+beta\s+search\s+/);
		expect(rows[1]).toMatch(/cursor\s+alpha\s+echo/);
		for (const line of ui.lines()) expect([...line].length).toBeLessThanOrEqual(80);
	});

	it('pauses on a call when moved down: new calls are counted above, not scrolled in; back at the top it follows again', async () => {
		const source = new FakeSource(threeUpstreams());
		logCalls(source, 5);
		const ui = open(source, {columns: 140, rows: 20});
		await ui.press('t');
		await ui.see('live, newest first');
		await ui.press('j');
		await ui.see('paused: 1 newer call above');
		expect(ui.lines().find(line => line.startsWith('›'))).toMatch(/echo\s+4\.0ms/);
		logCalls(source, 2, 6);
		await ui.see('paused: 3 newer calls above');
		// Still on the same call.
		expect(ui.lines().find(line => line.startsWith('›'))).toMatch(/echo\s+4\.0ms/);
		await ui.press('k', 'k', 'k');
		await ui.see('live, newest first');
		expect(ui.lines().find(line => line.startsWith('›'))).toMatch(/7\.0ms/);
	});

	it('filters the calls by every word typed (client, upstream, tool, outcome or code), and Esc clears the filter before leaving', async () => {
		const source = new FakeSource(threeUpstreams());
		logCalls(source, 9);
		const ui = open(source, {columns: 140, rows: 24});
		await ui.press('t');
		await ui.see('live, newest first');
		await ui.press('/', 'b', 'e', 't', 'a', ' ', 't', 'i', 'm', 'e', 'o', 'u', 't', keys.enter);
		await ui.see('3 matching of the last 9');
		const rows = ui.lines().filter(line => /^[› ] \d\d:\d\d:\d\d /.test(line));
		expect(rows).toHaveLength(3);
		for (const row of rows) expect(row).toMatch(/beta\s+search\s+\S+\s+UpstreamTimeout/);
		await ui.press('/', 'x', 'y', 'z', keys.enter);
		await ui.see('No call matches "beta timeoutxyz". Esc clears the filter.');
		await ui.press(keys.escape);
		await ui.see('9 of the last 9');
		await ui.press(keys.escape);
		await ui.see('NAME');
	});

	it('moves among the matching calls with ↑↓ while the filter is typed, leaving the upstreams\' selection alone', async () => {
		const source = new FakeSource(threeUpstreams());
		logCalls(source, 9);
		const ui = open(source, {columns: 140, rows: 24});
		const selectedUpstream = ui.lines().find(line => line.startsWith('›'));
		await ui.press('t');
		await ui.see('live, newest first');
		await ui.press('/', 'b', 'e', 't', 'a');
		// ↓ moves among the calls on the screen: wait until the filtered ones are there.
		await ui.see('matching of the last 9');
		await ui.press(keys.down);
		await ui.see('paused: 1 newer call above');
		expect(ui.lines().find(line => line.startsWith('›'))).toMatch(/beta\s+search\s+6\.0ms/);
		await ui.press(keys.enter);
		await ui.see('matching of the last 9');
		await ui.press(keys.escape);
		await ui.see('9 of the last 9');
		await ui.press(keys.escape);
		await ui.see('NAME');
		expect(ui.lines().find(line => line.startsWith('›'))).toBe(selectedUpstream);
	});

	it('keeps only the last calls the log holds (bounded), and says how many it keeps', async () => {
		const source = new FakeSource(threeUpstreams());
		logCalls(source, 45);
		const ui = open(source, {columns: 140, rows: 60});
		await ui.press('t');
		await ui.see('20 of the last 20 (the log keeps 20)');
		const rows = ui.lines().filter(line => /^[› ] \d\d:\d\d:\d\d /.test(line));
		expect(rows).toHaveLength(20);
		expect(rows.at(-1)).toMatch(/\s26ms\s/);
	});

	it('Enter shows a call: its arguments and result cut to a bound with secrets masked; Esc goes back to the calls, paused there', async () => {
		const source = new FakeSource(threeUpstreams());
		logCalls(source, 5);
		const ui = open(source, {columns: 100, rows: 24});
		await ui.press('t');
		await ui.see('live, newest first');
		await ui.press('j', keys.enter);
		await ui.see('CALL #4');
		const screen = ui.frame();
		expect(screen).toContain('client claude-code  upstream alpha  tool echo');
		expect(screen).toContain('{"message":"call 4","apiKey":"***"}');
		expect(screen).toContain('call 4 with ***');
		expect(screen).not.toContain('sk-live-123456');
		expect(screen).not.toContain('secret-value-42');
		await ui.press(keys.escape);
		await ui.see('paused: 1 newer call above');
	});
});

describe('the detail view\'s sections', () => {
	it('Tab focuses the next section, ↑↓ scroll it, Enter expands it to the whole body and back', async () => {
		const source = new FakeSource(threeUpstreams());
		source.moreDetails = {
			transitions: Array.from({length: 30}, (_, index) => ({at: at(300 - index), from: 'ready' as const, to: 'degraded' as const, event: 'trip' as const, reason: `trip number ${index + 1}`})),
		};
		const ui = open(source, {columns: 120, rows: 30});
		await ui.press('j', keys.enter);
		await ui.see('▸ HISTORY');
		await ui.press('\t');
		await ui.see('▸ TOOLS');
		await ui.press('\t');
		const screen = await ui.see(/▸ STATE HISTORY \(newest first\)\s+lines 1-\d+ of 30/);
		expect(screen).toContain('trip number 30');
		await ui.press('j', 'j');
		await ui.see(/▸ STATE HISTORY \(newest first\)\s+lines 3-/);
		expect(ui.frame()).not.toContain('trip number 30');
		// Expanded, it takes the body: more of it shows, the other sections give way.
		await ui.press(keys.enter);
		await ui.see(/lines 1-2[0-9] of 30/);
		expect(ui.frame()).not.toContain('RECENT CALLS');
		await ui.press(keys.enter);
		await ui.see('RECENT CALLS');
	});
});

describe('idle HTTP sessions', () => {
	it('marks an idle HTTP session in the header and the clients view, and q does not ask about it', async () => {
		const onQuit = vi.fn();
		const source = new FakeSource(threeUpstreams());
		source.clients = [client(1, {transport: 'http', label: 'a3f9c2', name: 'web-agent', idle: true})];
		const ui = open(source, undefined, {onQuit});
		await ui.see('clients 1 (1 idle)');
		await ui.press('c');
		await ui.see(/web-agent 1\.2\.0 \(idle\)\s+http/);
		await ui.press(keys.escape);
		await ui.see('NAME');
		await ui.press('q');
		await ui.see('stopping 1 upstream…');
		await waitFor(() => onQuit.mock.calls.length === 1, 'onQuit');
	});
});
