/**
 * Counts starts of the fixture server for the cold-start scenario:
 *
 *   node bench/spawn-counter.js COUNT_FILE [FIXTURE ARGS...]
 *
 * appends one line to COUNT_FILE (its pid and the wall-clock time in ms, with
 * sub-millisecond precision, at which node got to run this file), then runs the
 * fixture server in this same process with the remaining arguments. The plain
 * start and hangar's cold start both use this command, so the wrapper costs
 * both the same; the time lets the bench split a start into "spawn + node boot"
 * and the rest.
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

fs.appendFileSync(countFile, `${process.pid} ${(performance.timeOrigin + performance.now()).toFixed(3)}\n`);
process.argv = [process.argv[0], fixture, ...rest];
await import(pathToFileURL(fixture).href);
