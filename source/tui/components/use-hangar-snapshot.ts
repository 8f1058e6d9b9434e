/**
 * Hangar's state for the screen, throttled. Supervisor events (a call
 * starting or ending can fire thousands of times a second) only mark the
 * snapshot dirty; it is re-read at most once per frame, and once per
 * `tickMs` anyway so ages and uptimes move. A read that would draw the same
 * screen (see display-key.ts) is dropped, and when only ages changed and
 * none is shown to the second, the redraw waits up to `clockMs`: an idle
 * hangar costs one cheap read a second and about one redraw a minute.
 *
 * The frame interval also adapts: it is at least `frameMs`, and at least
 * `costFactor` times what the last frame took to render, so however slow
 * the machine or large the table, drawing stays a small share of a core.
 */
import {useEffect, useLayoutEffect, useState} from 'react';
import {displayKey} from './display-key.js';
import type {Focus, HangarSnapshot, HangarSource} from './hangar-source.js';

export type SnapshotTiming = {
	/**
	 * Shortest time between two frames after a change (default 250 ms: at most 4 frames a second). Under
	 * 1,000 calls a second the snapshot changes all the time: 10 frames a second cost 2-4% of a core more
	 * than 4, and a person watching sees no difference.
	 */
	frameMs?: number;
	/** Re-read this often even without events, for ages and uptimes (default 1000 ms). */
	tickMs?: number;
	/** The next frame waits at least this many times the last frame's render time (default 16: drawing takes at most ~1/17 of a core, so a loaded hangar serves calls rather than frames). */
	costFactor?: number;
	/**
	 * What the renderer spent turning the last frame into text, in ms (Ink's
	 * `onRender` renderTime), added to React's part: under load Ink's part is
	 * as large as React's, and the cost rule must see both (default none).
	 */
	outputMs?: () => number;
	/** Longest wait the cost rule may impose (default 1000 ms). */
	maxFrameMs?: number;
	/** When only ages shown in minutes changed, redraw at most this often (default 15 s). */
	clockMs?: number;
};

/**
 * How long the next frame waits after a change: at least `frameMs`, at least
 * `costFactor` times what the last frame cost (React's commit plus the
 * renderer's output), at most `maxFrameMs`.
 */
export function frameDelay(cost: {renderMs: number; outputMs: number}, timing: {frameMs: number; costFactor: number; maxFrameMs: number}): number {
	return Math.min(timing.maxFrameMs, Math.max(timing.frameMs, (cost.renderMs + cost.outputMs) * timing.costFactor));
}

/** `focus` is the same object while the screen's focus stays the same (the caller memoises it): a new one re-subscribes. */
/**
 * `onTick`: on the main table (no focus), a read that differs from the screen
 * only in its ages is handed there (tick-context.ts) instead of re-rendering
 * the whole screen; every read shown is handed there too, in the same task.
 */
export function useHangarSnapshot(source: HangarSource, focus: Focus, timing: SnapshotTiming = {}, onTick?: (latest: HangarSnapshot) => void): HangarSnapshot {
	const frameMs = timing.frameMs ?? 250;
	const tickMs = timing.tickMs ?? 1000;
	const costFactor = timing.costFactor ?? 16;
	const maxFrameMs = timing.maxFrameMs ?? 1000;
	const clockMs = timing.clockMs ?? 15_000;
	const outputMs = timing.outputMs;
	const [snapshot, setSnapshot] = useState(() => source.read(focus));
	// Created once: useRef's argument would be evaluated (a JSON of the whole snapshot) on every render.
	const [shown] = useState(() => ({current: {key: displayKey(snapshot, focus), renderMs: 0, flushedAt: undefined as number | undefined, clockAt: performance.now()}}));

	// Runs after the commit, and so after Ink has drawn the frame.
	useLayoutEffect(() => {
		const {flushedAt} = shown.current;
		if (flushedAt !== undefined) shown.current.renderMs = performance.now() - flushedAt;
		shown.current.flushedAt = undefined;
	}, [snapshot]);

	useEffect(() => {
		let pending: NodeJS.Timeout | undefined;
		const flush = (): void => {
			if (pending !== undefined) clearTimeout(pending);
			pending = undefined;
			// A frame's cost starts with the read: under load, reading the snapshot and working out whether it changes the screen cost as much as drawing it.
			const began = performance.now();
			const next = source.read(focus);
			const key = displayKey(next, focus);
			const last = shown.current.key;
			const at = performance.now();
			// Only ages moved: to the second when they are shown so, else batched. The events (a JSON of the snapshot) are worked out only when the clock cannot decide alone.
			const sameClock = key.clock === last.clock;
			const clockWaits = !sameClock && !key.seconds && !last.seconds && at - shown.current.clockAt < clockMs;
			if ((sameClock || clockWaits) && key.events() === last.events()) return;
			// The clock alone moved, on the table: only the ticking texts follow it.
			if (!sameClock && !clockWaits && onTick !== undefined && focus === undefined && key.events() === last.events()) {
				shown.current = {...shown.current, key, clockAt: at};
				onTick(next);
				return;
			}

			shown.current = {...shown.current, key, flushedAt: began, clockAt: at};
			onTick?.(next);
			setSnapshot(next);
		};

		// A new focus is shown at once, not on the next change.
		flush();
		const unsubscribe = source.subscribe(focus, () => {
			pending ??= setTimeout(flush, frameDelay({renderMs: shown.current.renderMs, outputMs: outputMs?.() ?? 0}, {frameMs, costFactor, maxFrameMs}));
		});
		// Without events only ages move: no need to even read while none is shown to the second.
		const tick = setInterval(() => {
			if (pending === undefined && !shown.current.key.seconds && performance.now() - shown.current.clockAt < clockMs) return;
			flush();
		}, tickMs);
		return () => {
			unsubscribe();
			if (pending !== undefined) clearTimeout(pending);
			clearInterval(tick);
		};
	}, [source, focus, frameMs, tickMs, costFactor, maxFrameMs, clockMs, outputMs, onTick]);

	return snapshot;
}
