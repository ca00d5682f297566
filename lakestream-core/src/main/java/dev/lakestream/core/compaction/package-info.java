/**
 * Compaction of a stream's WAL records into segments of its own: the switch of the index from a range's WAL records
 * to one compacted record ({@link dev.lakestream.core.compaction.SegmentSwitch}); next, the compactor that picks the
 * ranges. Design and failure cases: docs/design/stream-compaction.md.
 */
package dev.lakestream.core.compaction;
