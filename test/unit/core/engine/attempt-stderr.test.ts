/**
 * A failed start quotes its own attempt's stderr, not every earlier
 * attempt's: "boom | boom | boom" from five restarts said nothing new.
 */
import {describe, expect, it} from 'vitest';
import {attemptStderr} from '../../../../source/core/engine/upstream/upstream.js';
import {stderrSummary, type LogLine} from '../../../../source/core/link/log-buffer.js';

const line = (at: number, text: string): LogLine => ({at, source: 'stderr', text});

describe('attemptStderr', () => {
	it('quotes only the lines this attempt wrote', () => {
		const tail = [line(100, 'boom'), line(200, 'boom'), line(300, 'starting'), line(310, 'boom')];
		expect(attemptStderr(tail, 300)).toEqual({lines: ['starting', 'boom'], earlier: false});
	});

	it('when this attempt wrote nothing, quotes the newest earlier line and marks it earlier', () => {
		expect(attemptStderr([line(100, 'boom'), line(200, 'boom again')], 300)).toEqual({lines: ['boom again'], earlier: true});
	});

	it('with no stderr at all, quotes nothing', () => {
		expect(attemptStderr([], 300)).toEqual({lines: [], earlier: false});
	});
});

// Node 22's stderr for `node /srv/missing.js`, line by line.
const moduleNotFound = [
	'node:internal/modules/cjs/loader:1433',
	'  throw err;',
	'  ^',
	'',
	"Error: Cannot find module '/srv/missing.js'",
	'    at Function._resolveFilename (node:internal/modules/cjs/loader:1430:15)',
	'    at defaultResolveImpl (node:internal/modules/cjs/loader:1040:19)',
	'    at Function._load (node:internal/modules/cjs/loader:1216:25)',
	'    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:171:5)',
	'    at node:internal/main/run_main_module:36:49 {',
	"  code: 'MODULE_NOT_FOUND',",
	'  requireStack: []',
	'}',
	'',
	'Node.js v22.23.5',
];

describe('stderrSummary', () => {
	it('quotes the first line that names an error first, then the newest lines after it, without the stack', () => {
		expect(stderrSummary(moduleNotFound)).toEqual(["Error: Cannot find module '/srv/missing.js'", "code: 'MODULE_NOT_FOUND',", 'requireStack: []']);
		expect(stderrSummary(moduleNotFound, 1)).toEqual(["Error: Cannot find module '/srv/missing.js'"]);
		expect(stderrSummary(moduleNotFound, 2)).toEqual(["Error: Cannot find module '/srv/missing.js'", 'requireStack: []']);
		// And so does a failed start's quote, read from more lines than it shows.
		const tail = moduleNotFound.map((text, index) => line(100 + index, text));
		expect(attemptStderr(tail, 100).lines[0]).toBe("Error: Cannot find module '/srv/missing.js'");
	});

	it('finds the error of other runtimes, and not in a quoted line of code', () => {
		const python = ['Traceback (most recent call last):', '  File "/srv/server.py", line 3, in <module>', '    raise ValueError("never shown first")', 'ModuleNotFoundError: No module named \'mcp\''];
		expect(stderrSummary(python, 2)).toEqual(["ModuleNotFoundError: No module named 'mcp'"]);
		expect(stderrSummary(['/srv/x.js:3', '    Error.stackTraceLimit = Infinity; new Array(-1);', '                                      ^', '', 'RangeError: Invalid array length'], 1)).toEqual(['RangeError: Invalid array length']);
		const esm = ['node:internal/modules/esm/resolve:873', '  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);', '        ^', '', "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/index.js", '    at packageResolve (node:internal/modules/esm/resolve:873:9) {', "  code: 'ERR_MODULE_NOT_FOUND'", '}', '', 'Node.js v22.23.5'];
		expect(stderrSummary(esm)).toEqual(["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /srv/index.js", "code: 'ERR_MODULE_NOT_FOUND'"]);
		const npm = ['npm error code E404', 'npm error 404 Not Found - GET https://registry.npmjs.org/nope', 'npm error A complete log of this run can be found in: /root/.npm/_logs/x.log'];
		expect(stderrSummary(npm)).toEqual(npm);
		expect(stderrSummary(['starting', ...npm], 2)).toEqual([npm[0], npm[2]]);
		expect(stderrSummary(['docker: Error response from daemon: pull access denied.', "See 'docker run --help'."])).toEqual(['docker: Error response from daemon: pull access denied.', "See 'docker run --help'."]);
	});

	it('without an error line, quotes the newest lines that are not noise; when all are noise, the newest as they are', () => {
		expect(stderrSummary(['listening', 'got SIGTERM', '', 'bye'], 2)).toEqual(['got SIGTERM', 'bye']);
		expect(stderrSummary(['    at a (x.js:1:1)', '    at b (x.js:2:1)', '', '}'], 2)).toEqual(['at b (x.js:2:1)', '}']);
		expect(stderrSummary([], 3)).toEqual([]);
	});
});

