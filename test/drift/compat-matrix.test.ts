/**
 * The README's compatibility table is generated from what the matrix test
 * measured (test/compat-matrix.json, written by test/e2e/compat-matrix.test.ts):
 * it must not be edited by hand nor fall behind the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {clientKinds, features, readMatrix, readmeSection, renderMatrix, transports, upstreamKinds, upstreamTransports} from '../support/compat-matrix.js';

describe('the README\'s compatibility matrix', () => {
	it('covers every cell and feature, and is the table rendered from test/compat-matrix.json', () => {
		const matrix = readMatrix();
		expect(matrix.cells).toHaveLength(clientKinds.length * upstreamKinds.length * upstreamTransports.length * transports.length);
		for (const cell of matrix.cells) expect(Object.keys(cell.features).sort()).toEqual([...features].sort());
		const readme = fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
		expect(readmeSection(readme)).toBe(renderMatrix(matrix));
	});
});
