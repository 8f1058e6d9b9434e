/**
 * Test-only preload (`NODE_OPTIONS=--import=loaded-modules.mjs`): records
 * the URL of every module the process loads, and at exit appends them, as
 * one JSON line, to the file named by HANGAR_TEST_MODULES_REPORT. Shows
 * which modules a path of hangar loads without hangar having such a hook.
 */
import fs from 'node:fs';
import module from 'node:module';

const loaded = [];
module.registerHooks({
	load(url, context, nextLoad) {
		loaded.push(url);
		return nextLoad(url, context);
	},
});
process.on('exit', () => {
	fs.appendFileSync(process.env.HANGAR_TEST_MODULES_REPORT, `${JSON.stringify(loaded)}\n`);
});
