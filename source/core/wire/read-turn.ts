/**
 * Counts the chunks hangar has read from its pipes and sockets (every
 * LineSplitter's input). A writer compares it with the count at its last
 * immediate write to tell whether it is still in the turn that write was
 * made in (write-coalescer.ts): a chunk read is what starts the work of a
 * turn on the stdio paths, so a new count means a new turn.
 */
export const readTurn = {count: 0};
