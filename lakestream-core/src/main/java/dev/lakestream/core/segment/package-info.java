/**
 * Compacted segments: a stream's history copied out of the shared WAL objects into objects of its own, which the
 * offset index's compacted records (file type other than RAW) point at. This package holds the format SPI only
 * ({@link dev.lakestream.core.segment.SegmentFormat}: a writer of entries into one file, a reader of entries by offset
 * out of one); formats (the Parquet one lives in its own module) are found through {@link java.util.ServiceLoader}.
 * Nothing here knows Pulsar: entries are bytes. Design: docs/design/stream-compaction.md.
 */
package dev.lakestream.core.segment;
