/**
 * Counts starts of the fixture server for the cold-start scenario:
 *
 *   node bench/spawn-counter.js COUNT_FILE [FIXTURE ARGS...]
 *
 * appends one line (its pid) to COUNT_FILE, then runs the fixture server in
 * this same process with the remaining arguments. The plain start and hangar's
 * cold start both use this command, so the wrapper costs both the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const fixture = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'demo', 'fixture-server.js');
const [countFile, ...rest] = process.argv.slice(2);
if (countFile === undefined) {
	process.stderr.write('usage: node bench/spawn-counter.js COUNT_FILE [FIXTURE ARGS...]\n');
	process.exit(2);
}

fs.appendFileSync(countFile, `${process.pid}\n`);
process.argv = [process.argv[0], fixture, ...rest];
await import(pathToFileURL(fixture).href);
