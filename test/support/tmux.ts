/**
 * Test support: a program in a real pseudo-terminal, through a private tmux
 * server. The session itself lives in bench/lib/tmux.js, which the TUI CPU
 * scenario drives too; this re-exports it for the tests, typed by its JSDoc.
 */
export {TmuxSession} from '../../bench/lib/tmux.js';
export type {TmuxOptions} from '../../bench/lib/tmux.js';
